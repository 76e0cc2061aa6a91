"""A refused root's callee planned as a root of its own (su3_bench, issue 28): ``main``'s
plan is refused (the host reads the callee's vector between the callee's kernels and its
return, a section ``main`` cannot name there), so the callee that holds every kernel gets a
data region over its body, per call, instead of the per-construct safety net copying each
array at every time step. Rewritten in memory, run on clang-16 host offload.
"""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both

PROGRAM = """#include <cstdio>
#include <vector>

static double relax(std::vector<double> &u, std::vector<double> &w, int n, int steps)
{
    double *du = u.data();
    double *dw = w.data();
    for (int t = 0; t < steps; t++) {
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            dw[i] = 0.5 * du[i] + t;
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            du[i] = dw[i] * 0.25;
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += u[i];
    return sum;
}

int main()
{
    int n = 1000;
    std::vector<double> u(n), w(n);
    for (int i = 0; i < n; i++)
        u[i] = i % 7;
    double first = relax(u, w, n, 5);
    double second = relax(u, w, n, 3);
    printf("%.6f %.6f %.6f\\n", first, second, w[n - 1]);
    return 0;
}
"""


def test_the_callee_of_a_refused_root_gets_a_region_per_call(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, PROGRAM)
    messages = [d.message for d in out.diagnostics]
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 0 and counts["left unmapped"] == 0, messages
    assert any("data mapping of 'main' left as written" in m for m in messages), messages
    assert "target enter data map(to: s2s_u[0:u.size()]" in rewritten, rewritten
    orig, new = run_both(tmp_path, PROGRAM, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == orig.stdout and new.unmapped == ()
    # per call: u and w in, both back (the host reads u here, w escapes): 2 calls, 4 copies
    # of 8,000 B each (the safety net copied both at every one of the 8 steps' 2 kernels)
    assert new.copies.total_bytes == 2 * 4 * 8000, new.copies
