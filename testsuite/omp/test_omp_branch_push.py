"""A host write of one element under a branch written without braces (``if (it == 3)
a[5] = 100.0;``) between two kernels: the device holds the newest copy elsewhere, so the
element is pushed right after the write, inside the branch (braces added around both). It
used to abandon the whole function ("neither the host nor the device copy is known to be
fresh"). Run before and after on clang-16 host offload."""

from __future__ import annotations

from s2s.edits import EditSet
from s2s.transform.omp import run_omp
from testsuite.omp.omp_runs import run_both

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

static void scale(double *a, int n, double s)
{
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; ++i)
        a[i] = a[i] * s + 1.0;
}

int main(int argc, char **argv)
{
    int n = 1000, steps = argc > 1 ? atoi(argv[1]) : 6;
    double *v = malloc(n * sizeof(double));
    for (int i = 0; i < n; ++i)
        v[i] = i % 7;
    for (int it = 0; it < steps; ++it) {
        scale(v, n, 0.5);
        if (it == 3)
            v[5] = 100.0; /* pin */
        else
            v[7] = -1.0;
        scale(v, n, 1.5);
    }
    printf("%f %f %f\\n", v[5], v[7], v[1]);
    free(v);
    return 0;
}
"""


def test_branch_write_is_pushed_inside_the_branch(load_source, tmp_path):
    loaded = load_source(PROGRAM, name="prog.c")
    output = run_omp(loaded)
    assert not [d for d in output.diagnostics if d.id == "omp-unsupported"]
    rewritten = EditSet(output.edits).apply("prog.c", loaded.source).decode()
    assert ("        if (it == 3)\n"
            "            {\n"
            "                v[5] = 100.0;\n"
            "                #pragma omp target update to(v[5:1])\n"
            "            } /* pin */\n"
            "        else\n"
            "            {\n"
            "                v[7] = -1.0;\n"
            "                #pragma omp target update to(v[7:1])\n"
            "            }\n") in rewritten
    original, new = run_both(tmp_path, PROGRAM, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.total_bytes < original.copies.total_bytes / 10
    # idempotent: the rewrite has its own mapping, a second run leaves it alone
    again = run_omp(load_source(rewritten, name="prog.c"))
    assert EditSet(again.edits).apply("prog.c", rewritten.encode()).decode() == rewritten


# The kernels only read ``w``: both copies stay fresh, and the host re-weights one element
# every 10 steps. Pushing that element keeps them equal (8 bytes) where the next kernel would
# otherwise need all of ``w`` again (omp.flow: pushed where both copies are fresh, once per
# device step). A host sweep over every element, in a loop without device work, is never
# pushed element by element.
BOTH_FRESH = """#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = 4000, steps = argc > 1 ? atoi(argv[1]) : 30, k = 17;
    double *w = malloc(n * sizeof(double)), *s = malloc(n * sizeof(double));
    for (int i = 0; i < n; ++i) {
        w[i] = 1.0;
        s[i] = 0.0;
    }
    for (int step = 1; step <= steps; ++step) {
#pragma omp target teams distribute parallel for map(to: w[0:n]) map(tofrom: s[0:n])
        for (int i = 0; i < n; ++i)
            s[i] += w[i] * (i % 5);
        if (step % 10 == 0)
            w[k] = 2.0 * w[k];
    }
    printf("%f %f\\n", s[k], s[n - 1]);
    free(w);
    free(s);
    return 0;
}
"""

SWEEP = BOTH_FRESH.replace("            w[k] = 2.0 * w[k];\n", "            w[k] = 2.0 * w[k];\n"
                           "        if (step == 15)\n"
                           "            for (int i = 0; i < n; ++i)\n"
                           "                w[i] = 0.5;\n")


def _rewrite(load_source, text: str) -> str:
    loaded = load_source(text, name="prog.c")
    return EditSet(run_omp(loaded).edits).apply("prog.c", loaded.source).decode()


def test_an_element_written_where_both_copies_are_fresh_is_pushed(load_source, tmp_path):
    rewritten = _rewrite(load_source, BOTH_FRESH)
    assert "#pragma omp target update to(w[k:1])" in rewritten
    assert "update to(w[0:n])" not in rewritten
    original, new = run_both(tmp_path, BOTH_FRESH, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    # w and s in once, s[k] and s[n - 1] back, 3 pushed elements
    assert new.copies.total_bytes == 2 * 4000 * 8 + 2 * 8 + 3 * 8
    assert SWEEP != BOTH_FRESH
    swept = _rewrite(load_source, SWEEP)
    assert "update to(w[k:1])" in swept and "update to(w[i:1])" not in swept
