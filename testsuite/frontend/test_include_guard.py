"""Includes of special files are refused before libclang reads them (issue 32, item 5).

libclang reads an included file to its end: ``#include "/dev/zero"`` grew until memory ran
out, an include of a FIFO waited forever. Each case runs as its own ``python -m s2s`` process
with a time limit and an address-space limit, so that a regression fails the case instead of
hanging or exhausting the machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from s2s.frontend.core.include_guard import _search_dirs

ADDRESS_SPACE = 6 << 30


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_s2s(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "s2s", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=120, preexec_fn=_limited)


MAIN = "int main(void) { return 0; }\n"


def test_special_file_includes_fail_their_files_before_the_parse(tmp_path):
    """One run over a file per case (each fails alone, the regular one goes on)."""
    inc = tmp_path / "inc"
    inc.mkdir()
    os.mkfifo(tmp_path / "pipe.h")
    (inc / "zero.h").symlink_to("/dev/zero")
    (inc / "a.h").write_text('#include "zero.h"\n')
    os.mkfifo(inc / "config.h")
    (inc / "sizes.h").write_text("#define N 64\n")
    sources = {"absolute.c": '#include "/dev/zero"\n', "fifo.c": '#include "pipe.h"\n',
               "nested.c": '#include "inc/a.h"\n', "angle.c": "#include <config.h>\n",
               "regular.c": '#include <stdio.h>\n#include "sizes.h"\n'}
    for name, head in sources.items():
        (tmp_path / name).write_text(head + MAIN)
    proc = run_s2s(tmp_path, "omp", *sources, "--", "-Iinc")
    refused = [line.split(":")[0] for line in proc.stderr.splitlines()
               if line.endswith("[include-not-regular]")]
    assert sorted(refused) == sorted(["absolute.c", "fifo.c", str(inc / "a.h"), "angle.c"]), \
        proc.stderr
    assert "4 failed" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.returncode == 1
    for name, head in sources.items():
        assert (tmp_path / name).read_text() == head + MAIN


def test_a_forced_include_of_a_device_is_refused(tmp_path):
    (tmp_path / "prog.c").write_text(MAIN)
    proc = run_s2s(tmp_path, "omp", "prog.c", "--", "-include", "/dev/zero")
    assert proc.returncode == 1 and "[include-not-regular]" in proc.stderr, proc.stderr


def test_search_dirs_are_read_from_joined_and_separate_flags():
    found = _search_dirs(["-Ia", "-I", "b", "-iquote", "q", "-isystem", "s", "-idirafter/x",
                          "-include", "f.h", "-DX"])
    assert found == {"quote": ["q"], "project": ["a", "b"], "system": ["s", "/x"],
                     "file": ["f.h"]}
