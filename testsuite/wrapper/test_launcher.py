"""``s2s COMPILER ARGS``: the wrapper as a compiler launcher for gcc/clang."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import registry
from s2s.wrapper.cc_args import CC
from s2s.wrapper.compilers import is_compiler_command, table_for
from s2s.wrapper.nvcc_args import NVCC

SOURCE = """\
#include <stdio.h>
#include "answer.h"
// the banner pass inserts its lines above this one
int main(void) {
  int unused_here;
  printf("%d\\n", ANSWER);
  return 0;
}
"""


def banner(loaded):
    at = loaded.source.index(b"// the banner pass")
    return PassOutput((Edit(loaded.path, at, 0, "/* inserted */\n/* by s2s */\n"),))


def make_rules(text: str) -> list[tuple[str, list[str]]]:
    """(target, prerequisites) of every rule, continuation lines joined."""
    joined = text.replace("\\\n", " ")
    rules = []
    for line in joined.splitlines():
        if ":" in line:
            target, _, prerequisites = line.partition(":")
            rules.append((target.strip(), prerequisites.split()))
    return rules


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "answer.h").write_text("#define ANSWER 42\n")
    (tmp_path / "src" / "main.c").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("S2S_WRAPPED", raising=False)
    monkeypatch.setenv("S2S_PASSES", "fuse")
    monkeypatch.setitem(registry.PASSES, "fuse", banner)
    return tmp_path


def test_compiler_detection(tmp_path):
    assert table_for("/usr/local/cuda/bin/nvcc") is NVCC and table_for("nvcc-13.0") is NVCC
    for name in ("gcc", "g++-12", "clang-16", "clang++", "x86_64-linux-gnu-gcc-12", "cc"):
        assert table_for(name) is CC, name
    assert table_for("s2s") is None and table_for("inspect") is None
    env = {"PATH": "/usr/bin:/bin"}
    assert not is_compiler_command("--s2s-verbose", env)
    assert not is_compiler_command("no-such-compiler-anywhere", env)
    assert not is_compiler_command(str(tmp_path / "missing"), env)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not found")
def test_gcc_launcher_matches_plain_gcc(project, capfd, monkeypatch):
    monkeypatch.setenv("LC_ALL", "C")  # plain quotes in gcc's messages
    flags = ["-Wall", "-MD", "-MP", "-MT", "main.o", "-c", "src/main.c"]
    assert subprocess.run(["gcc", *flags, "-MF", "plain.d", "-o", "plain.o"]).returncode == 0
    capfd.readouterr()
    gcc = shutil.which("gcc")
    code = main(["--s2s-verbose", gcc, *flags, "-MF", "main.d", "-o", "main.o"])
    _, err = capfd.readouterr()
    assert code == 0, err
    assert "1 of 1 sources changed" in err
    assert "src/main.c:5:7: warning: unused variable 'unused_here'" in err  # the user's line
    # gcc wraps its rules by line length, and the copy's path was longer: compare the rules
    assert make_rules(Path("main.d").read_text()) == make_rules(Path("plain.d").read_text())
    nm = [subprocess.run(["nm", o], capture_output=True, text=True).stdout
          for o in ("main.o", "plain.o")]
    assert nm[0] == nm[1] and "main" in nm[0]


def test_unknown_compiler_with_passes_falls_back(project, capfd, tmp_path):
    tool = tmp_path / "mycc"
    tool.write_text("#!/bin/sh\necho compiled \"$@\"\n")
    tool.chmod(0o755)
    code = main([str(tool), "-c", "src/main.c"])
    out, err = capfd.readouterr()
    assert code == 0 and out == "compiled -c src/main.c\n"
    assert "'mycc' is not a compiler s2s knows the options of" in err


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not found")
def test_s2s_jobs_rewrites_the_sources_of_one_command_alike(project, capfd, monkeypatch):
    """``S2S_JOBS=2``: the sources of one command rewritten on two workers (issue 30, item 3),
    the objects and what the wrapper says the same as with one."""
    Path("src/other.c").write_text(SOURCE.replace("int main(void)", "int other(void)"))
    gcc = shutil.which("gcc")
    seen = []
    for jobs in ("1", "2"):
        monkeypatch.setenv("S2S_JOBS", jobs)
        code = main(["--s2s-verbose", gcc, "-c", "src/main.c", "src/other.c"])
        _, err = capfd.readouterr()
        assert code == 0, err
        assert "2 of 2 sources changed" in err
        seen.append([subprocess.run(["nm", o], capture_output=True, text=True).stdout
                     for o in ("main.o", "other.o")])
    assert seen[0] == seen[1] and "other" in seen[1][1]
