"""A buffer handed back by a call (``final = run(a, b, steps)``, which swaps ``a`` and ``b``
and returns the last one written) is read through the returned pointer: the exit copy must
bring back whichever array the call returned, which is known only at run time. One ``target
update from(final[0:n])`` through the returned pointer does that (the others are released);
copying each candidate back would move them all. The region is then that one declaration,
which ``target data`` cannot hold (``expected expression``): it is an enter/exit pair. Run
with an odd and an even step count, so each buffer is the returned one once."""

from __future__ import annotations

import pytest

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


@pytest.mark.parametrize("steps", [7, 8])
def test_what_a_call_returned_comes_back_through_the_returned_pointer(load_source, tmp_path,
                                                                      steps):
    program = PROGRAM.replace("atoi(argv[1]) : 7;", f"atoi(argv[1]) : {steps};")
    loaded = load_source(program, name="prog.c")
    rewritten = EditSet(run_omp(loaded).edits).apply("prog.c", loaded.source).decode()
    assert "#pragma omp target data" not in rewritten
    assert "#pragma omp target update from(final[0:n])\n" \
        "    #pragma omp target exit data map(release: a[0:n], b[0:n])" in rewritten
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.d2h_bytes == 1000 * 8  # the returned buffer only
    assert new.copies.total_count < original.copies.total_count


def test_a_candidate_also_read_by_its_own_name_comes_back_itself(load_source, tmp_path):
    program = PROGRAM.replace('    printf("%.6f\\n", sum);',
                              '    printf("%.6f %.3f\\n", sum, b[3]);')
    assert program != PROGRAM
    loaded = load_source(program, name="prog.c")
    rewritten = EditSet(run_omp(loaded).edits).apply("prog.c", loaded.source).decode()
    assert "target update from(final" not in rewritten
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()


# The same in a function other than main that hands one of the buffers to its caller: the
# caller reads ``a`` whichever buffer the call returned, so ``a`` comes back itself.
ESCAPING = """#include <stdio.h>
#include <stdlib.h>

static void step(const double *in, double *out, int n)
{
    #pragma omp target teams distribute parallel for map(to: in[0:n]) map(from: out[0:n])
    for (int i = 0; i < n; i++)
        out[i] = 0.5 * in[i] + (i > 0 ? 0.25 * in[i - 1] : 0.0) + 1.0;
}

static double *swap_steps(double *a, double *b, int n, int steps)
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

static double *run(void)
{
    const int n = 1000;
    double *a = (double *)malloc(n * sizeof(double));
    double *b = (double *)calloc(n, sizeof(double));
    for (int i = 0; i < n; i++)
        a[i] = i % 10;
    double *final = swap_steps(a, b, n, 7);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += final[i];
    printf("%.6f\\n", sum);
    free(b);
    return a;
}

int main(void)
{
    double *a = run();
    printf("%.6f %.6f\\n", a[3], a[999]);
    free(a);
    return 0;
}
"""


def test_a_candidate_the_caller_gets_comes_back_itself(load_source, tmp_path):
    loaded = load_source(ESCAPING, name="prog.c")
    rewritten = EditSet(run_omp(loaded).edits).apply("prog.c", loaded.source).decode()
    assert "target update from(final" not in rewritten
    original, new = run_both(tmp_path, ESCAPING, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
