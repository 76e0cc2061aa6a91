"""A run over many files streams its results (issue 32, item 5).

Each file's model and texts are printed and then dropped: the memory of a run is that of its
largest file, not of the number of files (2,000 small files grew past 800 MB). The files here
are stand-ins of 1 MiB each produced without parsing, so the test measures the command's own
bookkeeping; ``docs/benchmarks.md`` has the measured run over real files.
"""

from __future__ import annotations

import tracemalloc

import pytest

from s2s import driver
from s2s.cli import rewrite_cmd
from s2s.cli.main import main
from s2s.driver import Success
from s2s.frontend.extract import Loaded
from s2s.output import FileChange

FILES = 60
PAYLOAD = 1 << 20


def _stand_in(path: str, options, run_pass, source=None) -> Success:
    """A changed file of PAYLOAD bytes before and after, as process_file gives it."""
    before = bytes(PAYLOAD)
    after = before[:-1] + b"\n"
    return Success(path, Loaded(path, before, None, ()), FileChange(path, before, after),
                   counts=(("copies removed", 1),))


@pytest.mark.parametrize("check", [False, True])
def test_results_are_not_kept_after_they_are_printed(tmp_path, capsys, monkeypatch, check):
    monkeypatch.setattr(driver, "process_file", _stand_in)   # (what process_files calls)
    monkeypatch.setattr(rewrite_cmd, "unified_diff", lambda change: "")
    paths = []
    for number in range(FILES):
        path = tmp_path / f"f{number}.cu"
        path.write_text("int x;\n")
        paths.append(str(path))
    tracemalloc.start()
    try:
        code = main(["transfers", *(["--check"] if check else []), *paths])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert code == (1 if check else 0)
    assert f"{FILES} files: {FILES} would change, 0 failed, {FILES} copies removed" in err
    assert peak < 8 * PAYLOAD, f"peak {peak >> 20} MiB for {FILES} files of 1 MiB"
