"""Sections are texts over the program's variables: when a variable changes, the same text
names other elements. The planner forgets stale sections that mention a changed variable
(``Assign`` events) and keeps the per-kernel mapping of an array whose element count the
region may change. Pointers whose storage it cannot follow leave the function as written.
"""

from __future__ import annotations

from dataclasses import replace

from s2s.analysis.omp.changes import Scope, changing_term
from s2s.analysis.omp.read_only_args import read_only_addresses
from s2s.analysis.polynomial import assigned_in, assigned_names, declared_names
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load
from testsuite.omp.test_omp_plan import HEAD, _rewrite_twice, _same_output, plan

ROW_PER_LAUNCH = """
int main(void) {
    int n = 64, m = 32;
    double *a = malloc(n * m * sizeof(double));
    for (int i = 0; i < n * m; ++i) a[i] = i;
    double probe = 0;
    for (int r = 0; r < n; ++r) {
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n*m])
        for (int j = 0; j < m; ++j) a[r * m + j] = a[r * m + j] * 2.0 + r;
        probe += a[r * m + 3];
    }
    double s = 0;
    for (int i = 0; i < n * m; ++i) s += a[i] * (i % 7);
    printf("%.6f %.6f\\n", s, probe);
    free(a);
    return 0;
}
"""


def test_rows_written_in_a_host_loop_come_back_whole(load_source, tmp_path):
    """Each launch writes row ``r``: inside the trip the host reads one element of that row
    (one element copy), but after the loop the stale part is every row, not ``a[m*r:m]``
    with whatever ``r`` is then (the rewrite named ``r`` outside its loop and did not
    build)."""
    output, once, again = _rewrite_twice(load_source, ROW_PER_LAUNCH)
    text = once.decode()
    updates = [line.strip() for line in text.splitlines() if "target update" in line]
    assert updates == ["#pragma omp target update from(a[m*r + 3:1])"]
    assert "#pragma omp target data map(tofrom: a[0:n * m])" in text
    assert again.edits == ()
    _same_output(HEAD + ROW_PER_LAUNCH, text, tmp_path)


SHRINKING_SIZE = """
int main(void) {
    int n = 1000;
    double *a = malloc(n * sizeof(double)), *b = malloc(1000 * sizeof(double));
    for (int i = 0; i < n; ++i) { a[i] = i; b[i] = 1; }
    for (int t = 0; t < 4; ++t) {
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:1000])
        for (int i = 0; i < n; ++i) { a[i] += 1.0; b[i] *= 2.0; }
        n = n - 100;
        a[n] = -1.0;
    }
    double s = 0;
    for (int i = 0; i < 1000; ++i) s += a[i] + b[i];
    printf("%.6f %d\\n", s, n);
    free(a); free(b);
    return 0;
}
"""


def test_array_whose_count_changes_in_the_region_keeps_its_kernel_mapping(load_source,
                                                                          tmp_path):
    """``map(alloc: a[0:n])`` at the entry and ``update from(a[0:n])`` after ``n -= 100``
    would name different elements (the rewrite printed a wrong sum): ``a`` keeps its
    per-kernel mapping, with the reason; ``b``, of constant size, is still planned."""
    result, _ = plan(load_source, SHRINKING_SIZE)
    warnings = [message for message, ident, _ in result.warnings if ident == "omp-not-mapped"]
    assert len(warnings) == 1 and "'a'" in warnings[0] and "uses 'n'" in warnings[0]
    assert [a.name for r in result.regions for a in r.arrays] == ["b"]
    output, once, again = _rewrite_twice(load_source, SHRINKING_SIZE)
    assert again.edits == ()
    _same_output(HEAD + SHRINKING_SIZE, once.decode(), tmp_path)


POINTER_FROM_A_TABLE = """
#define N 1000
int main(void) {
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
    for (int i = 0; i < N; ++i) { a[i] = i; b[i] = 0; }
    double *bufs[2] = {a, b};
    double s = 0;
    for (int t = 0; t < 6; ++t) {
        #pragma omp target teams distribute parallel for map(tofrom: a[0:N])
        for (int i = 0; i < N; ++i) a[i] = a[i] * 0.5 + 1.0;
        double *p = bufs[t % 2];
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < N; ++i) p[i] = p[i] + t;
        s += a[7];
    }
    printf("%.6f\\n", s);
    free(a); free(b);
    return 0;
}
"""


def test_kernel_pointer_of_unknown_storage_leaves_the_function_as_written(load_source):
    """``p`` comes out of a table: it may be ``a``, so a plan that maps ``a`` but cannot see
    the second kernel's writes to it could read a stale copy. The function is left as
    written, and the warning says why and that the implicit zero-length mapping of ``p``
    is already wrong on a GPU."""
    result, _ = plan(load_source, POINTER_FROM_A_TABLE)
    assert result.regions == []
    (message, ident, _), = result.warnings
    assert ident == "omp-unsupported"
    assert "'p' is used on the device" in message and "zero-length section" in message


def test_assigned_names_are_roots_of_what_a_statement_may_change():
    assert assigned_names("n = n - 100;") == {"n"}
    assert assigned_names("for (int r = 0") == {"r"}
    assert assigned_names("d->numNode += 2; ++k; j--; scanf(\"%d\", &m);") == \
        {"d", "k", "j", "m"}
    # reads, comparisons, element writes and logical and change nothing
    assert assigned_names("a[n] = x; if (x == y && z <= w) s2 = a[i];") == {"s2"}
    assert assigned_names("(size_t)i * N_HID + sizeof(int)") == frozenset()


