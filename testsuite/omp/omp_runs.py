"""Build and run an original program and its rewrite on clang-16's host device (tests)."""

from __future__ import annotations

import pytest

from s2s.edits import EditSet
from s2s.transform.omp import run_omp
from s2s.verify import omp_harness


def rewrite_source(load_source, program: str, name: str = "prog.cpp"):
    """(the rewritten text, the pass output) of ``s2s omp`` on ``program`` parsed in memory."""
    loaded = load_source(program, name=name)
    out = run_omp(loaded)
    return EditSet(out.edits).apply(name, loaded.source).decode(), out


def run_both(tmp_path, original: str | bytes, rewritten: str | bytes, suffix: str = ".c"):
    """(original run, rewritten run); skips the test where the OpenMP toolchain is missing."""
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    runs = []
    for name, text in (("orig", original), ("new", rewritten)):
        source = tmp_path / f"{name}{suffix}"
        source.write_bytes(text.encode() if isinstance(text, str) else text)
        omp_harness.build(source, tmp_path / name)
        runs.append(omp_harness.run(tmp_path / name))
    return runs[0], runs[1]
