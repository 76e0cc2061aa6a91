"""The interpreter follows calls at most ``MAX_INLINE_DEPTH`` deep (omp.calls): a root whose
kernel sits deeper is refused with that reason, not called recursive (TeaLeaf's halo kernels,
9 calls below its time loop, were refused as "recursive call to update_left" under the old
limit of 8; the limit is now 12)."""

from __future__ import annotations

from s2s.analysis.omp.calls import MAX_INLINE_DEPTH
from testsuite.omp.omp_runs import rewrite_source


def _program(depth: int) -> str:
    lines = ["#include <stdio.h>", "#include <stdlib.h>", "",
             "static void level0(double *u, int n)", "{",
             "    #pragma omp target teams distribute parallel for",
             "    for (int i = 0; i < n; i++)", "        u[i] += 1.0;", "}", ""]
    for k in range(1, depth + 1):
        lines += [f"static void level{k}(double *u, int n)", "{",
                  f"    level{k - 1}(u, n);", "}", ""]
    lines += ["int main(void)", "{", "    int n = 100;",
              "    double *u = (double *)calloc(n, sizeof(double));",
              "    for (int t = 0; t < 3; t++)", f"        level{depth}(u, n);",
              "    printf(\"%f\\n\", u[7]);", "    free(u);", "    return 0;", "}", ""]
    return "\n".join(lines)


def test_calls_deeper_than_the_limit_are_refused_as_too_deep(load_source):
    _rewritten, out = rewrite_source(load_source, _program(MAX_INLINE_DEPTH + 2), name="p.c")
    reasons = [d.message for d in out.diagnostics if "left as written" in d.message]
    assert reasons and f"nested more than {MAX_INLINE_DEPTH} calls deep" in reasons[0], reasons
    assert not any("recursive" in d.message for d in out.diagnostics)


def test_calls_within_the_limit_are_planned(load_source):
    rewritten, out = rewrite_source(load_source, _program(3), name="p.c")
    assert ("target regions mapped", 1) in out.counts, [d.message for d in out.diagnostics]
    assert "#pragma omp target data map(tofrom: u[0:n])" in rewritten or \
        "target enter data" in rewritten
