"""Structs and the pointers copied out of them (issue 28, omp28p).

A struct written as a whole gives each of its pointer members a new value: ``g = make(n)``
(the made_by exception keeps ``g.n`` the count of ``g.val``), ``g = fine``, or ``&g`` handed to
a function the program only declares (an outside library). A pointer copied out before
(``double *v = g.val;``) still holds the old storage. Before, the plan took ``v`` for
``g.val`` and mapped ``v[0:g.n]``, 40 times its storage: the run crashed. Now the front end
records the members' new values as pointer copies (frontend.access.copies), the region's
entry state gives ``v`` a label of its own (omp.solver), and its count is the range its
kernel touches (omp.touched_counts): mapped once around the time loop. Run on clang-16 host offload, the library built beside the program.
"""

from __future__ import annotations

import pytest

from s2s.model.program import merge_units
from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source, run_both

GRID = """typedef struct { int n; double *val; } grid_t;
"""

MADE = """#include <stdio.h>
#include <stdlib.h>
#include "grid.h"

static grid_t make(int n)
{
    grid_t g;
    g.n = n;
    g.val = (double *)malloc(sizeof(double) * g.n);
    for (int i = 0; i < g.n; i++) g.val[i] = (i % 13) * 0.5;
    return g;
}

int main(int argc, char **argv)
{
    int n = 4000;
    if (argc > 1) n = atoi(argv[1]);
    grid_t g = make(n);
    double *v = g.val;
    g = make(40 * n);
    double total = 0.0;
    for (int step = 0; step < 4; step++) {
        double s = 0.0;
        #pragma omp target teams distribute parallel for reduction(+: s)
        for (int i = 0; i < n; i++)
            s += v[i] * 0.5;
        total += s;
    }
    printf("%.3f %d\\n", total, g.n);
    free(v); free(g.val);
    return 0;
}
"""

#: the library: declared in grid.h, built beside the program, never given to s2s
LIBRARY = """#include <stdlib.h>
#include "grid.h"
void grid_take(grid_t *dst, grid_t *src)
{
    *dst = *src;
    src->val = 0;
    src->n = 0;
}
"""

TAKEN = MADE.replace('#include "grid.h"\n',
                     '#include "grid.h"\nvoid grid_take(grid_t *dst, grid_t *src);\n').replace(
    "    g = make(40 * n);\n", "    grid_t fine = make(40 * n);\n    grid_take(&g, &fine);\n")

#: v's 4000 doubles in once around the time loop, its count the range the kernel touches
#: (omp.touched_counts; per construct, once per step: 128,064 B), and the reduction's scalar
BYTES = 4000 * 8 + 4 * 16


@pytest.fixture(scope="module")
def headers(tmp_path_factory):
    folder = tmp_path_factory.mktemp("grid")
    (folder / "grid.h").write_text(GRID)
    (folder / "libgrid.c").write_text(LIBRARY)
    return folder


def _rewrite(load_source, program: str, folder):
    return rewrite_source(lambda text, name: load_source(text, name=name,
                                                         user_flags=(f"-I{folder}",)),
                          program, name="prog.c")


@pytest.mark.parametrize("program", [MADE, TAKEN], ids=["made_by", "declared_only"])
def test_a_pointer_copied_before_the_struct_is_written_keeps_its_own_range(
        load_source, tmp_path, headers, program):
    assert TAKEN != MADE
    rewritten, out = _rewrite(load_source, program, headers)
    assert "g.n]" not in rewritten, rewritten
    assert "#pragma omp target data map(to: v[0:n])" in rewritten, rewritten
    assert dict(out.counts)["left unmapped"] == 0 and dict(out.counts)["target regions mapped"] == 1
    assert _rewrite(load_source, rewritten, headers)[0] == rewritten   # its own fixed point
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    runs = []
    for name, text in (("orig", program), ("new", rewritten)):
        (tmp_path / f"{name}.c").write_text(text)
        omp_harness.build([tmp_path / f"{name}.c", headers / "libgrid.c"], tmp_path / name,
                          extra_flags=[f"-I{headers}"])
        runs.append(omp_harness.run(tmp_path / name))
    original, new = runs
    assert original.returncode == 0 and original.unmapped
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    assert new.copies.total_bytes <= BYTES, new.copies


