"""Structs reached through pointers: the summary as the run (issue 28, "the summary never
lies").

- A kernel reading ``g->h`` through a struct-pointer parameter ``g`` whose caller maps
  nothing of ``g``: ``g`` is captured as a zero-length section (a host address on a GPU).
  The summary said "0 left" while LIBOMPTARGET_INFO showed ``g`` unmapped at every launch;
  now the construct maps the struct (``map(to: g[0:1])``), and the summary's left count
  equals the run's.
- A callee whose kernel reads only scalars (``g->h``) of the caller's ``g`` passed as ``&g``
  while the caller's region maps ``g.u`` member by member: the region maps ``g.h`` and
  ``g.n`` too. Before, the rewrite segfaulted (the device copy of ``g`` held no ``n``).
- A struct passed by value whose construct names some of its members itself
  (``map(to: m.nelem, m.u[0:n])``): the safety net's companions skip what the construct
  names. Before, it added ``map(to: m.u)``, the member pointer as a scalar, and the kernel
  read the host's array (mesh_struct_byvalue's stripped input printed zeros).
- The "left" warning says what a partly mapped scalar member is: a member with no value on
  the device, not an implicit zero-length section.
"""

from __future__ import annotations

import re

from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source, run_both

HEADER = """#include <stdio.h>
#include <stdlib.h>

typedef struct { int n; double h; double *u; } Grid;
"""

READ_THROUGH_POINTER = HEADER + """
static void step(Grid *g, double *u, const double *f)
{
#pragma omp target teams distribute parallel for
    for (int i = 0; i < g->n; i++)
        u[i] += g->h * f[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    Grid g;
    g.n = n; g.h = 0.25; g.u = NULL;
    double *u = malloc(sizeof(double) * n);
    double *f = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) { u[i] = i % 7; f[i] = 1.0 + i % 3; }
    for (int s = 0; s < 4; s++) {
        g.h = 0.25 * (s + 1);       /* the host changes it between launches */
        step(&g, u, f);
    }
    double t = 0; for (int i = 0; i < n; i++) t += u[i];
    printf("%.3f\\n", t);
    free(u); free(f);
    return 0;
}
"""

SCALARS_BESIDE_MEMBERS = HEADER + """
static void scale(Grid *g, double *w)
{
#pragma omp target teams distribute parallel for
    for (int i = 0; i < g->n; i++)
        w[i] *= g->h;
}

static void add(Grid *g)
{
#pragma omp target teams distribute parallel for
    for (int i = 0; i < g->n; i++)
        g->u[i] += 1.0;
}

int main(void)
{
    Grid g;
    g.n = 1000; g.h = 0.5;
    g.u = malloc(sizeof(double) * g.n);
    double *w = malloc(sizeof(double) * g.n);
    for (int i = 0; i < g.n; i++) { g.u[i] = 1.0; w[i] = i; }
    for (int s = 0; s < 3; s++) { add(&g); scale(&g, w); }
    double t = 0; for (int i = 0; i < g.n; i++) t += g.u[i] + w[i];
    printf("%.2f\\n", t);
    free(g.u); free(w);
    return 0;
}
"""

BY_VALUE_NAMED = """#include <stdio.h>
#include <stdlib.h>

typedef struct { int nnode; double *u; double *acc; } Mesh;

static double relax(Mesh m, int sweeps)
{
    double total = 0.0;
    for (int s = 0; s < sweeps; s++) {
#pragma omp target teams distribute parallel for map(to: m.nnode)
        for (int n = 0; n < m.nnode; n++)
            m.acc[n] = 2.0 * m.u[n];
#pragma omp target teams distribute parallel for reduction(+: total) map(to: m.nnode)
        for (int n = 0; n < m.nnode; n++) {
            m.u[n] = 0.5 * m.acc[n] + 1.0;
            total += m.u[n];
        }
    }
    return total;
}

int main(void)
{
    Mesh mesh;
    mesh.nnode = 500;
    mesh.u = malloc(sizeof(double) * mesh.nnode);
    mesh.acc = malloc(sizeof(double) * mesh.nnode);
    for (int n = 0; n < mesh.nnode; n++) mesh.u[n] = n % 9;
    double total = relax(mesh, 3);
    printf("%.3f %.3f\\n", total, mesh.u[7]);
    free(mesh.u); free(mesh.acc);
    return 0;
}
"""

PARTLY_MAPPED = HEADER + """
static void drift(Grid *g)
{
#pragma omp target map(tofrom: g->u[0:1000])
    {
        for (int i = 0; i < 1000; i++)
            g->u[i] += g->h * i;
        g->h *= 2.0;
    }
}

int main(void)
{
    Grid g;
    g.n = 1000; g.h = 0.5;
    g.u = malloc(sizeof(double) * g.n);
    for (int i = 0; i < g.n; i++) g.u[i] = 1.0;
    drift(&g);
    drift(&g);
    printf("%.2f %.2f\\n", g.u[10], g.h);
    free(g.u);
    return 0;
}
"""


def _summary_and_run(load_source, tmp_path, program: str):
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    original, new = run_both(tmp_path, program, rewritten)
    return rewritten, dict(out.counts), out, original, new


