"""Device-side coverage (s2s/analysis/omp/cover.py): an array the device writes before it
reads it needs no entry copy of those elements. Each case states what a careful person
would copy in and why; the negative cases are the ways a write can fail to be a must-write
(a condition, an order, a loop that may not run, a callee under a branch) or the
indeterminate elements can leak to the host."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from s2s.analysis.omp.plan import plan_file
from s2s.analysis.polynomial import subtract, within
from s2s.edits import EditSet
from s2s.transform.omp import run_omp
from s2s.verify import omp_harness

HEAD = "#include <stdio.h>\n#include <stdlib.h>\n"


def entry(load_source, body: str) -> tuple[dict, tuple]:
    """(array -> entry map type, entry update items) of the only region."""
    loaded = load_source(HEAD + body, name="prog.c")
    assert loaded.model is not None, [d.headline() for d in loaded.diagnostics]
    [region] = plan_file(loaded.model, loaded.source).regions
    return {m.name: m.enter for m in region.arrays}, region.entry_updates


# --- what a must-write saves -----------------------------------------------------------------

INTERIOR_THEN_WHOLE = """
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    int sweeps = argc > 2 ? atoi(argv[2]) : 3;
    if (n < 3 || sweeps < 1) { fprintf(stderr, "bad\\n"); return 1; }
    double *a = malloc(n * sizeof(double)), *b = calloc(n, sizeof(double));
    double *s = malloc(sizeof(double));
    for (int i = 0; i < n; i++) a[i] = i % 7;
    b[0] = 1.5; b[n - 1] = -2.5;
    for (int t = 0; t < sweeps; t++) {
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
        for (int i = 1; i < n - 1; i++) b[i] = 0.5 * (a[i - 1] + a[i + 1]);
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
        for (int i = 1; i < n - 1; i++) a[i] = b[i];
    }
    #pragma omp target map(tofrom: b[0:n], s[0:1])
    { s[0] = 0; for (int i = 0; i < n; i++) s[0] += b[i]; }
    printf("%f %f\\n", s[0], a[n / 2]);
    free(a); free(b); free(s);
    return 0;
}
"""


def test_interior_written_first_sends_only_the_end_points(load_source, tmp_path):
    # The first sweep writes b[1:n-2] before anything reads b (the sweep loop runs: the
    # guard returned when sweeps < 1); the sum reads all of b: only b[0] and b[n-1] are read
    # before the device wrote them.
    types, updates = entry(load_source, INTERIOR_THEN_WHOLE)
    assert types["b"] == "alloc" and types["a"] == "to"
    assert updates == ("b[0:1]", "b[n - 1:1]")
    loaded = load_source(HEAD + INTERIOR_THEN_WHOLE, name="prog.c")
    rewritten = EditSet(run_omp(loaded).edits).apply("prog.c", loaded.source).decode()
    assert "enter data map(to: a[0:n]) map(alloc: b[0:n], s[0:1])" in rewritten
    start = rewritten.index("#pragma omp target update to(b[0:1])")
    assert rewritten.index("enter data") < start < rewritten.index("for (int t = 0;")
    _same_output(HEAD + INTERIOR_THEN_WHOLE, rewritten, tmp_path)


CALLEE_WRITES = """
#define NMAX 4096
double f[NMAX], x[NMAX];

static void forces(int m) {
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < m; ++i) {
        double v = -x[i];
        if (i > 0) v += x[i - 1];
        f[i] = v;
    }
}

