"""Struct members allocated by a callee through the caller's ``&obj`` (issue 28, 3c with the
map clauses removed): ``setup(&st, n)`` doing ``s->u = alloc(s->n)`` is an allocation of
``st.u`` with ``st.n`` elements at the call, so the caller's plan holds; the scalar members
the kernels read beside the arrays (``st.dt``) are mapped by the region itself; a callee
that gets the struct by value maps each construct (its copy's members must be attached)."""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

typedef struct { int n; double dt; double *u; double *f; } State;

static double *alloc_doubles(int count)
{
    double *p = malloc(sizeof(double) * count);
    if (!p) { fprintf(stderr, "no memory\\n"); exit(1); }
    return p;
}

static void setup(State *s, int n)
{
    s->n = n;
    s->dt = 0.5;
    s->u = alloc_doubles(s->n);
    s->f = alloc_doubles(s->n);
    for (int i = 0; i < n; i++) { s->u[i] = i % 5; s->f[i] = 1.0; }
}

static double total(State s)
{
    double t = 0.0;
#pragma omp target teams distribute parallel for reduction(+: t)
    for (int i = 0; i < s.n; i++)
        t += s.u[i] * s.f[i];
    return t;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    State st;
    setup(&st, n);
    for (int step = 0; step < 5; step++) {
#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            st.u[i] += st.dt * st.f[i];
        printf("%d %.3f\\n", step, total(st));
    }
    printf("%.3f\\n", st.u[n / 2]);
    free(st.u); free(st.f);
    return 0;
}
"""


def test_callee_allocated_members_are_counted_at_the_call(load_source):
    loaded = load_source(PROGRAM, name="prog.c")
    from s2s.analysis.omp.out_members import with_callee_members

    model = with_callee_members(loaded.model, loaded.source)
    added = {(a.name, a.function, a.count.text) for a in model.allocations
             if a.function == "main"}
    assert added == {("st.u", "main", "st.n"), ("st.f", "main", "st.n")}, added


def test_the_callers_region_holds_and_the_copy_is_attached(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, PROGRAM, name="prog.c")
    counts = dict(out.counts)
    # main's kernel by the region; total's, on a copy of the struct, per construct
    assert counts["target regions mapped"] == 1 and counts["mapped per construct"] == 1, \
        [d.message for d in out.diagnostics]
    assert "st.dt" in rewritten.split("target enter data", 1)[1].split("\n", 1)[0]
    clause = rewritten.split("reduction(+: t) map(to: ", 1)[1].split(")\n", 1)[0]
    assert sorted(clause.split(", ")) == ["s.f[0:s.n]", "s.n", "s.u[0:s.n]"], clause
    original, new = run_both(tmp_path, PROGRAM, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    # u in and back, f in: once each, and the scalars (before: every kernel copied them)
    assert new.copies.total_bytes < 4 * 2000 * 8


CREATED = """#include <stdlib.h>
typedef struct { int n; double *x; double *w; } Cloud;
static double *doubles(int count) { return malloc(sizeof(double) * (size_t)count); }
static Cloud *cloud_create(int n)
{
    Cloud *c = malloc(sizeof(Cloud));
    c->n = n;
    c->x = doubles(n);
    c->w = malloc(sizeof(double) * (size_t)(2 * n));
    return c;
}
static Cloud *cloud_other(int n)
{
    Cloud *c = malloc(sizeof(Cloud));
    n = n + 1;
    c->x = doubles(n);
    return c;
}
int main(void)
{
    int m = 100;
    Cloud *C = cloud_create(m + 1);
    Cloud *D = cloud_other(m);
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < m; i++) C->x[i] = D->x[i] + C->w[2 * i];
    return 0;
}
"""


def test_members_of_a_struct_a_callee_creates_are_counted_at_the_call(load_source):
    """``Cloud *C = cloud_create(m + 1)``: the callee's counts in its parameters, bound to
    the call's arguments; a callee that assigns its parameter gives none."""
    from s2s.analysis.omp.out_members import with_callee_members

    loaded = load_source(CREATED.replace("static Cloud *cloud_create", "Cloud *cloud_create")
                         .replace("static Cloud *cloud_other", "Cloud *cloud_other"),
                         name="prog.c")
    model = with_callee_members(loaded.model, loaded.source)
    added = {(a.name, a.count.text) for a in model.allocations if a.function == "main"}
    assert ("C->x", "(size_t)(m + 1)") in added and ("C->w", "(size_t)(2 * (m + 1))") in added, added
    assert not any(name.startswith("D->") for name, _ in added), added
