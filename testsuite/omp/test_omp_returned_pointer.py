"""A buffer handed back by a call (``final = run(a, b, steps)``, which swaps ``a`` and ``b``
and returns the last one written) is read through the returned pointer: the exit copy must
bring back every array the call may return. The region is then that one declaration, which
``target data`` cannot hold (``expected expression``): it is an enter/exit pair."""

from __future__ import annotations

from s2s.edits import EditSet
from s2s.transform.omp import run_omp
from testsuite.omp.omp_runs import run_both

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

static void step(const double *in, double *out, int n)
{
    #pragma omp target teams distribute parallel for map(to: in[0:n]) map(from: out[0:n])
    for (int i = 0; i < n; i++)
        out[i] = 0.5 * in[i] + (i > 0 ? 0.25 * in[i - 1] : 0.0) + 1.0;
}

static double *run(double *a, double *b, int n, int steps)
{
    double *src = a, *dst = b;
    for (int t = 0; t < steps; t++) {
        step(src, dst, n);
        double *tmp = src;
        src = dst;
        dst = tmp;
    }
    return src;
}

int main(int argc, char **argv)
{
    int n = 1000, steps = argc > 1 ? atoi(argv[1]) : 7;
    double *a = (double *)malloc(n * sizeof(double));
    double *b = (double *)calloc(n, sizeof(double));
    for (int i = 0; i < n; i++)
        a[i] = i % 10;
    double *final = run(a, b, n, steps);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += final[i];
    printf("%.6f\\n", sum);
    free(a);
    free(b);
    return 0;
}
"""


def test_what_a_call_may_return_comes_back(load_source, tmp_path):
    loaded = load_source(PROGRAM, name="prog.c")
    rewritten = EditSet(run_omp(loaded).edits).apply("prog.c", loaded.source).decode()
    assert "#pragma omp target data" not in rewritten
    assert "#pragma omp target exit data map(from: a[0:n], b[0:n])" in rewritten
    original, new = run_both(tmp_path, PROGRAM, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.total_count < original.copies.total_count
