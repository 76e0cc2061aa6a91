"""Allocation helpers defined in a project header (issue 28, 3b): the Parallel Research
Kernels' ``prk_malloc`` lives in ``prk_util.h`` and each kernel file calls it. The helper is
summarized from the header's cursors in the including file's parse, so its calls are
allocations with counts and the whole-function plan holds (before: one map per construct)."""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both

HEADER = """#ifndef UTIL_H
#define UTIL_H
#include <stdio.h>
#include <stdlib.h>
static inline void *util_malloc(size_t bytes)
{
    void *ptr = NULL;
    int ret = posix_memalign(&ptr, 64, bytes);
    if (ret != 0) ptr = NULL;
    return ptr;
}
static inline float *util_floats(int n, float value)
{
    float *p = malloc(n * sizeof(float));
    if (!p) { fprintf(stderr, "no memory\\n"); exit(1); }
    for (int i = 0; i < n; i++) p[i] = value;
    return p;
}
static inline char *util_name(void) { static char name[8] = "run"; return name; }
#endif
"""

MAIN = """#include <stdio.h>
#include "util.h"

int main(int argc, char **argv)
{
    size_t length = argc > 1 ? (size_t)atol(argv[1]) : 4000;
    size_t bytes = length * sizeof(double);
    double *A = util_malloc(bytes);
    double *B = util_malloc(bytes);
    float *w = util_floats((int)length, 0.5f);
    char *label = util_name();
    for (size_t i = 0; i < length; i++) { A[i] = 0.0; B[i] = 2.0; }
    for (int iter = 0; iter < 8; iter++) {
        #pragma omp target teams distribute parallel for
        for (size_t i = 0; i < length; i++)
            A[i] += B[i] * w[i];
    }
    double asum = 0.0;
    for (size_t i = 0; i < length; i++) asum += A[i];
    printf("%s %.3f\\n", label, asum);
    free(A); free(B); free(w);
    return 0;
}
"""


def _load(load_source, tmp_path):
    (tmp_path / "util.h").write_text(HEADER)
    return str(tmp_path / "prog.c")


def test_header_helpers_give_their_calls_counts(load_source, tmp_path):
    name = _load(load_source, tmp_path)
    loaded = load_source(MAIN, name=name)
    counts = {a.name: a.count.text for a in loaded.model.allocations if a.count is not None}
    assert counts == {"A": "length", "B": "length", "w": "((int)length)"}, counts
    # a header function returning a pointer that allocates nothing is no allocation
    assert "label" not in {a.name for a in loaded.model.allocations}


def test_header_helpers_let_the_function_plan_hold(load_source, tmp_path):
    name = _load(load_source, tmp_path)
    rewritten, out = rewrite_source(load_source, MAIN, name=name)
    counts = dict(out.counts)
    assert counts["target regions mapped"] == 1 and counts["mapped per construct"] == 0, \
        [d.message for d in out.diagnostics]
    assert "#pragma omp target data" in rewritten
    original, new = run_both(tmp_path, MAIN, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    # A in and out, B and w in: once each (a map per construct moved them 8 times)
    assert new.copies.total_bytes == 3 * 4000 * 8 + 4000 * 4
