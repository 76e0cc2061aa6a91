"""A callee of the program that re-points a struct's pointer member (issue 28, omp28p).

``double *v = g.val; refine(&g);`` where ``refine`` does ``g->val = fresh;``: after the call
``v`` holds the old storage and ``g.val`` the new, as after ``g = make(n)``. Before, the
caller's facts did not say so: the region took ``v`` for ``g.val``, entered ``g.val``'s
storage (which no kernel touches), copied an element of it back, and mapped ``v`` per
construct ``tofrom`` (544,072 B). Now the call gives ``g.val`` unknown storage
(omp.callee_repoints), whether ``refine`` is in the caller's file or in another. ``v``'s
count is the range its kernels touch (omp.touched_counts): mapped once around the time
loop, 64,064 B (per construct: 384,064 B, and a second run changed the output). Run on
clang-16 host offload.
"""

from __future__ import annotations

import pytest

from s2s.cli.main import main
from s2s.verify import omp_harness

HEADER = "typedef struct { int n; double *val; } grid_t;\nvoid refine(grid_t *g);\n"

REFINE = """#include <stdlib.h>
#include "grid.h"
static void swap_in(grid_t *g, double *f) { g->val = f; }
void refine(grid_t *g)
{
    double *f = (double *)malloc(sizeof(double) * g->n);
    for (int i = 0; i < g->n; i++) f[i] = g->val[i] * 2.0 + 1.0;
    swap_in(g, f);
}
"""

MAIN = """#include <stdio.h>
#include <stdlib.h>
#include "grid.h"

int main(int argc, char **argv)
{
    grid_t g;
    g.n = 4000;
    if (argc > 1) g.n = atoi(argv[1]);
    g.val = (double *)malloc(sizeof(double) * g.n);
    for (int i = 0; i < g.n; i++) g.val[i] = (i % 13) * 0.5;
    int n = g.n;
    double *v = g.val;
    refine(&g);
    double total = 0.0;
    for (int step = 0; step < 4; step++) {
        double s = 0.0;
        #pragma omp target teams distribute parallel for reduction(+: s)
        for (int i = 0; i < n; i++)
            s += v[i] * 0.5;
        total += s;
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            v[i] += 1.0;
    }
    printf("%.3f %.3f %.3f\\n", total, g.val[7], v[7]);
    free(v); free(g.val);
    return 0;
}
"""

#: v's 4000 doubles in and out once around the time loop (and s, per step)
BYTES = 2 * 4000 * 8 + 4 * 16


@pytest.mark.parametrize("layout", ["one_file", "two_files"])
def test_a_member_a_callee_repoints_is_not_the_copy_taken_before(tmp_path, monkeypatch,
                                                                   layout, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "grid.h").write_text(HEADER)
    if layout == "one_file":
        files = ["prog.c"]
        (tmp_path / "prog.c").write_text(REFINE.replace("#include <stdlib.h>\n", "")
                                         .replace('#include "grid.h"\n', "")
                                         .join([MAIN.split("int main")[0], "int main"])
                                         + MAIN.split("int main")[1])
    else:
        files = ["prog.c", "refine.c"]
        (tmp_path / "prog.c").write_text(MAIN)
        (tmp_path / "refine.c").write_text(REFINE)
    assert main(["omp", "-o", "out", *files, "--", "-fopenmp", "-I."]) == 0
    rewritten = (tmp_path / "out" / "prog.c").read_text()
    assert not any("g.val" in line for line in rewritten.splitlines() if "#pragma" in line), \
        rewritten
    assert "#pragma omp target data map(tofrom: v[0:n])" in rewritten, rewritten
    assert "0 left unmapped" in capsys.readouterr().err
    for name in ("grid.h", *files):
        if not (tmp_path / "out" / name).exists():
            (tmp_path / "out" / name).write_bytes((tmp_path / name).read_bytes())
    monkeypatch.chdir(tmp_path / "out")    # a second run changes nothing
    assert main(["omp", "--check", *files, "--", "-fopenmp", "-I."]) == 0
    monkeypatch.chdir(tmp_path)
    if layout == "one_file":            # the run of the program in two files checks the bytes
        return
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    runs = []
    for name, folder in (("orig", tmp_path), ("new", tmp_path / "out")):
        sources = [folder / f if (folder / f).exists() else tmp_path / f for f in files]
        omp_harness.build(sources, tmp_path / name, extra_flags=[f"-I{tmp_path}"])
        runs.append(omp_harness.run(tmp_path / name))
    original, new = runs
    assert original.returncode == 0 and original.unmapped
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    assert new.copies.total_bytes <= BYTES, new.copies