int main(void) {
    int n = 1000;
    for (int i = 0; i < n; i++) x[i] = i;
    forces(n);
    for (int t = 0; t < 5; t++) {
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++) x[i] += 0.01 * f[i];
        forces(n);
    }
    printf("%f %f\\n", x[n / 2], f[n - 1]);
    return 0;
}
"""


def test_callee_overwrite_through_a_parameter_needs_no_copy_in(load_source):
    # forces(n) writes f[0:m] with m bound to n before any kernel reads f; the host's read
    # of f[n-1] afterwards is within what the device wrote.
    types, updates = entry(load_source, CALLEE_WRITES)
    assert types == {"x": "to", "f": "alloc"}
    assert updates == ()


# --- negative cases: not a must-write, or not before the read ----------------------------------

NEGATIVE = {
    "conditional_write": """
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < n; i++) { if (a[i] > 3) b[i] = a[i]; }
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < n; i++) a[i] = b[i];
""",
    "read_before_the_covering_write": """
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < n; i++) a[i] = b[i];
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < n; i++) b[i] = 2 * a[i];
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < n; i++) a[i] += b[i];
""",
    "first_iteration_reads_before_writing": """
    for (int t = 0; t < 4; t++) {
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
        for (int i = 0; i < n; i++) a[i] += b[i];
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
        for (int i = 0; i < n; i++) b[i] = a[i];
    }
""",
    "same_kernel_reads_neighbours": """
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < n - 1; i++) { b[i] = 1; a[i] = b[i + 1]; }
""",
    "loop_that_may_not_run": """
    for (int t = 0; t < steps; t++) {
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
        for (int i = 0; i < n; i++) b[i] = a[i];
    }
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < n; i++) a[i] = b[i];
""",
    "bound_changed_in_the_region": """
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < m; i++) b[i] = a[i];
    m = n;
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < m; i++) a[i] = b[i];
""",
}

NEGATIVE_PROGRAM = """
int main(int argc, char **argv) {
    int n = 64, m = 32, steps = argc;
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { a[i] = i; b[i] = n - i; }
KERNELS
    printf("%f\\n", a[n / 2]);
    free(a); free(b);
    return 0;
}
"""


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_no_must_write_before_the_read_keeps_the_copy(load_source, name):
    types, updates = entry(load_source, NEGATIVE_PROGRAM.replace("KERNELS", NEGATIVE[name]))
    assert types["b"] == "to", name
    assert not [u for u in updates if u.startswith("b")]


# Each negative case with the one thing that breaks the must-write undone: b then goes in
# as nothing (or only what is read first), so the negative cases fail for their own reason.
TWINS = {
    "conditional_write": ("{ if (a[i] > 3) b[i] = a[i]; }", "{ b[i] = a[i] > 3 ? a[i] : 0; }"),
    "first_iteration_reads_before_writing": ("a[i] += b[i];\n        #pragma omp target teams "
                                             "distribute parallel for map(tofrom: a[0:n], b[0:n])"
                                             "\n        for (int i = 0; i < n; i++) b[i] = a[i];",
                                             "b[i] = a[i];\n        #pragma omp target teams "
                                             "distribute parallel for map(tofrom: a[0:n], b[0:n])"
                                             "\n        for (int i = 0; i < n; i++) a[i] += b[i];"),
    "loop_that_may_not_run": ("t < steps", "t < 3"),
    "bound_changed_in_the_region": ("    m = n;\n", ""),
}


@pytest.mark.parametrize("name", sorted(TWINS))
def test_twin_with_a_must_write_needs_no_copy(load_source, name):
    old, new = TWINS[name]
    assert old in NEGATIVE[name]
    types, updates = entry(load_source, NEGATIVE_PROGRAM.replace(
        "KERNELS", NEGATIVE[name].replace(old, new)))
    assert types["b"] == "alloc", name
    assert [u for u in updates if u.startswith("b")] in ([], ["b[0:1]", "b[n - 1:1]"])


def test_callee_write_under_a_branch_does_not_cover(load_source):
    # forces() covers f only when the host takes the branch: the kick reads f either way.
    body = CALLEE_WRITES.replace("    forces(n);\n    for", "    if (n > 2000) forces(n);\n"
                                 "    for")
    types, _ = entry(load_source, body)
    assert types["f"] == "to"


def test_unguarded_time_loop_does_not_cover_what_follows(load_source):
    # Without the early return, sweeps may be 0: the sum may read b as the host left it.
    body = INTERIOR_THEN_WHOLE.replace("sweeps < 1", "sweeps < -5")
    types, updates = entry(load_source, body)
    assert types["b"] == "to" and updates == ()


def test_copy_to_the_host_of_an_unwritten_element_keeps_the_copy(load_source):
    # The second kernel may write any b[i] (a may-write: b's host copy is stale on [0:n]),
    # so b[0] is copied back; the device never surely wrote b[0] and never read it, so an
    # alloc'd b would hand the host an indeterminate b[0].
    types, updates = entry(load_source, NEGATIVE_PROGRAM.replace("KERNELS", """
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 1; i < n - 1; i++) b[i] = a[i];
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < n; i++) { if (a[i] > 5) b[i] = 0; }
    printf("%f\\n", b[0]);
