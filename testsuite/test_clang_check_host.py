"""Issue 30: clang-16 checks only the host side of a C rewrite whose edits lie outside the
code compiled for the device (:mod:`s2s.analysis.omp.device_code`); an edit in a target
region's body, in a function a target region calls (directly or not), in C++ or under
``declare target`` keeps the check of both sides. What clang-16 is run with is recorded."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from s2s.analysis.omp.device_code import device_ranges, outside
from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.frontend.extract import load
from s2s.frontend.openmp import clang_check
from s2s.transform import registry
from s2s.transform.check import EditGroup

PROGRAM = b"""#include <stdio.h>
static double twice(double v) { return 2.0 * v; }
static double scaled(double v) { return twice(v) + 1.0; }
static void report(const double *p) { printf("%f\\n", p[0]); }
void step(double *p, int n) {
#pragma omp target teams distribute parallel for map(tofrom: p[0:n])
  for (int i = 0; i < n; i++) p[i] = scaled(p[i]);
}
int main(void) {
  double p[64] = {0};
  for (int s = 0; s < 3; s++) step(p, 64);
  report(p);
  return 0;
}
"""



def test_the_device_code_is_the_region_body_and_what_it_calls_transitively(tmp_path):
    path = tmp_path / "p.c"
    path.write_bytes(PROGRAM)
    ranges = device_ranges(load(str(path)).model)
    starts = {start for start, _end in ranges}
    assert PROGRAM.index(b"static double twice") in starts         # called by scaled
    assert PROGRAM.index(b"static double scaled") in starts        # called in the region
    assert PROGRAM.index(b"for (int i") in starts                  # the region's body
    for host in (b"static void report", b"int main", b"void step"):
        assert PROGRAM.index(host) not in starts
    at_main = Edit(str(path), PROGRAM.index(b"  report(p);"), 0, "// x\n")
    in_twice = Edit(str(path), PROGRAM.index(b"return 2.0"), 0, "/* x */ ")
    assert outside(ranges, [at_main]) and not outside(ranges, [at_main, in_twice])


@pytest.mark.parametrize("text", [
    PROGRAM.replace(b"static double twice", b"#pragma omp declare target\nstatic double twice")
    .replace(b"static double scaled", b"#pragma omp end declare target\nstatic double scaled"),
    PROGRAM.replace(b"#pragma omp target teams distribute parallel for map(tofrom: p[0:n])",
                    b"#define KERNEL _Pragma(\"omp target teams distribute parallel for\")\n"
                    b"KERNEL"),
], ids=["declare-target", "pragma-macro"])
def test_unknown_device_code_checks_both_sides(tmp_path, text):
    path = tmp_path / "p.c"
    path.write_bytes(text)
    assert device_ranges(load(str(path)).model) is None


def test_cxx_checks_both_sides(tmp_path):
    path = tmp_path / "p.cpp"
    path.write_bytes(PROGRAM)
    assert device_ranges(load(str(path)).model) is None


def _comment_at(word: bytes):
    def run(loaded):
        edit = Edit(loaded.path, loaded.source.index(word), 0, "/* s2s */ ")
        return PassOutput((edit,), (), (EditGroup("the comment", (edit,), None,
                                                  "omp-rewrite-invalid"),), check_compiles=True)
    return run


@pytest.mark.skipif(shutil.which("clang-16") is None, reason="clang-16 not on PATH")
@pytest.mark.parametrize(("word", "host_only"), [
    (b"report(p);", True), (b"return twice", False), (b"p[i] = scaled", False)],
    ids=["host-function", "called-from-a-region", "region-body"])
def test_the_check_runs_clang16_on_the_host_side_only_where_equivalent(
        tmp_path, monkeypatch, capsys, word, host_only):
    monkeypatch.setenv("S2S_NO_CACHE", "1")
    monkeypatch.setitem(registry.PASSES, "omp", _comment_at(word))
    clang_check._errors.cache_clear()
    seen = []
    real = subprocess.run

    def recorded(argv, *args, **kwargs):
        seen.append(argv)
        return real(argv, *args, **kwargs)
    monkeypatch.setattr(clang_check.subprocess, "run", recorded)
    path = tmp_path / "p.c"
    path.write_bytes(PROGRAM)
    assert main(["omp", "--in-place", str(path)]) == 0
    capsys.readouterr()
    assert b"/* s2s */ " + word in path.read_bytes()       # the check let it through
    checks = [argv for argv in seen if argv[-1] == "-"]
    assert checks
    offload = "-fopenmp-targets=x86_64-pc-linux-gnu"
    assert all((offload not in argv) == host_only for argv in checks)
    assert all("-fopenmp" in argv for argv in checks)
