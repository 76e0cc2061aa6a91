"""Subscripts spelled through integer locals of the kernel (issue 28, item 1; AMD's Jacobi and
TeaLeaf name the index first: ``const int id = (i + 1) + (j + 1) * nx; out[id] = ...``). The
safety net reads them as their definitions (omp.index_locals) and bounds the range over the
loops; a local assigned again in the kernel stays unbounded. Rewritten in memory and run
before and after on clang-16 host offload.
"""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both

# an if clause refuses the plan of the function: each construct is mapped per construct
PROGRAM = """#include <stdio.h>
#include <stdlib.h>

static double sweep(const double *in, double *out, int nx, int ny, int on_gpu)
{
    int inner_x = nx - 2, inner_y = ny - 2;
    double sum = 0.0;
    #pragma omp target teams distribute parallel for collapse(2) if(on_gpu != 0)
    for (int j = 0; j < inner_y; j++)
        for (int i = 0; i < inner_x; i++) {
            const int id = (i + 1) + (j + 1) * nx;
            const int id_r = id + 1;
            out[id] = 0.5 * (in[id] + in[id_r]);
        }
    #pragma omp target teams distribute parallel for reduction(+: sum) if(on_gpu != 0)
    for (int k = 0; k < inner_x; k++) {
        int at = nx + 1 + k;
        sum += out[at];
    }
    return sum;
}

int main(void)
{
    int nx = 30, ny = 20;
    double *in = (double *)malloc(nx * ny * sizeof(double));
    double *out = (double *)malloc(nx * ny * sizeof(double));
    for (int k = 0; k < nx * ny; k++) { in[k] = k % 7; out[k] = -1.0; }
    double s = sweep(in, out, nx, ny, 1);
    printf("%.3f %.3f %.3f\\n", s, out[0], out[2 * nx + 3]);
    free(in); free(out);
    return 0;
}
"""


def test_index_locals_are_read_as_their_definitions(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, PROGRAM, name="prog.c")
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 2 and counts["left unmapped"] == 0, \
        [d.message for d in out.diagnostics]
    assert "map(to: in[nx + 1:" in rewritten and "map(tofrom: out[nx + 1:" in rewritten, \
        rewritten
    original, new = run_both(tmp_path, PROGRAM, rewritten)
    assert original.unmapped
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()


def test_an_index_local_assigned_again_is_not_bounded(load_source):
    program = PROGRAM.replace("        int at = nx + 1 + k;\n",
                              "        int at = nx + 1 + k;\n        if (k > 3) at = 0;\n")
    _rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["left unmapped"] == 1, [d.message for d in out.diagnostics]
    assert any("'at'" in d.message for d in out.diagnostics)
