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
    monkeypatch.setattr(rewrite_cmd, "cached_diff", lambda change: "")   # (no diff text)
    paths = []
    for number in range(FILES):
        path = tmp_path / f"f{number}.cu"
        path.write_text("int x;\n")
        paths.append(str(path))
    main(["transfers", "--check", paths[0]])   # the pass's imports (on first use) come first
    capsys.readouterr()
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


#: tracemalloc bytes a small file may add to a whole-program run: its model and its result,
#: kept for the program's analysis (about 35 KiB measured for the files below), with room
PER_FILE = 48 << 10


def _omp_peak(directory, count: int) -> int:
    """tracemalloc's peak over ``s2s omp --diff`` of ``count`` small files, one target region
    each (one program: the pass analyses them together)."""
    directory.mkdir()
    paths = []
    for number in range(count):
        path = directory / f"f{number}.c"
        path.write_text(f"void scale{number}(int n, float *a) {{\n"
                        "#pragma omp target teams distribute parallel for\n"
                        "  for (int i = 0; i < n; ++i) a[i] *= 2.0f;\n}\n")
        paths.append(str(path))
    main(["omp", "--diff", str(directory / "f0.c")])  # imports and caches out of the count
    tracemalloc.start()
    try:
        code = main(["omp", "--diff", *paths])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 0
    return peak


def test_a_whole_program_run_grows_linearly_with_its_files(tmp_path, capsys, monkeypatch):
    """The check of a whole-program rewrite kept a table of every edit group by every file
    (one set per pair): 2,000 small files grew past 800 MB and ran for minutes. Now each
    group is split once among the files it touches; what a run keeps per file is the file's
    model and result, so going from N to 4N files adds at most PER_FILE bytes per added file
    (measured: 30 / 60 / 120 / 240 files peak at 1.6 / 2.3 / 4.5 / 8.8 MiB; before, 1.7 / 4.1 /
    11.9 / 38.7 MiB)."""
    monkeypatch.setenv("S2S_CLANG_CHECK", "0")  # the clang-16 process is not what is measured
    small = _omp_peak(tmp_path / "small", 30)
    large = _omp_peak(tmp_path / "large", 120)
    capsys.readouterr()
    assert large - small < 90 * PER_FILE, \
        f"30 files: peak {small >> 10} KiB, 120 files: {large >> 10} KiB"
