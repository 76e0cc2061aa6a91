"""Reads of exactly the elements an earlier kernel's loop nest wrote (issue 28, 3i).

A smoothing step writes the interior of a scratch grid, ``tmp[j * nx + i]`` over ``1 <= j <
ny - 1`` and ``1 <= i < nx - 1``, and the next kernel reads the same elements back: the
host's copy of ``tmp`` is never read on the device, so it needs no copy in (``map(alloc:)``)
although the interior is no contiguous range (omp.nest_cover). A read of a neighbour, or a
write under a condition, keeps the copy. Programs are rewritten in memory and run before and
after on clang-16 host offload.
"""

from __future__ import annotations

import re

from testsuite.omp.omp_runs import rewrite_source, run_both

SMOOTH = """#include <stdio.h>
#include <stdlib.h>

static void smooth(double *u, double *tmp, int nx, int ny)
{
    #pragma omp target teams distribute parallel for collapse(2) \\
        map(to: u[0:nx * ny]) map(tofrom: tmp[0:nx * ny])
    for (int j = 1; j < ny - 1; j++)
        for (int i = 1; i < nx - 1; i++)
            tmp[j * nx + i] = 0.25 * (u[(j - 1) * nx + i] + u[(j + 1) * nx + i] +
                                      u[j * nx + i - 1] + u[j * nx + i + 1]);

    #pragma omp target teams distribute parallel for collapse(2) \\
        map(to: tmp[0:nx * ny]) map(tofrom: u[0:nx * ny])
    for (int y = 1; y < ny - 1; y++)
        for (int x = 1; x < nx - 1; x++)
            u[y * nx + x] = 0.5 * (u[y * nx + x] + tmp[y * nx + x]);
}

int main(void)
{
    int nx = 48, ny = 40;
    double *u = (double *)malloc(nx * ny * sizeof(double));
    double *tmp = (double *)calloc(nx * ny, sizeof(double));
    for (int k = 0; k < nx * ny; k++) u[k] = (k * 37) % 101;
    for (int step = 0; step < 12; step++)
        smooth(u, tmp, nx, ny);
    double s = 0.0;
    for (int k = 0; k < nx * ny; k++) s += u[k] * (k % 13);
    printf("%.6f\\n", s);
    free(u);
    free(tmp);
    return 0;
}
"""


def _entry_map(rewritten: str, name: str) -> str:
    """The map type the data region (or its enter data) gives ``name``."""
    region = next(line for line in rewritten.splitlines()
                  if "target data" in line or "target enter data" in line)
    found = re.search(rf"map\((\w+): [^)]*\b{name}\[", region)
    assert found is not None, region
    return found.group(1)


def test_a_scratch_grid_read_where_it_was_written_is_not_copied_in(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, SMOOTH, name="prog.c")
    assert dict(out.counts)["target regions mapped"] == 2, [d.message for d in out.diagnostics]
    assert _entry_map(rewritten, "tmp") == "alloc", rewritten
    original, new = run_both(tmp_path, SMOOTH, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    # u goes in once and its interior comes back once; tmp never crosses
    assert new.copies.total_bytes == (48 * 40 + 48 * 40 - 2 * 48 - 2) * 8, new.copies


def test_a_read_of_a_neighbour_keeps_the_copy(load_source, tmp_path):
    program = SMOOTH.replace("tmp[y * nx + x]);", "tmp[y * nx + x + 1]);")
    rewritten, _out = rewrite_source(load_source, program, name="prog.c")
    assert _entry_map(rewritten, "tmp") == "to", rewritten
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()


def test_a_write_under_a_condition_keeps_the_copy(load_source):
    program = SMOOTH.replace("            tmp[j * nx + i] = 0.25",
                             "            if ((i + j) % 3) tmp[j * nx + i] = 0.25")
    rewritten, _out = rewrite_source(load_source, program, name="prog.c")
    assert _entry_map(rewritten, "tmp") == "to", rewritten


def test_another_nest_keeps_the_copy(load_source):
    program = SMOOTH.replace("for (int y = 1; y < ny - 1; y++)", "for (int y = 0; y < ny - 1; y++)")
    rewritten, _out = rewrite_source(load_source, program, name="prog.c")
    assert _entry_map(rewritten, "tmp") == "to", rewritten


#: the sweep's scratch grid g2 comes back to the host as one range after the calls
READ_BACK = """#include <stdio.h>
#include <stdlib.h>
#define IDX2(r, c, ld) ((r) * (ld) + (c))
void jac(int nx, int ny, double *u, double *unew, int iters)
{
    for (int it = 0; it < iters; ++it) {
#pragma omp target teams distribute parallel for collapse(2)
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 1; x < nx - 1; ++x)
                unew[IDX2(y, x, nx)] = 0.25 * (u[IDX2(y, x - 1, nx)] + u[IDX2(y, x + 1, nx)]
                                               + u[(y - 1) * nx + x] + u[(y + 1) * nx + x]);
#pragma omp target teams distribute parallel for collapse(2)
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 1; x < nx - 1; ++x)
                u[y * nx + x] = unew[y * nx + x];
    }
}
int main(void) {
    double *g = calloc(64 * 64, sizeof(double)), *g2 = calloc(64 * 64, sizeof(double));
    for (int i = 0; i < 64 * 64; i++) { g[i] = i % 7; g2[i] = 100 + i; }
    jac(64, 64, g, g2, 5);
    jac(64, 64, g, g2, 5);
    double s = 0; for (int i = 0; i < 64 * 64; i++) s += g[i] + g2[i];
    printf("%f\\n", s);
    return 0;
}
"""


def test_a_scratch_grid_the_host_reads_back_keeps_what_it_copies_back(load_source, tmp_path):
    # g2's interior comes back as one range, which holds the boundary columns no kernel
    # writes, so those must be on the device: the plan without the nest patterns stands
    # (the range the device reads goes in, as before omp.nest_cover; not all of g2)
    rewritten, _out = rewrite_source(load_source, READ_BACK, name="prog.c")
    updates = [line for line in rewritten.splitlines() if "target update to(" in line]
    assert any("g2[65:3966]" in line for line in updates), rewritten
    original, new = run_both(tmp_path, READ_BACK, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
