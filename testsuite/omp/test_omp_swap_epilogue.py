"""The whole-program plan over pointers swapped in a called function (issue 28, 3d).

``relax(result, temp, ...)`` declares ``double *r = result, *t = temp;``, swaps them after
every step and ends with ``if (t != result) memcpy(result, t, ...)``: either buffer may hold
the newest values. The plan maps both buffers around the call in ``main`` (the swap only
changes which name refers to which device copy: clang finds them present by host address)
and copies ``t`` back once, before the branch. What it took: the memcpy reads ``t`` before
it writes ``result`` (omp.ir), it overwrites ``result`` whole (a full write needs no copy of
``result`` first), on the branch where ``t == result`` both name one storage (omp.flow), and a
copy may go before a branch where one inside it leaves an array fresh on neither side at
the region's end (omp.place.hoist_path). Before: both kernels mapped per construct, every
step (the plan said "neither the host nor the device copy of 't' is known to be fresh")."""

from __future__ import annotations

import pytest

from s2s.edits import EditSet
from s2s.transform.omp import run_omp
from testsuite.omp.omp_runs import rewrite_source, run_both

RELAX = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static int relax(double *result, double *temp, int n, int max_steps, double tol)
{
    int step;
    double delta = 0.0;
    double *r = result, *t = temp;
    for (step = 0; step < max_steps; step++) {
#pragma omp target teams distribute parallel for
        for (int i = 1; i < n - 1; i++)
            r[i] = 0.5 * t[i] + 0.25 * (t[i - 1] + t[i + 1]);
        delta = 0.0;
#pragma omp target teams distribute parallel for reduction(max: delta)
        for (int i = 0; i < n; i++) {
            double d = fabs(r[i] - t[i]);
            if (d > delta)
                delta = d;
        }
        double *swap = t;
        t = r;
        r = swap;
        if (delta < tol) {
            step++;
            break;
        }
    }
    if (t != result)
        memcpy(result, t, (size_t)n * sizeof(double));
    return step;
}

int main(void)
{
    int n = 20000;
    double *result = (double *)malloc(n * sizeof(double));
    double *temp = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        result[i] = temp[i] = (i % 100 == 0) ? 100.0 : 0.0;
    int steps = relax(result, temp, n, STEPS, 1e-30);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += result[i];
    printf("steps %d sum %.6f\\n", steps, s);
    free(result);
    free(temp);
    return 0;
}
"""


@pytest.mark.parametrize("steps", [3, 4])
def test_both_buffers_stay_mapped_and_t_comes_back_once(load_source, tmp_path, steps):
    program = RELAX.replace("STEPS", str(steps))
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["target regions mapped"] == 2, \
        [d.message for d in out.diagnostics]
    assert "#pragma omp target enter data map(to: result[0:n], temp[0:n])" in rewritten
    # the copy goes before the branch (t is newest whichever buffer it is), only t
    before_branch = rewritten.split("    if (t != result)")[0].rstrip().splitlines()[-1]
    assert before_branch.strip() == "#pragma omp target update from(t[0:n])"
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout   # odd and even parity
    assert new.unmapped == ()
    # both buffers in once (320,000), t back once (160,000), delta per step (16 each)
    assert new.copies.total_bytes == 320000 + 160000 + 16 * steps, new.copies


def test_a_second_run_changes_nothing(load_source):
    program = RELAX.replace("STEPS", "3")
    rewritten, _ = rewrite_source(load_source, program, name="prog.c")
    again = run_omp(load_source(rewritten, name="prog.c"))
    assert EditSet(again.edits).apply("prog.c", rewritten.encode()).decode() == rewritten


def test_a_read_of_t_under_the_branch_alone_stays_planned_inside_it(load_source):
    """Without the memcpy epilogue (a read of t in a branch that leaves nothing stale at the
    end), the copy stays inside the branch as before."""
    program = RELAX.replace("STEPS", "3").replace(
        "    if (t != result)\n        memcpy(result, t, (size_t)n * sizeof(double));\n",
        "    if (step > 1)\n        printf(\"t[1] %.3f\\n\", t[1]);\n")
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["target regions mapped"] == 2
    lines = rewritten.splitlines()
    branch = next(i for i, line in enumerate(lines) if "if (step > 1)" in line)
    assert "target update" not in lines[branch - 1]
    assert any("target update from(t[1:1])" in line for line in lines[branch:branch + 4])


def test_a_memcpy_of_other_elements_is_no_full_write(load_source):
    """``n * sizeof(float)`` into doubles overwrites half of ``result``: the rest must come
    from the device too, so ``result`` is copied back with ``t``."""
    program = RELAX.replace("STEPS", "3").replace("(size_t)n * sizeof(double))",
                                                   "(size_t)n * sizeof(float))")
    rewritten, _ = rewrite_source(load_source, program, name="prog.c")
    before_branch = rewritten.split("    if (t != result)")[0].rstrip().splitlines()[-1]
    assert before_branch.strip() == "#pragma omp target update from(t[0:n], result[0:n])"
