"""Member writes (``MemberWrite``) of C and C++ files, and the OpenMP member counts that read
them instead of regexes over the source (issue 28): a length member mentioned in a string or a
comment of another function is no write of it, a method assigning the member through its
implicit ``this`` is one, an element write ``x.f[i] = e`` is no write of ``x.f``."""

from __future__ import annotations

from s2s.analysis.omp.member_counts import member_count

WRITES = """#include <vector>
#define SETN(o, v) (o).n = (v)
struct S {
    int n; double *a; std::vector<double> v;
    void grow(int m) { n = m; this->n += 1; }
};
void f(S &s, S *p, std::vector<double> &w, S *arr)
{
    s.n = 3; p->n += 2; ++s.n; p->n--; int *q = &s.n; (void)q;
    s.a[2] = 1.0; double *e = &s.a[0]; (void)e; int k = s.n == 3; (void)k;
    s.v = w; arr[1].n = 4; SETN(s, 7);
    if ((p->a = 0) == 0) {}
}
"""


def test_member_writes_are_read_off_the_ast(load_source):
    model = load_source(WRITES, name="prog.cpp").model
    got = [(w.member, w.role, w.function, w.base, w.span.line,
            w.value.text if w.value else None) for w in model.member_writes]
    assert got == [
        ("n", "assign", "grow", None, 5, "m"),           # this-> implicit
        ("n", "assign", "grow", None, 5, None),          # this->n += 1
        ("n", "assign", "f", "s", 9, "3"), ("n", "assign", "f", "p", 9, None),
        ("n", "assign", "f", "s", 9, None), ("n", "assign", "f", "p", 9, None),
        ("n", "address", "f", "s", 9, None),
        # s.a[2] = ..., &s.a[0] and s.n == 3 write no member
        ("v", "assign", "f", "s", 11, None),              # operator= of a class
        ("n", "assign", "f", None, 11, "4"),              # arr[1].n: no variable base
        ("n", "assign", "f", "s", 11, "SETN(s, 7)"),      # inside a macro's expansion
        ("a", "assign", "f", "p", 12, "0"),               # inside a condition
    ]
    extents = [w.extent.text(WRITES.encode()) for w in model.member_writes]
    assert extents[4] == "++s.n" and extents[6] == "&s.n" and extents[-1] == "p->a = 0"


GRID = """#include <stdio.h>
#include <stdlib.h>
typedef struct { int n; double *val; } grid_t;
static void build(grid_t *g, int n)
{
    g->n = n;
    g->val = (double *)malloc(sizeof(double) * g->n);
    for (int i = 0; i < g->n; i++) g->val[i] = i;
}
static void show(const grid_t *g)
{
    /* the length is set once: g->n = n in build */
    printf("g->n = %d, val[0] = %g\\n", g->n, g->val[0]);
}
int main(void)
{
    grid_t g;
    build(&g, 100);
    show(&g);
    double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s)
    for (int i = 0; i < g.n; i++)
        s += g.val[i];
    return (int)s;
}
"""


def test_a_length_in_a_string_or_a_comment_is_no_write(load_source):
    model = load_source(GRID, name="prog.c").model
    assert [(w.member, w.function) for w in model.member_writes] == [("n", "build"),
                                                                      ("val", "build")]
    assert member_count(model, GRID.encode(), "g", ".", "val") == "g.n"


def test_a_method_writing_the_length_through_this_refuses_the_count(load_source):
    program = GRID.replace("typedef struct { int n; double *val; } grid_t;",
                           "struct grid_t { int n; double *val; void halve() { n /= 2; } };")
    model = load_source(program, name="prog.cpp").model
    assert ("n", "halve") in [(w.member, w.function) for w in model.member_writes]
    assert member_count(model, program.encode(), "g", ".", "val") is None
    unchanged = load_source(GRID, name="prog.cpp").model
    assert member_count(unchanged, GRID.encode(), "g", ".", "val") == "g.n"


TABLE = """#include <stdlib.h>
typedef struct { double *u; int n; } mesh_t;
typedef double real;
static void release(mesh_t *m, double *a)
{
    real *fields[] = {a, m->u}, *x = 0, y = 1;
    mesh_t copy = *m, *alias = m;
    for (int k = 0; k < 2; k++) free(fields[k]);
    (void)x; (void)y; (void)copy; (void)alias;
}
"""


def test_a_callees_scalar_locals_come_from_its_declarators(load_source):
    from s2s.analysis.omp.ir import IRBuilder

    model = load_source(TABLE, name="prog.c").model
    irs = IRBuilder(model, TABLE.encode()).build_all()
    # every declarator of a statement; a struct (or a pointer to one) may hold the caller's
    # storage and is none; a typedef of double is a built-in
    assert irs["release"].scalar_locals == frozenset({"fields", "x", "y", "k"})
