"""``s2s verify``: original and rewritten programs built, run and compared.

The rewritten programs come from the real omp pass (the build sample's heat stencil) and from
passes the tests register: one that changes a constant (outputs differ), one that changes a
printed digit by a relative 1e-7 (within a tolerance), one that drops a map clause (a pointer
without device mapping: right on the host device, wrong on a GPU).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import registry
from s2s.transform.check import EditGroup
from s2s.verify import omp_harness

REPO = Path(__file__).resolve().parents[2]
HEAT = REPO / "samples" / "build" / "make_project" / "src" / "heat.c"

POINTERS = """\
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  double *a = malloc(n * sizeof(double));
  double *b = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) { a[i] = i; b[i] = 0.0; }
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = a[i] + 1.0;
  printf("n=%d b[n-1]=%.9f\\n", n, b[n - 1] * 1.0);
  free(a);
  free(b);
  return 0;
}
"""


def replacing(old: bytes, new: str):
    def run_pass(loaded):
        at = loaded.source.find(old)
        return PassOutput(() if at < 0 else (Edit(loaded.path, at, len(old), new),))
    return run_pass


@pytest.fixture(autouse=True)
def need_toolchain():
    problem = omp_harness.toolchain_problem()
    if problem:
        pytest.skip(problem)


@pytest.fixture
def pointers(tmp_path, monkeypatch):
    path = tmp_path / "pointers.c"
    path.write_text(POINTERS)
    monkeypatch.setitem(registry.PASSES, "wrong", replacing(b"a[i] + 1.0", "a[i] + 2.0"))
    monkeypatch.setitem(registry.PASSES, "close", replacing(b"* 1.0)", "* 1.0000001)"))
    monkeypatch.setitem(registry.PASSES, "unmap", replacing(b" map(from: b[0:n])", ""))
    return path


def verify(capsys, *args):
    code = main(["verify", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_omp_rewrite_of_the_heat_sample(capsys):
    code, out, err = verify(capsys, "--format", "json", HEAT)
    assert code == 0, err
    [verdict] = json.loads(out)["programs"]
    assert verdict["ok"] and verdict["kind"] == "openmp" and verdict["changed"] == [str(HEAT)]
    before, after = verdict["original"]["copies"], verdict["rewritten"]["copies"]
    assert after["h2d_bytes"] + after["d2h_bytes"] < (before["h2d_bytes"] + before["d2h_bytes"]) / 10
    assert verdict["differences"] == [] and verdict["rewritten"]["unmapped"] == []
    assert "1 program(s) verified: 1 same behaviour, 0 failed" in err


def test_different_output_fails(capsys, pointers):
    code, out, err = verify(capsys, "--passes", "wrong", pointers)
    assert code == 1
    assert "outputs differ in 1 place(s); first: line 1: expected 'n=64 b[n-1]=64.000000000', " \
           "got 'n=64 b[n-1]=65.000000000' [verify-output]" in err
    assert "verdict: FAILED" in out and "rewritten files: " + str(pointers) in out
    # Passes are chained: the second edits the first one's output.
    code, _, err = verify(capsys, "--passes", "unmap,wrong", pointers)
    assert code == 1 and "[verify-output]" in err and "[verify-unmapped]" in err


def test_tolerance_and_program_arguments(capsys, pointers):
    code, _, err = verify(capsys, "--passes", "close", "--args", "1000", pointers)
    assert code == 1 and "1000.000000000" in err  # the argument reached both programs
    code, out, err = verify(capsys, "--passes", "close", "--args", "1000", "--tolerance", "1e-6",
                            pointers)
    assert code == 0, err
    assert "equal within relative tolerance 1e-06; verdict: OK" in out


def test_unmapped_pointer_in_the_rewrite_fails(capsys, pointers):
    code, out, err = verify(capsys, "--passes", "unmap", "--format", "json", pointers)
    assert code == 1
    [verdict] = json.loads(out)["programs"]
    assert verdict["differences"] == []  # same output on the host device ...
    assert verdict["rewritten"]["unmapped"] and not verdict["original"]["unmapped"]
    assert "with no device mapping: right on the host device, wrong on a GPU" in err


def test_each_file_is_its_own_program(capsys, pointers):
    code, out, err = verify(capsys, "--each", "--passes", "wrong", "--format", "json", HEAT,
                            pointers)
    assert code == 1
    verdicts = json.loads(out)["programs"]
    assert [(v["sources"], v["ok"], v["changed"]) for v in verdicts] == [
        ([str(HEAT)], True, []), ([str(pointers)], False, [str(pointers)])]


def test_unknown_pass_is_a_usage_error(capsys, pointers):
    code, _, err = verify(capsys, "--passes", "nonsense", pointers)
    assert code == 2 and "pass 'nonsense' is not available" in err


def test_distinct_diagnostics_are_said_once_with_a_count():
    from s2s.diagnostics import Diagnostic
    from s2s.verify.differential import distinct

    macro = Diagnostic.warning("launch inside macro 'RUN' cannot be rewritten", "launch-in-macro")
    other = Diagnostic.error("outputs differ", "verify-output")
    said = distinct([macro, other, macro, macro])
    assert [d.message for d in said] == [
        "launch inside macro 'RUN' cannot be rewritten (3 times)", "outputs differ"]
    assert [d.id for d in said] == ["launch-in-macro", "verify-output"]


def _broken_rewrite(loaded):
    """A rewrite of one group that does not compile (what a missing runtime header did to
    every mgpu rewrite of an installed s2s): the driver drops the group."""
    at = loaded.source.find(b"  free(a);")
    edit = Edit(loaded.path, at, 0, "  int broken = ;\n")
    return PassOutput((edit,), (), (EditGroup("the broken change", (edit,), None,
                                              "broken-rewrite-invalid"),), check_compiles=True)


def test_a_rewrite_dropped_for_an_error_fails_the_verdict(capsys, pointers, monkeypatch):
    """Issue 31: the pass asked for produced nothing because of an error; the unchanged program
    behaves the same, but the verdict is a failure, not OK."""
    monkeypatch.setitem(registry.PASSES, "broken", _broken_rewrite)
    code, out, err = verify(capsys, "--passes", "broken", "--format", "json", pointers)
    assert code == 1
    [verdict] = json.loads(out)["programs"]
    assert not verdict["ok"] and verdict["changed"] == [] and verdict["differences"] == []
    ids = [d["id"] for d in verdict["diagnostics"]]
    assert "broken-rewrite-invalid" in ids and "verify-rewrite-incomplete" in ids
    assert "1 program(s) verified: 0 same behaviour, 1 failed" in err
