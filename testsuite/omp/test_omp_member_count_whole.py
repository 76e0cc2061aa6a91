"""A struct written as a whole writes every member (issue 28): ``g = fine;``,
``memcpy(&g, &fine, sizeof g)``, ``memset(&g, 0, ...)``, ``*pg = tmp``, ``fread(&g, ...)``
change ``g.n`` without a member expression (frontend.host.struct_writes). A pointer copied out
of ``g`` before such a write keeps the old storage, so ``g.n`` is no count of it afterwards:
the count is refused and the construct maps the range its kernel touches. Before, the
rewrite mapped ``v[0:g.n]`` (40 times the storage, tofrom). Run on clang-16 host offload.
"""

from __future__ import annotations

import pytest

from s2s.analysis.omp.member_counts import member_count
from testsuite.omp.omp_runs import rewrite_source, run_both

PROGRAM = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int n; double *val; } grid_t;

static void build(grid_t *g, int n)
{
    g->n = n;
    g->val = (double *)malloc(sizeof(double) * g->n);
    for (int i = 0; i < g->n; i++) g->val[i] = (i % 13) * 0.5;
}

int main(int argc, char **argv)
{
    int n = 4000;
    if (argc > 1) n = atoi(argv[1]);
    grid_t g, fine;
    build(&g, n);
    double *v = g.val;
    build(&fine, 40 * n);
    memcpy(&g, &fine, sizeof g);
    double total = 0.0;
    for (int step = 0; step < 4; step++) {
        double s = 0.0;
        #pragma omp target teams distribute parallel for reduction(+: s)
        for (int i = 0; i < n; i++)
            s += v[i] * 0.5;
        total += s;
    }
    printf("%.3f %d\\n", total, g.n);
    free(v); free(fine.val);
    return 0;
}
"""

WHOLE_WRITES = {
    "memcpy": "    memcpy(&g, &fine, sizeof g);\n",
    "assignment": "    g = fine;\n",
}


@pytest.mark.parametrize("form", sorted(WHOLE_WRITES))
def test_a_count_member_overwritten_with_the_struct_is_no_count(load_source, tmp_path, form):
    program = PROGRAM.replace(WHOLE_WRITES["memcpy"], WHOLE_WRITES[form])
    assert WHOLE_WRITES[form] in program
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    counts = dict(out.counts)
    assert "g.n]" not in rewritten, rewritten
    assert "v[0:n]" in rewritten and counts["left unmapped"] == 0, rewritten
    original, new = run_both(tmp_path, program, rewritten)
    assert original.returncode == 0 and original.unmapped
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    # v's 4000 doubles to the device once per step, never g.n's 160000
    assert new.copies.total_bytes <= 4 * 4000 * 8 + 64, new.copies


FACTS = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct { int nx, ny; } dims_t;
typedef struct { dims_t d; double *u; } mesh_t;
void f(mesh_t *pm, mesh_t other, FILE *in, const mesh_t *src)
{
    mesh_t tmp;
    memset(&tmp, 0, sizeof tmp);
    *pm = tmp;
    memcpy(&other, src, sizeof other);
    fread(&tmp.d, sizeof tmp.d, 1, in);
    pm->d = other.d;
    printf("%d\\n", src->d.nx);
    free(pm);
}
"""


def test_whole_struct_writes_are_writes_of_each_member(load_source):
    model = load_source(FACTS, name="prog.c").model
    got = [(w.member, w.role, w.base, w.span.line) for w in model.member_writes if w.whole]
    mesh = ["d", "nx", "ny", "u"]
    assert got == [(m, "address", "tmp", 9) for m in mesh] + \
        [(m, "assign", "pm", 10) for m in mesh] + \
        [(m, "address", "other", 11) for m in mesh] + \
        [(m, "address", "tmp", 12) for m in ("nx", "ny")] + \
        [(m, "assign", "pm", 13) for m in ("nx", "ny")], got
    # memcpy's const source, printf's argument, free's and src itself are no writes
    assert not any(w.base == "src" for w in model.member_writes)
    plain = [(w.member, w.base) for w in model.member_writes if not w.whole]
    assert plain == [("d", "tmp"), ("d", "pm")], plain


CLASSES = """#include <utility>
struct Mesh { int N; double *u; };
struct Box { Mesh m; int k; };
void g(Mesh &a, Mesh &b, Box *bx, const Mesh &c)
{
    std::swap(a, b);
    bx->m = a;
    Mesh d = c;
    d = c;
    (void)d.N;
}
"""


def test_a_class_assigned_or_swapped_writes_each_member(load_source):
    model = load_source(CLASSES, name="prog.cpp").model
    got = [(w.member, w.role, w.base, w.span.line, w.whole) for w in model.member_writes]
    assert got == [("N", "address", "a", 6, True), ("u", "address", "a", 6, True),
                   ("N", "address", "b", 6, True), ("u", "address", "b", 6, True),
                   ("N", "assign", "bx", 7, True), ("u", "assign", "bx", 7, True),
                   ("m", "assign", "bx", 7, False),
                   ("N", "assign", "d", 9, True), ("u", "assign", "d", 9, True)], got


MADE = """#include <stdlib.h>
typedef struct { int n; double *val; } grid_t;
static grid_t make(int n)
{
    grid_t g;
    g.n = n;
    g.val = (double *)malloc(sizeof(double) * g.n);
    return g;
}
int main(void)
{
    grid_t g;
    g = make(100);
    double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s)
    for (int i = 0; i < 100; i++)
        s += g.val[(i * 7) % g.n];
    return (int)s;
}
"""


def test_a_struct_given_the_allocating_calls_result_keeps_the_count(load_source):
    """XSBench's ``SD = binary_read(in)``: the members are the ones the allocating function
    left, so the count stands; a copy of another variable is a write of the length."""
    model = load_source(MADE, name="prog.c").model
    whole = {(w.member, w.made_by) for w in model.member_writes if w.whole}
    assert whole == {("n", "make"), ("val", "make")}, whole
    assert member_count(model, MADE.encode(), "g", ".", "val") == "g.n"
    copied = MADE.replace("    g = make(100);\n", "    grid_t h = make(100);\n    g = h;\n")
    model = load_source(copied, name="prog.c").model
    assert member_count(model, copied.encode(), "g", ".", "val") is None
