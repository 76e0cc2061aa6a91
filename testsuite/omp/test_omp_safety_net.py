"""The safety net of ``s2s omp`` (issue 28, items 1 and 2): where the program-wide plan is
refused, each target construct still gets the range its kernel touches as map clauses of
its own (to / from / tofrom by its reads and writes), and the summary counts the constructs
mapped optimally, per construct and left. Each program has no mapping at all (the input
the issue tried: data directives removed); it is rewritten in memory, run before and after
on clang-16 host offload, and must print the same with no unmapped pointer left.
"""

from __future__ import annotations

from s2s.analysis.omp.fallback import construct_maps
from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source, run_both

HEAD = "#include <stdio.h>\n#include <stdlib.h>\n"

# an if clause refuses the plan (the region may run on the host; a condition that is no plain
# name, which omp.if_guards would guard); a 5-point stencil over
# the interior, the result written whole, a reduction the host reads
IF_CLAUSE = HEAD + """
static double step(const double *t, double *r, double *out, int nx, int ny, int on_gpu)
{
    double sum = 0.0;
    #pragma omp target teams distribute parallel for collapse(2) if(on_gpu != 0)
    for (int j = 1; j < ny - 1; j++)
        for (int i = 1; i < nx - 1; i++)
            r[j * nx + i] = 0.2 * (t[j * nx + i] + t[(j - 1) * nx + i] + t[(j + 1) * nx + i]
                                   + t[j * nx + i - 1] + t[j * nx + i + 1]);
    #pragma omp target teams distribute parallel for reduction(+: sum) if(on_gpu != 0)
    for (int k = 0; k < nx * ny; k++) {
        out[k] = r[k] * 0.5;
        sum += out[k];
    }
    return sum;
}

int main(void)
{
    int nx = 40, ny = 30;
    double *t = malloc(nx * ny * sizeof(double)), *r = malloc(nx * ny * sizeof(double));
    double *out = malloc(nx * ny * sizeof(double));
    for (int k = 0; k < nx * ny; k++) { t[k] = k % 11; r[k] = -1.0; }
    double s = 0.0;
    for (int it = 0; it < 3; it++)
        s += step(t, r, out, nx, ny, 1);
    printf("%.6f %.6f %.6f\\n", s, r[nx + 1], out[nx * ny - 1]);
    free(t); free(r); free(out);
    return 0;
}
"""

# pointers declared next to the kernels and swapped each step, inside a function the plan
# refuses (goto)
SWAP_GOTO = HEAD + """
static void relax(double *result, double *temp, int n, int steps)
{
    int tries = 0;
again:;
    double *r = result, *t = temp;
    for (int s = 0; s < steps; s++) {
        #pragma omp target teams distribute parallel for
        for (int i = 1; i < n - 1; i++)
            r[i] = 0.25 * t[i - 1] + 0.5 * t[i] + 0.25 * t[i + 1];
        double *x = r; r = t; t = x;
    }
    if (++tries < 2) goto again;
}

int main(void)
{
    int n = 500;
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { a[i] = i % 7; b[i] = a[i]; }
    relax(a, b, n, 7);
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * (i % 3) + b[i];
    printf("%.9f\\n", s);
    free(a); free(b);
    return 0;
}
"""


def _check(load_source, tmp_path, program: str, per_construct: int, expected: list[str]):
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    counts = dict(out.counts)
    assert counts["mapped per construct"] == per_construct, counts
    assert counts["left unmapped"] == 0, [d.message for d in out.diagnostics]
    assert sum(d.id == "omp-per-construct" for d in out.diagnostics) == per_construct
    for clause in expected:
        assert clause in rewritten, rewritten
    original, new = run_both(tmp_path, program, rewritten)
    assert original.unmapped and new.unmapped == ()
    assert new.returncode == 0 and new.stdout == original.stdout
    assert omp_harness.unmapped_constructs(new) == counts["left unmapped"]


def test_a_refused_plan_maps_each_construct_by_what_it_touches(load_source, tmp_path):
    # t: the stencil's hull (the loops run only when nx >= 3); r: interior written, all
    # read by the second kernel; out: written, then read (tofrom: reads are not analysed
    # for being covered by the same iteration's write)
    _check(load_source, tmp_path, IF_CLAUSE, 2, [
        "if(on_gpu != 0) map(to: t[1:nx*ny - 2]) map(tofrom: r[nx + 1:nx*ny - 2*nx - 2])",
        "if(on_gpu != 0) map(to: r[0:nx*ny]) map(tofrom: out[0:nx*ny])"])


def test_pointers_swapped_next_to_the_kernels_are_mapped_per_construct(load_source,
                                                                       tmp_path):
    _check(load_source, tmp_path, SWAP_GOTO, 1, ["map(to: t[0:n]) map(from: r[1:n - 2])"])


def test_an_unbounded_range_is_left_with_the_reason(load_source):
    """A subscript through data (``a[idx[i]]``) has no range: the construct keeps that
    pointer unmapped and says why; its bounded pointer is still mapped."""
    loaded = load_source(HEAD + """
void gather(double *a, const int *idx, double *out, int n)
{
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
        out[i] = a[idx[i]];
}
""", name="prog.c")
    model = loaded.model
    index = next(k for k, d in enumerate(model.directives) if d.is_target_region)
    found, left = construct_maps(model, loaded.source, index, ("a", "idx", "out"))
    assert found.clauses == ("map(to: idx[0:n])", "map(from: out[0:n])")
    assert left.pointers == ("a",) and "idx[i]" in left.reason
