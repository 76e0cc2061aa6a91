"""What comes back at a data region's exit (issue 28: the 8-byte gaps of
csr_class_accessors and grid_class_accessors).

The host reads ``x[0:n]`` and ``x[n/2]`` after kernels that wrote ``x[0:n]``. ``x[n/2:1]``
lies inside ``x[0:n]`` only when ``n >= 1``, which nothing in the program says; but the device
wrote only ``x[0:n]`` (the exit state's dirty set), so any stale element of ``x[n/2]`` is one
``x[0:n]`` brings back already: one copy, not two, for every ``n``.
"""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_rewrite_and_host

PADDED = r"""#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int pad = 2;
    double *x = malloc((n + pad) * sizeof(double));
    double *y = malloc((n + pad) * sizeof(double));
    for (int i = 0; i < n + pad; i++) { x[i] = 0.0; y[i] = 1.0 + i % 3; }
    for (int step = 0; step < 20; step++) {
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            x[i] = 0.5 * x[i] + y[i];
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    printf("sum %.6f middle %.6f\n", sum, x[n / 2]);
    free(x); free(y);
    return 0;
}
"""


def test_an_element_inside_what_the_kernels_wrote_comes_back_with_it(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, PADDED, name="prog.c")
    updates = [line.strip() for line in rewritten.splitlines() if "target update" in line]
    assert updates == ["#pragma omp target update from(x[0:n])"], updates
    host, device = run_rewrite_and_host(tmp_path, PADDED, rewritten)
    assert device.returncode == 0 and device.stdout == host.stdout
    assert device.unmapped == ()
    # in: x and y (1002 doubles each); back: x[0:1000] once
    assert device.copies.total_bytes == 2 * 1002 * 8 + 1000 * 8


def test_an_element_no_other_part_covers_still_comes_back(load_source):
    # the kernels write x[1:n-1]; the host reads x[0] (never written: no copy) and x[n/2]
    # (no other copy-back holds what the kernels wrote: it must come back on its own)
    program = PADDED.replace("for (int i = 0; i < n; i++)\n            x[i]",
                             "for (int i = 1; i < n; i++)\n            x[i]") \
        .replace("for (int i = 0; i < n; i++)\n        sum += x[i];", "sum += x[0];")
    rewritten, _ = rewrite_source(load_source, program, name="prog.c")
    updates = [line.strip() for line in rewritten.splitlines() if "target update" in line]
    assert updates == ["#pragma omp target update from(x[(n / 2):1])"], updates


def test_a_kernel_inside_the_region_gets_no_clause_that_moves_nothing(load_source):
    # x and y are main's own pointers, mapped by the region under their own names: the
    # kernel's implicit zero-length sections find them present (no clause, as an expert
    # writes it), and a second run reads the region's maps as the kernel's
    rewritten, _ = rewrite_source(load_source, PADDED, name="prog.c")
    kernel = [line.strip() for line in rewritten.splitlines() if "target teams" in line]
    assert kernel == ["#pragma omp target teams distribute parallel for"], kernel
    again, out = rewrite_source(load_source, rewritten, name="prog.c")
    assert again == rewritten and not out.edits


def test_a_struct_member_in_a_kernel_keeps_its_clause(load_source):
    # the kernel's implicit map of the struct would copy the host's pointer member: the
    # clause attaches the member to the storage the region holds
    program = PADDED.replace("int pad = 2;", "int pad = 2;\n    struct { double *v; } s;") \
        .replace("    for (int step", "    s.v = y;\n    for (int step") \
        .replace("x[i] = 0.5 * x[i] + y[i];", "x[i] = 0.5 * x[i] + s.v[i];")
    rewritten, _ = rewrite_source(load_source, program, name="prog.c")
    kernel = [line.strip() for line in rewritten.splitlines() if "target teams" in line]
    assert len(kernel) == 1 and "s.v[" in kernel[0] and "map(tofrom: x" not in kernel[0], kernel
