"""TeaLeaf's kernels (issue 28): a stencil written in a macro of the including header
(``tealeaf_SMVP(u)``: ``kx[index + 1] * a[index + 1] ...``) inside loops that start at the
halo depth (``for (kk = halo; kk < x - halo; ++kk)``). The subscripts' literals are read as
clang's values (their tokens are the macro call's), and the loops need ``x >= 1`` to run,
which orders the stencil's offsets (omp.fallback._floors): the safety net maps the
construct instead of leaving it unmapped. Rewritten in memory, run on clang-16 host offload.
"""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_rewrite_and_host

# the if clause refuses the plan of the function (a condition that is no plain name: a plain
# flag would be guarded, omp.if_guards): the construct is mapped per construct
PROGRAM = """#include <stdio.h>
#include <stdlib.h>

#define STENCIL(a)                                                          \\
  ((1.0 + (kx[index + 1] + kx[index])) * a[index] -                         \\
   (kx[index + 1] * a[index + 1] + kx[index] * a[index - 1]) - a[index + x] - a[index - x])

static double smooth(int x, int y, int halo, const double *u, const double *kx, double *w,
                     int on_gpu)
{
    double norm = 0.0;
    #pragma omp target teams distribute parallel for collapse(2) reduction(+: norm) if(on_gpu != 0)
    for (int jj = halo; jj < y - halo; ++jj)
        for (int kk = halo; kk < x - halo; ++kk) {
            const int index = kk + jj * x;
            const double smvp = STENCIL(u);
            w[index] = smvp;
            norm += smvp * smvp;
        }
    return norm;
}

int main(void)
{
    int x = 24, y = 18, halo = 2;
    double *u = (double *)malloc(x * y * sizeof(double));
    double *kx = (double *)malloc(x * y * sizeof(double));
    double *w = (double *)malloc(x * y * sizeof(double));
    for (int k = 0; k < x * y; k++) { u[k] = k % 11; kx[k] = 0.1 * (k % 5); w[k] = -1.0; }
    double norm = smooth(x, y, halo, u, kx, w, 1);
    printf("%.4f %.4f %.4f %.4f\\n", norm, w[0], w[halo * x + halo], w[x * y - 1]);
    free(u); free(kx); free(w);
    return 0;
}
"""


def test_a_stencil_in_a_macro_inside_halo_loops_is_mapped(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, PROGRAM, name="prog.c")
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 1 and counts["left unmapped"] == 0, \
        [d.message for d in out.diagnostics]
    loaded = load_source(PROGRAM, name="prog.c")
    assert {r.subscripts[0].text for r in loaded.model.array_refs
            if r.array == "kx" and r.function == "smooth"} == \
        {"index + 1", "index"}
    # u from row halo - 1 to row y - halo, kx to one past the last interior element
    assert "map(to: kx[halo*x + halo:-2*halo*x + x*y - 2*halo + 1], " \
        "u[halo*x + halo - x:-2*halo*x + x*y - 2*halo + 2*x]) " \
        "map(tofrom: w[halo*x + halo:-2*halo*x + x*y - 2*halo])" in rewritten, rewritten
    host, device = run_rewrite_and_host(tmp_path, PROGRAM, rewritten)
    assert device.returncode == 0 and device.stdout == host.stdout and device.unmapped == ()