def test_a_struct_read_through_a_pointer_is_mapped_and_counted(load_source, tmp_path):
    rewritten, counts, out, original, new = _summary_and_run(load_source, tmp_path,
                                                             READ_THROUGH_POINTER)
    # the original run shows ``g`` unmapped at each of the 4 launches
    assert any(entry.startswith("g (kernel") for entry in original.unmapped), original.unmapped
    assert "parallel for map(to: g[0:1])" in rewritten, rewritten
    assert (counts["target regions mapped"], counts["mapped per construct"],
            counts["left unmapped"]) == (0, 1, 0), [d.message for d in out.diagnostics]
    assert new.returncode == 0 and new.stdout == original.stdout
    assert counts["left unmapped"] == omp_harness.unmapped_constructs(new) == 0
    # u and f by main's region once; the 24-byte struct in at each launch (g.h changes)
    assert new.copies.h2d_bytes == 2 * 8000 + 4 * 24 and new.copies.d2h_bytes == 8000


def test_the_left_count_is_the_runs_when_the_struct_cannot_be_mapped(load_source, tmp_path,
                                                                     monkeypatch):
    """With the struct's clause refused (as if it failed the compile check), the construct
    is counted left, and the run shows exactly that one construct unmapped."""
    import s2s.analysis.omp.fallback as fallback

    real = fallback.construct_maps

    def refusing(model, source, directive, pointers):
        found, unbounded = real(model, source, directive, pointers)
        if "g" in pointers:
            return None, fallback.Unbounded(directive, pointers, "refused by the test")
        return found, unbounded

    monkeypatch.setattr(fallback, "construct_maps", refusing)
    rewritten, counts, out, original, new = _summary_and_run(load_source, tmp_path,
                                                             READ_THROUGH_POINTER)
    left = [d.message for d in out.diagnostics if d.id == "omp-left-unmapped"]
    assert len(left) == 1 and "still uses 'g' without a mapping" in left[0], left
    assert new.stdout == original.stdout
    assert counts["left unmapped"] == omp_harness.unmapped_constructs(new) == 1


def test_callee_scalars_of_a_struct_mapped_member_by_member(load_source, tmp_path):
    rewritten, counts, out, original, new = _summary_and_run(load_source, tmp_path,
                                                             SCALARS_BESIDE_MEMBERS)
    data = next(line for line in rewritten.splitlines() if "target data" in line)
    assert "g.n" in data and "g.h" in data and "g.u[0:g.n]" in data, data
    assert (counts["target regions mapped"], counts["mapped per construct"],
            counts["left unmapped"]) == (2, 0, 0), [d.message for d in out.diagnostics]
    assert new.returncode == 0 and new.stdout == original.stdout
    assert omp_harness.unmapped_constructs(new) == 0


def test_companions_skip_the_members_a_construct_names(load_source, tmp_path):
    rewritten, counts, out, original, new = _summary_and_run(load_source, tmp_path,
                                                             BY_VALUE_NAMED)
    for line in rewritten.splitlines():
        if "parallel for" in line:
            items = [item for found in re.findall(r"map\(\w+: ([^)]*)\)", line)
                     for item in found.split(", ")]
            assert items.count("m.nnode") == 1, line                # not named twice
            assert "m.u" not in items and "m.acc" not in items, line   # no pointer as scalar
    assert counts["left unmapped"] == 0, [d.message for d in out.diagnostics]
    # (the original's ``map(to: m.nnode)`` maps ``m`` member by member: its member
    # pointers reach the kernels as garbage, so it is no reference; u[n] = n % 9 + s + 1)
    assert new.returncode == 0 and new.stdout == "8970.000 10.000\n"
    assert omp_harness.unmapped_constructs(new) == 0


def test_a_partly_mapped_scalar_member_is_called_what_it_is(load_source):
    _rewritten, out = rewrite_source(load_source, PARTLY_MAPPED, name="prog.c")
    left = [d.message for d in out.diagnostics if d.id == "omp-left-unmapped"]
    assert len(left) == 1, [d.message for d in out.diagnostics]
    assert "reads 'g->h' with no map clause, a member of a struct mapped member by member" \
        in left[0], left[0]
    assert "zero-length" not in left[0], left[0]
    assert dict(out.counts)["left unmapped"] == 1


NESTED = """#include <stdio.h>
#include <stdlib.h>

typedef struct { double h; } Params;
typedef struct { int n; Params *p; } Grid;

static void step(Grid *g, double *u)
{
#pragma omp target teams distribute parallel for
    for (int i = 0; i < 100; i++)
        u[i] += g->p->h;
}

int main(void)
{
    Params p = {0.5};
    Grid g = {100, &p};
    double *u = calloc(100, sizeof(double));
    step(&g, u);
    printf("%.2f\\n", u[3]);
    free(u);
    return 0;
}
"""


def test_a_struct_behind_a_pointer_member_is_counted_left(load_source, tmp_path):
    """``g->p->h``: mapping ``g[0:1]`` would leave ``g->p`` a host address, so the
    construct is counted left (the summary said 0 left), as the run shows."""
    rewritten, counts, out, original, new = _summary_and_run(load_source, tmp_path, NESTED)
    left = [d.message for d in out.diagnostics if d.id == "omp-left-unmapped"]
    assert len(left) == 1 and "'g->p->h' is reached through a pointer member of 'g'" \
        in left[0], left
    assert "g[0:1]" not in rewritten
    assert new.stdout == original.stdout
    assert counts["left unmapped"] == omp_harness.unmapped_constructs(new) == 1