""").replace("a[n / 2]);", "a[n / 2] + b[0]);"))
    assert types["b"] == "to"


# --- section arithmetic ------------------------------------------------------------------------


def test_subtract_splits_around_an_interior_section():
    assert subtract("[0:n]", "[1:n - 2]") == ["[0:1]", "[n - 1:1]"]
    assert subtract("[1:n - 2]", "[0:n]") == []
    assert subtract("[0:n]", "[k:m]") is None  # margins not constant
    assert subtract("[j:n]", "[0:n]", "n") == []  # nothing lies outside the array
    assert within("[n - 1:1]", "[0:n]") and not within("[0:n + 1]", "[0:n]")


_SECTION = st.tuples(st.integers(-3, 3), st.integers(-1, 1), st.integers(-3, 3))


@given(_SECTION, _SECTION, st.integers(0, 12))
def test_subtract_keeps_every_element_outside_the_part(whole, part, n):
    """Every element of ``whole`` inside ``[0, n)`` and outside ``part`` lies in a piece,
    for sections ``[c : k*n + d]`` of a symbolic ``n`` and every value of ``n``."""
    def text(sec):
        return f"[{sec[0]}:{sec[1]}*n + {sec[2]}]"

    def elements(sec):
        low, length = sec
        return set(range(low, low + length))

    def concrete(sec):
        return sec[0], sec[1] * n + sec[2]

    pieces = subtract(text(whole), text(part), "n")
    if pieces is None:
        return
    rest = (elements(concrete(whole)) - elements(concrete(part))) & set(range(n))
    covered = set()
    for piece in pieces:
        low, length = piece[1:-1].split(":")
        covered |= elements((eval(low, {"n": n}), eval(length, {"n": n})))
    assert rest <= covered


def _same_output(original: str, rewritten: str, tmp_path) -> None:
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    results = []
    for name, text in (("orig", original), ("new", rewritten)):
        (tmp_path / f"{name}.c").write_text(text)
        omp_harness.build(tmp_path / f"{name}.c", tmp_path / name)
        results.append(omp_harness.run(tmp_path / name))
    assert results[0].stdout == results[1].stdout and results[1].returncode == 0
    assert results[1].unmapped == ()
    assert results[1].copies.total_bytes < results[0].copies.total_bytes


IF_CLAUSE = """
    #pragma omp target teams distribute parallel for if(n > 50) map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < n; i++) b[i] = a[i];
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
    for (int i = 0; i < n; i++) a[i] = b[i];
"""


def test_a_kernel_with_an_if_clause_leaves_the_function_as_written(load_source):
    """``if(false)`` runs the region on the host copies: whether the host or the device copy
    is fresh afterwards depends on a run-time value, so no data region is planned."""
    loaded = load_source(HEAD + NEGATIVE_PROGRAM.replace("KERNELS", IF_CLAUSE), name="prog.c")
    plan = plan_file(loaded.model, loaded.source)
    assert plan.regions == []
    assert any("if clause" in message and id == "omp-unsupported"
               for message, id, _ in plan.warnings)
    without = load_source(HEAD + NEGATIVE_PROGRAM.replace("KERNELS", IF_CLAUSE.replace(
        " if(n > 50)", "")), name="prog.c")
    assert len(plan_file(without.model, without.source).regions) == 1
