"""A by-value struct whose pointer member a kernel hands to a call binds to the caller (issue 28).

RSBench's ``main`` planned a region naming ``data.mats``: ``data`` is the by-value struct
parameter of the callee whose kernel hands ``data.mats`` to a device function. The compile
check dropped the region (``omp-rewrite-invalid``, exit 1) and its construct stayed left.
Now (omp.calls) a pointer member handed to a call binds the struct parameter to the caller's
argument, so the region names the caller's ``d.a`` and compiles.
"""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both

BY_VALUE = """#include <stdio.h>
#include <stdlib.h>

typedef struct { double *a; double *b; int n; } Data;

#pragma omp declare target
static double twice(const double *a, int i) { return 2.0 * a[i]; }
#pragma omp end declare target

static void run(Data data, double *out)
{
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < data.n; i++)
        out[i] = twice(data.a, i) + data.b[i];
}

int main(void)
{
    int n = 1000;
    Data d;
    d.n = n;
    d.a = (double *)malloc(n * sizeof(double));
    d.b = (double *)malloc(n * sizeof(double));
    double *out = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { d.a[i] = i; d.b[i] = 1.0; }
    run(d, out);
    double s = 0;
    for (int i = 0; i < n; i++) s += out[i];
    printf("sum %.1f\\n", s);
    free(d.a); free(d.b); free(out);
    return 0;
}
"""


def test_a_by_value_struct_whose_member_a_kernel_hands_on_is_mapped_under_the_callers_name(
        load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, BY_VALUE, name="prog.c")
    assert "#pragma omp target data map(to: d.a[0:n], d.b[0:n]) map(from: out[0:n])\n" \
        "    run(d, out);" in rewritten
    assert "data." not in rewritten[rewritten.index("int main"):]
    assert not [d for d in out.diagnostics if "does not compile" in d.message]
    original, new = run_both(tmp_path, BY_VALUE, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout == "sum 1000000.0\n"
    assert new.unmapped == ()