def test_declared_names_are_the_declarators_not_their_initializers():
    assert declared_names("int nd = n < m ? n : m, k;") == {"nd", "k"}
    assert declared_names("double *p = malloc(n * sizeof(double)), q = 2;") == {"p", "q"}
    assert declared_names("static const int tab[3] = {1, 2, 3};") == {"tab"}
    assert declared_names("x = (int)y;") == frozenset()


def test_logical_and_is_not_taking_an_address():
    assert not assigned_in("d", "while (d->time < d->stoptime && d->cycle < 5)")
    assert assigned_in("d", "init(&d)") and assigned_in("d", "mask & d")


CHANGES = """
#include <stdio.h>
int m;
struct dom { int numElem; double time, dt; };
static void step(struct dom *d) { d->time += d->dt; }
static void shrink(struct dom *d) { d->numElem = 3; }
static void bump(void) { m++; }
static void own_m(void) { int m = 0; m++; printf("%d\\n", m); }
static void peek(const struct dom *d) { printf("%d\\n", d->numElem); }
void run(struct dom *d, int n, int k, double *a) {
    for (int t = 0; t < 4; ++t) { step(d); n = n - 1; /* k = 0; */ printf("k++"); }
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; ++i) a[i] += k + m;
    bump(); own_m(); shrink(d);
}
void probe(struct dom s, double *a) {
    peek(&s);
    #pragma omp target teams distribute parallel for map(tofrom: a[0:s.numElem])
    for (int i = 0; i < s.numElem; ++i) a[i] += 1.0;
}
"""


def _loop_scope(model, function: str, callees=()) -> Scope:
    """The first statement of ``function``'s body, calling ``callees``."""
    return Scope(function, (model.function(function).body.children[0].span,), tuple(callees))


def test_changing_term_sees_the_region_and_the_callers_names_in_callees():
    model = load("changes.c", ParseOptions(user_flags=("-fopenmp",)),
                 source=CHANGES.encode()).model
    loop = _loop_scope(model, "run", ["step"])
    assert changing_term(model, "[0:n]", loop) == "n"
    # a comment or a string that spells an assignment is none (the AST's mentions)
    assert changing_term(model, "[0:m*k]", loop) is None
    # a callee's own ``m`` is not the caller's; a global it assigns is
    assert changing_term(model, "[0:m]", _loop_scope(model, "run", ["own_m"])) is None
    assert changing_term(model, "[0:m]", _loop_scope(model, "run", ["bump"])) == "m"
    # members: by their path, through any function called
    assert changing_term(model, "[0:(d->numElem)]", loop) is None
    assert changing_term(model, "[0:(d->numElem)]",
                         _loop_scope(model, "run", ["shrink"])) == "d->numElem"


def test_an_address_handed_to_a_member_reader_is_no_change():
    model = load("changes.c", ParseOptions(user_flags=("-fopenmp",)),
                 source=CHANGES.encode()).model
    scope = _loop_scope(model, "probe", ["peek"])
    assert changing_term(model, "[0:s.numElem]", scope) == "s.numElem"
    scope = replace(scope, read_only=read_only_addresses(model, scope))
    assert scope.read_only and changing_term(model, "[0:s.numElem]", scope) is None


CALLEE_TEMPORARY = """
static void matvec(int rows, int cols, const double *m, const double *v, double *out)
{
    double *tmp = (double *)malloc(rows * sizeof(double));
    #pragma omp target teams distribute parallel for map(to: m[0:rows * cols], v[0:cols]) \\
            map(from: tmp[0:rows])
    for (int r = 0; r < rows; ++r) {
        double acc = 0.0;
        for (int c = 0; c < cols; ++c)
            acc += m[r * cols + c] * v[c];
        tmp[r] = acc;
    }
    for (int r = 0; r < rows; ++r)
        out[r] = tmp[r];
    free(tmp);
}

int main(void) {
    int n = 32;
    double *m = malloc(n * n * sizeof(double)), *v = malloc(n * sizeof(double));
    double *y = malloc(n * sizeof(double));
    for (int i = 0; i < n * n; ++i) m[i] = i % 5;
    for (int i = 0; i < n; ++i) v[i] = 1.0;
    for (int t = 0; t < 3; ++t) {
        matvec(n, n, m, v, y);
        #pragma omp target teams distribute parallel for map(tofrom: v[0:n]) map(to: y[0:n])
        for (int i = 0; i < n; ++i) v[i] = y[i] / 100.0;
    }
    printf("%f %f\\n", v[0], v[n - 1]);
    free(m); free(v); free(y);
    return 0;
}
"""


def test_temporary_allocated_in_a_called_function_is_no_unknown_storage(load_source,
                                                                       tmp_path):
    """``tmp`` is a fresh ``malloc`` of the callee on every call: it keeps its kernel's own
    mapping, quietly, and the caller's arrays are still planned (the unknown-storage check
    first refused the whole 3000-line benchmark file for such temporaries)."""
    result, _ = plan(load_source, CALLEE_TEMPORARY)
    assert result.warnings == []
    assert {a.name for r in result.regions for a in r.arrays} == {"m", "v", "y"}
    output, once, again = _rewrite_twice(load_source, CALLEE_TEMPORARY)
    assert again.edits == ()
    _same_output(HEAD + CALLEE_TEMPORARY, once.decode(), tmp_path)
