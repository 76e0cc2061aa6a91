"""Pointers to array types (issue 28, 3g): ``typedef double row_t[NX]; row_t *phi`` has rows
as elements, so a section of ``phi`` counts rows. An allocation written as a flat byte count
(``malloc(ny * NX * sizeof(double))``) holds ``ny`` of them; the plan mapped ``phi[0:ny *
NX]`` (NX times the storage: the run read past the allocation and crashed)."""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both, run_rewrite_and_host

ROWS = """#include <stdio.h>
#include <stdlib.h>
#define NX 100
typedef double row_t[NX];

int main(void)
{
    int ny = 200;
    row_t *phi = malloc(ny * NX * sizeof(double));
    double (*out)[NX] = calloc(ny * NX, sizeof(double));
    row_t *keep = malloc(ny * sizeof(row_t));
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < NX; i++)
            phi[j][i] = keep[j][i] = (i + j) % 5;
    for (int it = 0; it < 5; it++) {
        #pragma omp target teams distribute parallel for collapse(2)
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < NX - 1; i++)
                out[j][i] = 0.25 * (phi[j - 1][i] + phi[j + 1][i] + keep[j][i - 1] + phi[j][i + 1]);
        #pragma omp target teams distribute parallel for collapse(2)
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < NX - 1; i++)
                phi[j][i] = out[j][i];
    }
    double s = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < NX; i++)
            s += phi[j][i];
    printf("%f\\n", s);
    free(phi); free(out); free(keep);
    return 0;
}
"""


def test_sections_of_row_pointers_count_rows(load_source, tmp_path):
    rewritten, _ = rewrite_source(load_source, ROWS, name="prog.c")
    region = next(line for line in rewritten.splitlines() if "omp target data" in line)
    # byte counts divided by the row's size; sizeof(row_t) allocations count rows already
    assert "phi[0:(ny * NX * sizeof(double)) / sizeof(*phi)]" in region
    assert "out[0:((ny * NX) * sizeof(double)) / sizeof(*out)]" in region
    assert "keep[0:ny]" in region
    original, new = run_both(tmp_path, ROWS, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    # phi and keep in, phi back: 200 rows of 800 bytes each (the crash asked for 100 times
    # that); out only allocated: the second kernel reads exactly the interior the first one
    # wrote (omp.nest_cover), and the host never reads it
    assert (new.copies.h2d_bytes, new.copies.d2h_bytes) == (2 * 200 * 800, 200 * 800)


# PRK's 2-D stencils: ``in[i][j]`` through a pointer to a variable-length row; the if
# clause refuses the function's plan, so the safety net maps rows (the first subscript)
ROW_KERNEL = """#include <stdio.h>
#include <stdlib.h>

static void star(int n, const double (*restrict in)[n], double (*restrict out)[n], int on_gpu)
{
    #pragma omp target teams distribute parallel for collapse(2) if(on_gpu != 0)
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            out[i][j] += 0.5 * (in[i + 1][j] - in[i - 1][j]) + 0.25 * (in[i][j + 1] - in[i][j - 1]);
}

int main(void)
{
    int n = 40;
    double (*in)[n] = malloc(sizeof(double[n][n]));
    double (*out)[n] = malloc(sizeof(double[n][n]));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) { in[i][j] = (i * 3 + j) % 7; out[i][j] = 1.0; }
    star(n, (const double (*)[n])in, out, 1);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) sum += out[i][j] * (i + 2 * j);
    printf("%.2f %.2f %.2f\\n", sum, out[0][5], out[n - 2][n - 2]);
    free(in); free(out);
    return 0;
}
"""


def test_the_safety_net_maps_rows_of_a_row_pointer(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, ROW_KERNEL, name="rows.c")
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 1 and counts["left unmapped"] == 0, \
        [d.message for d in out.diagnostics]
    assert "map(to: in[0:n]) map(tofrom: out[1:n - 2])" in rewritten, rewritten
    host, device = run_rewrite_and_host(tmp_path, ROW_KERNEL, rewritten)
    assert device.returncode == 0 and device.stdout == host.stdout and device.unmapped == ()
    # every row of in, the interior rows of out in and back: rows of 40 doubles
    assert device.copies.total_bytes == (40 + 2 * 38) * 40 * 8, device.copies
