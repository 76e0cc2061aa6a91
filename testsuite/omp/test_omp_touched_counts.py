"""A count read off the kernels' ranges only where the kernels surely run (issue 28, omp28v).

omp.touched_counts gives a pointer with no known count (``double *v = g.val;`` before ``g``
is made again) the hull its kernels touch, mapped once around them. Inside a loop that may
run zero times that is no count: with ``steps == 0`` the program keeps one element, the
kernel never runs, and a data region would still copy ``v[0:n]`` in, past the storage (the
rewrite used to copy 24,000,000 bytes out of an 8-byte block and crash). The count now needs
a proof that the loop runs (omp.cover.surely_entered: here the early exit ``if (steps < 1)``);
without one the construct keeps its own map, which copies nothing when it does not run.
Each program runs on clang-16 host offload, original against rewrite.
"""

from __future__ import annotations

import pytest

from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source, run_rewrite_and_host

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>

typedef struct { int n; double *val; } grid_t;

static grid_t make(int n)
{
    grid_t g;
    g.n = n;
    g.val = (double *)malloc(sizeof(double) * (g.n > 0 ? g.n : 1));
    for (int i = 0; i < g.n; i++) g.val[i] = (i % 13) * 0.5;
    return g;
}

int main(int argc, char **argv)
{
    int n = 4000, steps = 4;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) steps = atoi(argv[2]);
    /* the samples are kept only when some step reads them */
    grid_t g = make(steps > 0 ? n : 1);
    double *v = g.val;
    g = make(2);
    double total = 0.0;
    for (int step = 0; step < steps; step++) {
        double s = 0.0;
        #pragma omp target teams distribute parallel for reduction(+: s)
        for (int i = 0; i < n; i++)
            s += v[i] * 0.5;
        total += s;
    }
    printf("%.3f %d\n", total, g.n);
    free(v); free(g.val);
    return 0;
}
"""

#: the same with an early exit: past it the time loop surely runs
GUARDED = PROGRAM.replace(
    "    double total = 0.0;\n",
    '    if (steps < 1 || n < 1) { fprintf(stderr, "nothing to do\\n"); return 1; }\n'
    "    double total = 0.0;\n")

REGION = "#pragma omp target data map(to: v[0:n])"


def _runs(tmp_path, original: str, rewritten: str, args):
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    out = []
    for name, text in (("orig", original), ("new", rewritten)):
        (tmp_path / f"{name}.c").write_text(text)
        omp_harness.build(tmp_path / f"{name}.c", tmp_path / name)
        out.append([omp_harness.run(tmp_path / name, a) for a in args])
    return out


def test_a_loop_that_may_not_run_gives_no_count(load_source, tmp_path):
    assert GUARDED != PROGRAM
    rewritten, out = rewrite_source(load_source, PROGRAM, name="prog.c")
    assert REGION not in rewritten, rewritten
    assert "reduction(+: s) map(to: v[0:n])" in rewritten, rewritten
    assert dict(out.counts)["left unmapped"] == 0
    assert rewrite_source(load_source, rewritten, name="prog.c")[0] == rewritten
    original, new = _runs(tmp_path, PROGRAM, rewritten, [(), ("3000000", "0")])
    for before, after in zip(original, new, strict=True):
        assert before.returncode == 0 and after.returncode == 0, after.stderr[-400:]
        assert after.stdout == before.stdout and after.unmapped == ()
    assert original[0].unmapped  # (the stripped kernel's pointer is not mapped at all)
    assert new[0].copies.total_bytes == 4 * (4000 * 8 + 16)  # v per step, and s
    assert new[1].copies.total_bytes == 0  # steps == 0: nothing runs, nothing is copied


def test_an_early_exit_shows_the_loop_runs(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, GUARDED, name="prog.c")
    assert REGION in rewritten, rewritten
    assert dict(out.counts)["target regions mapped"] == 1
    original, new = run_rewrite_and_host(tmp_path, GUARDED, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    assert new.copies.total_bytes == 4000 * 8 + 4 * 16
