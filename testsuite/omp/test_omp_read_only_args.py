"""A struct's address handed to functions that only read its members (issue 28): ``step(&mesh,
u, v)`` in the time loop does not change ``mesh.n``, so the plan of ``main`` maps the arrays
counted by it once around the loop (before, the count was refused: an address taken may let
the callee write anything, and each kernel was mapped on its own). A callee that uses the
pointer otherwise (passes it on) keeps the refusal."""

from __future__ import annotations

from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source, run_both

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { int n; double h; } grid_t;

%HELPER%
void step(grid_t *g, const double *u, double *v)
{
    int n = g->n;
    double h = g->h;
    %USE%
    #pragma omp target teams distribute parallel for
    for (int i = 1; i < n - 1; i++)
        v[i] = u[i] + h * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

int main(void)
{
    grid_t grid;
    grid.n = 400;
    grid.h = 0.1;
    double *u = malloc(grid.n * sizeof(double)), *v = malloc(grid.n * sizeof(double));
    for (int i = 0; i < grid.n; i++) u[i] = v[i] = (i % 9) * 0.5;
    for (int it = 0; it < 20; it++) {
        step(&grid, u, v);
        step(&grid, v, u);
    }
    double s = 0.0;
    for (int i = 0; i < grid.n; i++) s += u[i];
    printf("%.9f\n", s);
    free(u); free(v);
    return 0;
}
"""
READS = PROGRAM.replace("%HELPER%", "").replace("%USE%", "")
PASSES_ON = PROGRAM.replace("%HELPER%", "void touch(grid_t *g) { g[0] = g[0]; }\n") \
    .replace("%USE%", "touch(g);")


def test_a_struct_address_to_a_member_reader_keeps_the_plan(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, READS, name="prog.c")
    counts = dict(out.counts)
    assert counts["target regions mapped"] == 1 and counts["left unmapped"] == 0, counts
    assert "u[0:grid.n]" in rewritten and "v[0:grid.n]" in rewritten, rewritten
    original, new = run_both(tmp_path, READS, rewritten)
    assert original.unmapped and new.unmapped == ()
    assert new.returncode == 0 and new.stdout == original.stdout
    assert omp_harness.unmapped_constructs(new) == 0
    # the arrays cross once, not at each of the 40 calls
    assert new.copies.total_count <= 4


def test_a_callee_passing_the_pointer_on_keeps_the_refusal(load_source):
    rewritten, out = rewrite_source(load_source, PASSES_ON, name="prog.c")
    assert "u[0:grid.n]" not in rewritten
    assert any("grid.n" in d.message for d in out.diagnostics), \
        [d.message for d in out.diagnostics]
