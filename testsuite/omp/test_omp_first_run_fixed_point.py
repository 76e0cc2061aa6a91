"""The first run of ``s2s omp`` is its own fixed point where the whole-program plan maps
struct members (issue 28: dose_tables_byvalue's second run used to move the tables into
``main``'s data region, reading their counts off the first run's per-construct clauses).

The plan of ``main`` now takes the count of a member's storage from its allocations
(omp.member_counts, as the safety net does), so the storage goes in once around the time
loop on the first run. The kernel in the callee sees the struct as a by-value copy of host
addresses: it keeps a clause of its own naming the members, which finds them present and
moves nothing but attaches the device copies (omp.report.by_value_members)."""

from __future__ import annotations

from s2s.edits import EditSet
from s2s.transform.omp import run_omp
from testsuite.omp.omp_runs import rewrite_source, run_both

TABLE = """#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double *w;
    int *idx;
    long len_w, len_idx;
    int n;
} Table;

static Table table_make(int n)
{
    Table t;
    t.n = n;
    t.len_w = 2L * n;
    t.len_idx = n;
    t.w = (double *)malloc(t.len_w * sizeof(double));
    t.idx = (int *)malloc(t.len_idx * sizeof(int));
    for (long i = 0; i < t.len_w; i++)
        t.w[i] = 0.5 + (i % 7) * 0.25;
    for (int i = 0; i < n; i++)
        t.idx[i] = (i * 37) % n;
    return t;
}

static double gather(Table t, double *out, int m)
{
    double total = 0.0;
#pragma omp target teams distribute parallel for reduction(+: total)
    for (int r = 0; r < m; r++) {
        int k = t.idx[r % t.n];
        out[r] = t.w[2 * k] + t.w[2 * k + 1];
        total += out[r];
    }
    return total;
}

int main(void)
{
    int m = 5000;
    Table t = table_make(1000);
    double *out = (double *)malloc(m * sizeof(double));
    double sum = 0.0;
    for (int step = 0; step < 4; step++) {
        sum += gather(t, out, m);
        printf("step %d out[7] %.3f\\n", step, out[7]);
    }
    printf("sum %.3f\\n", sum);
    free(out);
    free(t.w);
    free(t.idx);
    return 0;
}
"""


def test_members_are_mapped_once_in_main_and_the_kernel_attaches_them(load_source):
    rewritten, out = rewrite_source(load_source, TABLE, name="prog.c")
    region = next(line for line in rewritten.splitlines() if "target data" in line)
    assert "t.w[0:t.len_w]" in region and "t.idx[0:t.len_idx]" in region
    kernel = next(line for line in rewritten.splitlines()
                  if "target teams distribute" in line)
    assert "t.w[0:t.len_w]" in kernel and "t.idx[0:t.len_idx]" in kernel and "t.n" in kernel
    why = [d.message for d in out.diagnostics if d.id == "omp-per-construct"]
    assert len(why) == 1 and "struct passed by value" in why[0], why


def test_a_second_run_changes_nothing(load_source):
    rewritten, _ = rewrite_source(load_source, TABLE, name="prog.c")
    again = run_omp(load_source(rewritten, name="prog.c"))
    assert EditSet(again.edits).apply("prog.c", rewritten.encode()).decode() == rewritten
    assert dict(again.counts)["left unmapped"] == 0


def test_the_tables_go_in_once(load_source, tmp_path):
    rewritten, _ = rewrite_source(load_source, TABLE, name="prog.c")
    original, new = run_both(tmp_path, TABLE, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    # w (16,000 bytes) and idx (4,000) once with main's t.w and t.idx attached (16); per
    # call the kernel's copy of t gets both addresses attached (16), t.n (4) and the
    # reduction's total (8); out[7] back per step and total back per call
    assert new.copies.h2d_bytes == 16000 + 4000 + 16 + 4 * (16 + 4 + 8), new.copies
    assert new.copies.d2h_bytes == 4 * 8 + 4 * 8, new.copies
