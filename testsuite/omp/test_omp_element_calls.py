"""A kernel that hands one element's address to a device routine (AMD's device-routine
examples: ``compute(c, &x[k])`` where ``compute`` writes ``*x``): the safety net reads the
call as an access of ``x[k]`` when the routine touches only ``*p`` / ``p[0]`` through that
parameter (omp.callee_reads), and bounds it over the loop like any other access. A routine
that walks the pointer (``p[1]``) stays unbounded. Rewritten in memory, run before and after
on clang-16 host offload.
"""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

#pragma omp declare target
static void scale_one(int k, const double *in, double *out)
{
    *out = 2.0 * in[0] + k;
}
#pragma omp end declare target

static double run(const double *a, double *b, int n, int on_gpu)
{
    #pragma omp target teams distribute parallel for if(on_gpu != 0)
    for (int k = 0; k < n; k++)
        scale_one(k, &a[k], &b[k]);
    double s = 0.0;
    for (int k = 0; k < n; k++) s += b[k];
    return s;
}

int main(void)
{
    int n = 1000;
    double *a = (double *)malloc(n * sizeof(double)), *b = (double *)malloc(n * sizeof(double));
    for (int k = 0; k < n; k++) { a[k] = k % 9; b[k] = 0.0; }
    printf("%.1f\\n", run(a, b, n, 1));
    free(a); free(b);
    return 0;
}
"""


def test_an_element_passed_to_a_device_routine_is_that_access(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, PROGRAM, name="prog.c")
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 1 and counts["left unmapped"] == 0, \
        [d.message for d in out.diagnostics]
    assert "map(to: a[0:n]) map(tofrom: b[0:n])" in rewritten, rewritten
    original, new = run_both(tmp_path, PROGRAM, rewritten)
    assert original.unmapped
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()


def test_a_routine_that_walks_the_pointer_is_not_bounded(load_source):
    program = PROGRAM.replace("*out = 2.0 * in[0] + k;", "*out = 2.0 * in[0] + k + in[1];")
    _rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["left unmapped"] == 1, [d.message for d in out.diagnostics]
    assert any("'a' is passed to 'scale_one'" in d.message for d in out.diagnostics)