def test_the_members_new_values_are_pointer_copies(load_source, headers):
    options = {"user_flags": (f"-I{headers}",)}
    made = load_source(MADE, name="prog.c", **options).model
    assert [(c.target, c.source, c.span.line, c.through) for c in made.pointer_copies
            if c.function == "main"] == [("v", "g.val", 19, None), ("g.val", None, 20, None)]
    fine = MADE.replace("    g = make(40 * n);\n", "    grid_t fine = make(40 * n);\n"
                        "    g = fine;\n")
    copied = load_source(fine, name="prog.c", **options).model
    assert ("g.val", "fine.val") in {(c.target, c.source) for c in copied.pointer_copies}
    taken = load_source(TAKEN, name="prog.c", **options).model
    assert {(c.target, c.through) for c in taken.pointer_copies if c.through} == \
        {("g.val", "grid_take"), ("fine.val", "grid_take")}
    assert {(w.member, w.base) for w in taken.member_writes if w.through == "grid_take"} == \
        {("n", "g"), ("val", "g"), ("n", "fine"), ("val", "fine")}
    # a program that defines the function has its own writes: the call's are dropped
    library = load_source(LIBRARY, name="libgrid.c", **options)
    main = load_source(TAKEN, name="prog.c", **options)
    program = merge_units([(main.model, main.source), (library.model, library.source)]).unit
    assert not any(c.through for c in program.pointer_copies)
    assert not any(w.through for w in program.member_writes)


PARAMS = """#include <stdio.h>
#include <stdlib.h>
typedef struct { int steps; double dt, alpha; } params_t;

static void relax(const params_t *P, double *u, int n)
{
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
        u[i] = u[i] * (1.0 - P->alpha * P->dt) + P->dt;
}

int main(void)
{
    params_t P;
    int n = 5000;
    P.steps = 50; P.dt = 0.01; P.alpha = 0.5;
    double *u = (double *)malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) u[i] = (i % 7) * 0.25;
    for (int step = 0; step < P.steps; step++)
        relax(&P, u, n);
    double s = 0.0;
    for (int i = 0; i < n; i++) s += u[i];
    printf("%.9f\\n", s);
    free(u);
    return 0;
}
"""


def test_a_struct_callees_read_for_scalars_is_mapped_once(load_source, tmp_path):
    """``relax`` reads ``P->dt`` and ``P->alpha`` through a ``const`` pointer to main's
    ``P``: main's region maps ``P`` once (before: ``map(to: P[0:1])`` per launch)."""
    rewritten, out = rewrite_source(load_source, PARAMS, name="prog.c")
    assert "map(to: P)" in rewritten and "P[0:1]" not in rewritten, rewritten
    assert dict(out.counts) == {"target regions mapped": 1, "mapped per construct": 0,
                                "left unmapped": 0}, dict(out.counts)
    original, new = run_both(tmp_path, PARAMS, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    assert new.copies.total_bytes == 2 * 5000 * 8 + 24, new.copies   # u in and out, P once
    # the host changes P.dt inside the region: the device copy would go stale
    changing = PARAMS.replace("        relax(&P, u, n);\n",
                              "    {\n        relax(&P, u, n);\n        P.dt *= 0.5;\n    }\n")
    assert changing != PARAMS
    rewritten, _out = rewrite_source(load_source, changing, name="prog.c")
    assert "map(to: P)" not in rewritten and "P[0:1]" in rewritten, rewritten
    # relax is also handed another struct through a pointer: that call would find nothing
    # mapped, and the report would take the region's P for the callee's P
    other = PARAMS.replace("    params_t P;\n", "    params_t P, Q;\n    params_t *pq = &Q;\n").replace(
        "        relax(&P, u, n);\n", "    {\n        relax(&P, u, n);\n        relax(pq, u, n);\n    }\n"
    ).replace("    double *u =", "    Q = P;\n    double *u =")
    assert "relax(pq, u, n)" in other and "Q = P;" in other
    rewritten, out = rewrite_source(load_source, other, name="prog.c")
    assert "map(to: P)" not in rewritten and "P[0:1]" in rewritten, rewritten
    assert dict(out.counts)["left unmapped"] == 0
