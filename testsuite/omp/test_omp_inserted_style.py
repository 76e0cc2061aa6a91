"""Inserted code follows the file (issue 20, item 6): braces s2s adds indent by the file's own
unit (a tab here), ``target update``s at one place are one directive (each variable once per
directive, as OpenMP requires: a second section of ``v`` needs a second directive), and the map
clauses of kernels inside the new data region that the region makes moot are removed."""

from __future__ import annotations

from s2s.edits import EditSet
from s2s.transform.omp import indent_unit, run_omp
from testsuite.omp.omp_runs import run_both

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

int main(void)
{
\tint n = 512;
\tdouble *v = malloc(n * sizeof(double)), *w = malloc(n * sizeof(double));
\tfor (int i = 0; i < n; i++) {
\t\tv[i] = i;
\t\tw[i] = 1.0;
\t}
\tfor (int t = 0; t < 4; t++) {
#pragma omp target teams distribute parallel for map(tofrom: v[0:n]) \\
\tmap(tofrom: w[0:n])
\t\tfor (int i = 0; i < n; i++) {
\t\t\tv[i] += w[i];
\t\t\tw[i] = 0.5 * w[i];
\t\t}
\t\tif (t == 2)
\t\t\tv[3] = 5.0;
\t}
\tprintf("%f %f %f %f\\n", v[0], v[n - 1], w[3], v[3]);
\tfree(v);
\tfree(w);
\treturn 0;
}
"""


def test_inserted_code_follows_the_file(load_source, tmp_path):
    loaded = load_source(PROGRAM, name="prog.c")
    rewritten = EditSet(run_omp(loaded).edits).apply("prog.c", loaded.source).decode()
    # the kernel's clauses are moot inside the region: gone, continuation line and all
    assert "#pragma omp target teams distribute parallel for\n\t\tfor (int i" in rewritten
    # the element pushed inside the brace-less branch: braces and a tab, like the file
    assert "\t\tif (t == 2)\n\t\t\t{\n\t\t\t\tv[3] = 5.0;\n" \
           "\t\t\t\t#pragma omp target update to(v[3:1])\n\t\t\t}\n" in rewritten
    # the read-backs after the loop: one directive for v[0] and w[3]; the other sections of
    # v need directives of their own
    exits = [line.strip() for line in rewritten.splitlines() if "update from" in line]
    assert exits[0] == "#pragma omp target update from(v[0:1], w[3:1])", exits
    assert len(exits) == 3 and all(line.count("v[") == 1 for line in exits), exits
    original, new = run_both(tmp_path, PROGRAM, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()


def test_indent_unit_is_read_off_the_file():
    assert indent_unit(PROGRAM.encode()) == "\t"
    assert indent_unit(b"int f()\n{\n  if (x)\n    y();\n  return 0;\n}\n") == "  "
    assert indent_unit(b"x;\n") == "    "          # nothing to go by: four spaces
