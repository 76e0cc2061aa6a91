"""A pointer chosen at run time, ``k % 2 ? p : q`` (issue 17, item 6), mapped as either.

Passed to a function that runs a kernel, the parameter may point to either array: the
callee runs with a local bound to both (its candidate set {p, q}), so both are mapped and a
device write through it leaves both host copies stale; the read-back after the loop is of
what the host reads. Assigned to a local pointer that a target region uses, the same holds
for that local. Each program runs before and after on clang-16 host offload: same output,
no unmapped pointer, the bytes counted exactly. A branch at an offset (``q + 1``) is still
one of several storages at unknown offsets: left as written, and said."""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both

CALL = """#include <stdio.h>
#include <stdlib.h>

static void smooth(const double *in, double *out, int n)
{
#pragma omp target teams distribute parallel for map(to: in[0:n]) map(tofrom: out[0:n])
    for (int i = 1; i < n - 1; i++)
        out[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
}

int main(void)
{
    int n = 3000;
    double *a = (double *)malloc(n * sizeof(double));
    double *b = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        a[i] = (i % 17) * 0.5;
        b[i] = 0.0;
    }
    for (int k = 0; k < 31; k++)
        smooth(k % 2 ? b : a, k % 2 ? a : b, n);
    double sa = 0.0, sb = 0.0;
    for (int i = 0; i < n; i++) {
        sa += a[i] * (i % 3);
        sb += b[i] * (i % 5);
    }
    printf("%.9f %.9f\\n", sa, sb);
    free(a);
    free(b);
    return 0;
}
"""

REGION = """#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 4000;
    float *p = (float *)malloc(n * sizeof(float));
    float *q = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        p[i] = (float)(i % 23);
        q[i] = 0.0f;
    }
    for (int k = 0; k < 24; k++) {
        const float *src = k % 2 ? q : p;
        float *dst = k % 2 ? p : q;
#pragma omp target teams distribute parallel for map(to: src[0:n]) map(tofrom: dst[0:n])
        for (int i = 1; i < n - 1; i++)
            dst[i] = 0.5f * src[i] + 0.25f * (src[i - 1] + src[i + 1]);
        if (k % 8 == 7)
            printf("k=%d %.6f\\n", k, (double)dst[n / 2]);
    }
    printf("%.6f %.6f\\n", (double)p[17], (double)q[n - 17]);
    free(p);
    free(q);
    return 0;
}
"""


def test_a_chosen_argument_maps_both_arrays(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, CALL, "prog.c")
    assert "#pragma omp target data map(tofrom: a[0:n], b[0:n])" in rewritten
    assert not [d for d in out.diagnostics if d.id == "omp-unsupported"]
    original, new = run_both(tmp_path, CALL, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    # both in once and out once (the host reads both whole), against 31 calls' own maps
    assert new.copies.h2d_bytes == 2 * 3000 * 8 and new.copies.d2h_bytes == 2 * 3000 * 8
    assert original.copies.total_bytes == 31 * 3 * 3000 * 8


def test_a_chosen_local_pointer_of_a_target_region_maps_both_arrays(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, REGION, "prog.c")
    assert "#pragma omp target enter data map(to: p[0:n], q[0:n])" in rewritten
    # the element printed in the loop is read back through the chosen pointer itself
    assert "#pragma omp target update from(dst[(n / 2):1])" in rewritten
    original, new = run_both(tmp_path, REGION, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.h2d_bytes == 2 * 4000 * 4
    assert new.copies.d2h_bytes == (3 + 2) * 4  # 3 elements in the loop, 2 after it


def test_a_chosen_argument_at_an_offset_is_left_as_written_and_said(load_source, tmp_path):
    program = CALL.replace("smooth(k % 2 ? b : a, k % 2 ? a : b, n);",
                           "smooth(k % 2 ? b + 1 : a, k % 2 ? a : b, n - 1);")
    assert program != CALL
    rewritten, out = rewrite_source(load_source, program, "prog.c")
    said = [d.message for d in out.diagnostics if d.id == "omp-unsupported"]
    assert said and "'k % 2 ? b + 1 : a' of the call to 'smooth' is not one array" in said[0]
    # main is left as written; the callee is planned as a root of its own (omp28r: a refused
    # root's callees), which is correct whichever array the call hands it
    main = program[program.index("int main"):]
    assert rewritten.endswith(main) and "target enter data" in rewritten[:-len(main)]
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
