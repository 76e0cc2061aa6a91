"""Target constructs written through ``_Pragma`` macros (issue 28; the Parallel Research
Kernels' ``OMP_TARGET(...)``): planned like any other, with every edit outside the macro use
(a data region before the loop, ``target enter/exit data`` around a construct the plan of its
function refuses), and never a construct counted mapped that the run shows unmapped."""

from __future__ import annotations

from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source, run_both

PRAGMAS = """#ifndef PRAGMAS_H
#define PRAGMAS_H
#define PRAGMA(x) _Pragma(#x)
#define OMP_TARGET(x) PRAGMA(omp target x)
#endif
"""

# the plan of main holds: one data region before the time loop, in main's own text
TIMED = """#include <stdio.h>
#include <stdlib.h>
#include "pragmas.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3000;
    double *a = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { a[i] = i; b[i] = 0.0; }
    for (int iter = 0; iter < 6; iter++) {
        OMP_TARGET( teams distribute parallel for simd )
        for (int i = 0; i < n; i++)
            b[i] += 0.5 * a[i];
    }
    double s = 0.0;
    for (int i = 0; i < n; i++) s += b[i];
    printf("%.3f\\n", s);
    free(a); free(b);
    return 0;
}
"""


def test_a_macro_construct_gets_a_data_region_outside_the_macro(load_source, tmp_path):
    (tmp_path / "pragmas.h").write_text(PRAGMAS)
    name = str(tmp_path / "prog.c")
    rewritten, out = rewrite_source(load_source, TIMED, name=name)
    counts = dict(out.counts)
    assert counts["target regions mapped"] == 1 and "left in macros" not in counts, counts
    # the macro use is byte for byte as written; the region is a line of main's own
    assert "        OMP_TARGET( teams distribute parallel for simd )\n" in rewritten
    assert "    #pragma omp target data map(to: a[0:n]) map(tofrom: b[0:n])\n" \
        "    for (int iter" in rewritten
    original, new = run_both(tmp_path, TIMED, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    assert new.copies.total_bytes == 3 * 3000 * 8
    assert omp_harness.unmapped_constructs(original) == 1   # the construct the input left


# the kernels are called through a function pointer read from a table: their functions' plan
# is refused and each construct is mapped on its own, by enter/exit data lines around the
# macro use; a use that is the lone body of an ``if`` can take no line before it and is
# left, and said
DISPATCH = """#include <stdio.h>
#include <stdlib.h>
#include "pragmas.h"

static void twice(int n, const double *in, double *out)
{
    OMP_TARGET( teams distribute parallel for )
    for (int i = 1; i < n - 1; i++)
        out[i] = in[i - 1] + in[i + 1];
}

static void zero(int n, const double *in, double *out)
{
    if (n > 0)
        OMP_TARGET( teams distribute parallel for )
        for (int i = 0; i < n; i++)
            out[i] = 0.0 * in[i];
}

typedef void (*kernel_t)(int, const double *, double *);

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    kernel_t table[2] = {twice, zero};
    kernel_t k = table[argc > 5];
    double *in = malloc(n * sizeof(double)), *out = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { in[i] = i; out[i] = -1.0; }
    k(n, in, out);
    printf("%.1f %.1f %.1f\\n", out[0], out[1], out[n - 2]);
    free(in); free(out);
    return 0;
}
"""


def test_the_safety_net_maps_a_macro_construct_around_its_use(load_source, tmp_path):
    (tmp_path / "pragmas.h").write_text(PRAGMAS)
    rewritten, out = rewrite_source(load_source, DISPATCH, name=str(tmp_path / "prog.c"))
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 1 and counts["left unmapped"] == 1, counts
    assert "    #pragma omp target enter data map(to: in[0:n]) map(alloc: out[1:n - 2])\n" \
        "    OMP_TARGET( teams distribute parallel for )\n" in rewritten
    assert "        out[i] = in[i - 1] + in[i + 1];\n" \
        "    #pragma omp target exit data map(from: out[1:n - 2]) map(release: in[0:n])\n" \
        in rewritten
    left = [d.message for d in out.diagnostics if d.id == "omp-left-unmapped"]
    assert len(left) == 1 and "body of a statement without braces" in left[0], left
    original, new = run_both(tmp_path, DISPATCH, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
