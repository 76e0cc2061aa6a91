"""Fixed-size arrays of pointers whose elements are allocated in a loop (issue 28, 3e;
omp.pointer_arrays). ``double *y[NS]`` with ``y[k] = malloc(n * sizeof(double))``: the
device copy of ``y`` must hold device addresses, so ``y`` is mapped together with every
element's section, ``y`` first (measured with clang-16: the sections alone segfault, ``y``
alone leaves host addresses in the device copy). Each program runs on clang-16 host offload;
a kernel compares the address it sees in ``y[1]`` with the host's (LIBOMPTARGET_INFO does
not show this: the array itself is mapped, only its contents are wrong)."""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both

PROBE = """#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#define NS 4

int main(void)
{
    int n = 1000;
    double *y[NS];
    for (int k = 0; k < NS; k++)
        y[k] = (double *)malloc(n * sizeof(double));
    for (int k = 0; k < NS; k++)
        for (int i = 0; i < n; i++)
            y[k][i] = k + i * 0.001;
    uintptr_t host = (uintptr_t)y[1];
    int same = 0;
    for (int step = 0; step < 10; step++) {
#pragma omp target teams distribute parallel for reduction(+: same)
        for (int i = 0; i < n; i++) {
            y[1][i] = y[0][i] * 0.5 + y[1][i];
            same += (uintptr_t)&y[1][0] == host;
        }
#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            y[2][i] = y[1][i] + y[3][i];
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[2][i];
    printf("%.6f\\n", s);
    fprintf(stderr, "kernel saw the host address %d times\\n", same);
    for (int k = 0; k < NS; k++)
        free(y[k]);
    return 0;
}
"""

ELEMENTS = "y[0][0:n], y[3][0:n]"


def test_the_region_maps_the_array_with_its_elements(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, PROBE, name="prog.c")
    assert (f"#pragma omp target data map(to: y, {ELEMENTS}) "
            "map(tofrom: y[1][0:n], y[2][0:n])") in rewritten
    assert dict(out.counts)["target regions mapped"] == 2
    original, new = run_both(tmp_path, PROBE, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert "saw the host address 0 times" in new.stderr, new.stderr[-500:]
    assert new.unmapped == ()
    # the four elements in (32,000 bytes) and the two written ones back (16,000), the
    # array and its four attached addresses (64), and the reduction's ``same`` per step
    assert new.copies.total_bytes == 32000 + 16000 + 64 + 10 * 4 * 2, new.copies


def test_the_safety_net_maps_the_elements_each_kernel_reaches(load_source, tmp_path):
    # a goto refuses the whole-function plan: each construct gets clauses of its own
    program = PROBE.replace("    double s = 0;", "    if (n < 0)\n        goto done;\n"
                            "    double s = 0;").replace("    for (int k = 0; k < NS; k++)\n"
                                                         "        free", "done:\n"
                                                         "    for (int k = 0; k < NS; k++)\n"
                                                         "        free")
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert "map(to: y, y[0][0:n]) map(tofrom: y[1][0:n])" in rewritten
    assert "map(to: y, y[1][0:n], y[3][0:n]) map(tofrom: y[2][0:n])" in rewritten
    assert dict(out.counts)["mapped per construct"] == 2
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert "saw the host address 0 times" in new.stderr, new.stderr[-500:]


def test_elements_of_different_counts_are_left_with_the_reason(load_source):
    program = PROBE.replace("malloc(n * sizeof(double))", "malloc((n + k) * sizeof(double))")
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert rewritten == program
    assert dict(out.counts)["left unmapped"] == 2   # (it said "2 target regions mapped")
    left = [d.message for d in out.diagnostics if d.id == "omp-left-unmapped"]
    assert left and "array of pointers whose elements' storage is not known" in left[0]


def test_an_element_re_pointed_in_a_kernel_is_not_mapped_as_storage(load_source):
    program = PROBE.replace("            y[2][i] = y[1][i] + y[3][i];",
                            "        {\n            y[2][i] = y[1][i] + y[3][i];\n"
                            "            if (i == n)\n                y[3] = y[2];\n        }")
    _, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["target regions mapped"] == 0
    assert dict(out.counts)["left unmapped"] >= 1
