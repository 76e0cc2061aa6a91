"""Work-item kernels (su3_bench's ``i = id / 36; if (i < sites) { j = (id % 36) / 9; ...}``,
issue 28): subscripts through a division, a remainder and the ``if`` that guards them are
bounded by intervals (omp.guarded_index), so the safety net maps the construct instead of
leaving it unmapped. Rewritten in memory, run on clang-16 host offload.
"""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_rewrite_and_host

# an if clause refuses the plan of the function: the construct is mapped per construct;
# more work items than sites, so only the guard keeps ``s`` below ``sites``
PROGRAM = """#include <stdio.h>
#include <stdlib.h>

#define PER_SITE 12

typedef struct { double e[3][4]; } block_t;

static void contract(const block_t *in, const double *w, block_t *out, int sites, int on_gpu)
{
    int items = (sites + 1) * PER_SITE;
    #pragma omp target teams distribute parallel for if(on_gpu != 0)
    for (int id = 0; id < items; id++) {
        int s = id / PER_SITE;
        if (s < sites && id >= 0) {
            int r = (id % PER_SITE) / 4;
            int c = id % 4;
            out[s].e[r][c] = in[s].e[r][c] * w[r * 4 + c];
        }
    }
}

int main(void)
{
    int sites = 50;
    block_t *in = (block_t *)malloc(sites * sizeof(block_t));
    block_t *out = (block_t *)malloc(sites * sizeof(block_t));
    double *w = (double *)malloc(PER_SITE * sizeof(double));
    for (int k = 0; k < PER_SITE; k++) w[k] = 0.5 + k;
    for (int s = 0; s < sites; s++)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++) { in[s].e[r][c] = s + r - c; out[s].e[r][c] = -1.0; }
    contract(in, w, out, sites, 1);
    double sum = 0.0;
    for (int s = 0; s < sites; s++)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++) sum += out[s].e[r][c] * (s + 1);
    printf("%.3f %.3f\\n", sum, out[sites - 1].e[2][3]);
    free(in); free(out); free(w);
    return 0;
}
"""


def test_work_item_subscripts_are_bounded_by_division_remainder_and_guard(load_source,
                                                                         tmp_path):
    rewritten, out = rewrite_source(load_source, PROGRAM, name="prog.c")
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 1 and counts["left unmapped"] == 0, \
        [d.message for d in out.diagnostics]
    assert "map(to: in[0:sites], w[0:12]) map(tofrom: out[0:sites])" in rewritten, rewritten
    host, device = run_rewrite_and_host(tmp_path, PROGRAM, rewritten)
    assert device.returncode == 0 and device.stdout == host.stdout and device.unmapped == ()
    # in and w copied in, out in and back: 3 * 50 blocks of 96 B and 12 weights
    assert device.copies.total_bytes == 3 * 50 * 96 + 12 * 8, device.copies


def test_a_guard_through_or_bounds_nothing(load_source):
    program = PROGRAM.replace("if (s < sites && id >= 0)", "if (s < sites || id < 0)")
    _rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["left unmapped"] == 1, [d.message for d in out.diagnostics]
    assert any("subscript 's'" in d.message for d in out.diagnostics)


def test_the_guard_fact_is_read_from_the_ast(load_source):
    source = """int f(int i, int n, int m) {
    int t = 0;
    if ((n > i) && m >= 0) t += 1;
    if (i <= n - 1 || m) t += 2;
    if (i < n * 2) t += 3;
#pragma omp target map(tofrom: t)
    t += 1;
    return t;
}
"""
    uses = load_source(source, name="g.c").model.var_uses
    guards = [(u.span.line, u.name, u.guard) for u in uses if u.guard is not None]
    # both sides of ``n > i`` are variables: each is bounded by the other
    assert guards == [(3, "n", (">", "i")), (3, "i", ("<", "n")), (3, "m", (">=", "0")),
                      (5, "i", ("<", "n * 2"))], guards


# TeaLeaf's halo update: a counter with a negative coefficient under a row stride
# (``buffer[base + (halo - kk - 1)]`` with ``int base = jj * x;``): intervals bound it where
# the polynomial substitution of the loop bounds cannot
HALO = """#include <stdio.h>
#include <stdlib.h>

static void reflect_left(int x, int y, int halo, int depth, double *buffer, int on_gpu)
{
    #pragma omp target teams distribute parallel for collapse(2) if(on_gpu != 0)
    for (int jj = halo; jj < y - halo; ++jj)
        for (int kk = 0; kk < depth; ++kk) {
            int base = jj * x;
            buffer[base + (halo - kk - 1)] = buffer[base + (halo + kk)];
        }
}

int main(void)
{
    int x = 16, y = 12, halo = 2, depth = 2;
    double *buffer = (double *)malloc(x * y * sizeof(double));
    for (int k = 0; k < x * y; k++) buffer[k] = (k * 7) % 13;
    reflect_left(x, y, halo, depth, buffer, 1);
    double sum = 0.0;
    for (int k = 0; k < x * y; k++) sum += buffer[k] * (k + 1);
    printf("%.1f %.1f %.1f\\n", sum, buffer[halo * x], buffer[(y - halo - 1) * x + 1]);
    free(buffer);
    return 0;
}
"""


def test_a_reflected_halo_subscript_is_bounded(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, HALO, name="halo.c")
    assert dict(out.counts)["left unmapped"] == 0, [d.message for d in out.diagnostics]
    assert "map(tofrom: buffer[halo*x - depth + halo:-2*halo*x + x*y + 2*depth - x])" in \
        rewritten, rewritten
    host, device = run_rewrite_and_host(tmp_path, HALO, rewritten)
    assert device.returncode == 0 and device.stdout == host.stdout and device.unmapped == ()


def test_a_guard_on_a_shadowed_name_bounds_nothing(load_source):
    # the guard reads the function's ``s``; the subscript is the branch's own ``s``
    program = PROGRAM.replace(
        "        int s = id / PER_SITE;\n        if (s < sites && id >= 0) {\n",
        "        if (s < sites && id >= 0) {\n            int s = id / PER_SITE;\n").replace(
        "    int items = (sites + 1) * PER_SITE;\n",
        "    int items = (sites + 1) * PER_SITE, s = 0;\n")
    assert ", s = 0;" in program and "{\n            int s = id / PER_SITE;" in program
    _rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["left unmapped"] == 1, [d.message for d in out.diagnostics]
