"""Variable mentions (``VarUse``) of C and C++ files, and the OpenMP analyses that read them
instead of scanning statement text (issue 28): the arrays of pointers' escapes and counts
(omp.pointer_arrays), a callee's definitions of a count (omp.callee_counts) and the
allocating function's locals (omp.member_counts)."""

from __future__ import annotations

from s2s.analysis.omp.callee_counts import section_in_callee
from s2s.analysis.omp.member_counts import member_count
from s2s.analysis.omp.pointer_arrays import pointer_array
from testsuite.omp.omp_runs import rewrite_source
from testsuite.omp.test_omp_pointer_arrays import PROBE

MENTIONS = """#include <stdlib.h>
#define NS 4
int steps = 3;
static void run(double **z, int n) { (void)z; (void)n; }
int main(void)
{
    int n = 1000, m;
    m = n * 2;
    double *y[NS];
    for (int k = 0; k < NS; k++)
        y[k] = malloc(n * sizeof(double));
    size_t bytes = sizeof y;
    double *p = &y[1][0];
    steps += 1;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
        y[1][i] = y[0][i] * m;
    run(&y[2], n);
    return (int)bytes + (int)*p;
}
"""


def _uses(loaded, name: str) -> list[tuple]:
    return [(u.span.line, u.role, u.local, u.value.text if u.value else None, u.element,
             u.unevaluated) for u in loaded.model.var_uses if u.name == name]


def test_c_files_have_mentions_with_scope_value_element_and_sizeof(load_source):
    loaded = load_source(MENTIONS, name="prog.c")
    assert _uses(loaded, "m") == [(7, "declare", True, None, None, False),
                                  (8, "assign", True, "n * 2", None, False),
                                  (17, "read", True, None, None, False)]
    assert _uses(loaded, "n")[1] == (7, "init", True, "1000", None, False)   # [0]: run's
    assert _uses(loaded, "steps") == [(14, "assign", False, None, None, False)]  # += : no value
    assert [(line, element, unevaluated) for line, role, _, _, element, unevaluated
            in _uses(loaded, "y") if role != "declare"] == [
        (11, "assign", False),       # y[k] = malloc(...)
        (12, None, True),            # sizeof y
        (13, "subscript", False),    # &y[1][0]: the address of a value
        (17, "subscript", False), (17, "subscript", False),
        (18, "address", False)]      # &y[2]: an element's address
    # the kernel's mentions are there too (the loop under the target construct)
    assert {u.function for u in loaded.model.var_uses} == {"run", "main"}


def test_only_functions_the_openmp_analyses_ask_about_get_mentions(load_source):
    program = MENTIONS.replace("int main(void)", "static int unused(int q)\n{\n    return q + 1;\n"
                               "}\nint main(void)")
    loaded = load_source(program, name="prog.c")
    assert "unused" not in {u.function for u in loaded.model.var_uses}


def test_an_element_whose_address_is_taken_refuses_the_array(load_source):
    model = load_source(PROBE, name="prog.c").model
    assert pointer_array(model, PROBE.encode(), "main", "y").count == "n"
    taken = PROBE.replace("    double s = 0;", "    double **second = &y[1];\n    (void)second;\n"
                          "    double s = 0;")
    model = load_source(taken, name="prog.c").model
    assert pointer_array(model, taken.encode(), "main", "y") is None


def test_another_variable_of_the_same_name_is_not_the_array(load_source):
    # the text scan saw a bare ``y`` here (and a member ``.y``): the array escaped, and its
    # kernels kept unmapped pointers
    shadow = PROBE.replace("    double s = 0;", "    {\n        int y = 3;\n"
                           "        struct { int y; } point = {y};\n"
                           "        fprintf(stderr, \"%d %d y\\n\", y, point.y);\n    }\n"
                           "    double s = 0;")
    rewritten, out = rewrite_source(load_source, shadow, name="prog.c")
    assert "map(to: y, y[0][0:n], y[3][0:n])" in rewritten
    assert dict(out.counts)["target regions mapped"] == 2


def test_a_clause_naming_the_array_is_no_escape(load_source):
    # decay_chain_species with its sections stripped keeps ``map(to: conc, decayed)``: the
    # text scan read the bare name in the clause as the array used whole and refused it
    clause = PROBE.replace("#pragma omp target teams distribute parallel for\n",
                           "#pragma omp target teams distribute parallel for map(to: y)\n")
    assert clause != PROBE
    model = load_source(clause, name="prog.c").model
    assert pointer_array(model, clause.encode(), "main", "y").count == "n"


def test_a_count_changed_after_the_array_refuses_it(load_source):
    changed = PROBE.replace("    uintptr_t host", "    n = n / 2;\n    uintptr_t host")
    model = load_source(changed, name="prog.c").model
    assert pointer_array(model, changed.encode(), "main", "y") is None


CALLEE = """#include <stdlib.h>
typedef struct { int nx, ny; } params_t;
void heat_run(const params_t *p, double *u)
{
    const int nx = p->nx, ny = p->ny;
    int n = nx * ny;
    TWEAK
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
        u[i] += 1.0;
}
int main(void)
{
    params_t p = {64, 32};
    const int cells = p.nx * p.ny;
    double *u = calloc(cells, sizeof(double));
    heat_run(&p, u);
    return (int)u[0];
}
"""


def _callee_section(load_source, tweak: str) -> str | None:
    model = load_source(CALLEE.replace("TWEAK", tweak), name="prog.c").model
    return section_in_callee("[0:cells]", model.function("main"),
                             model.in_function("var_uses", "main"), model.function("heat_run"),
                             model.in_function("var_uses", "heat_run"), ("&p", "u"))


def test_a_callers_count_in_the_callees_names(load_source):
    assert _callee_section(load_source, "") == "[0:n]"
    # a second definition (or a compound one) leaves n's value at the copy unknown
    assert _callee_section(load_source, "n += 0;") is None
    assert _callee_section(load_source, "if (n > 4096) n = 4096;") is None


MEMBERS = """#include <stdlib.h>
typedef struct { int n; int *col; double *val; } graph_t;
void build(graph_t *g, int edges)
{
    int m = edges > 0 ? edges : 1;
    g->n = edges;
    g->col = malloc(sizeof(int) * m);
    g->val = malloc(sizeof(double) * g->n);
}
int main(void)
{
    graph_t g;
    build(&g, 100);
    double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s)
    for (int i = 0; i < g.n; i++)
        s += g.val[i] + g.col[i];
    return (int)s;
}
"""


def test_a_member_count_naming_a_local_of_the_allocating_function_is_refused(load_source):
    model = load_source(MEMBERS, name="prog.c").model
    assert member_count(model, MEMBERS.encode(), "g", ".", "col") is None     # build's local m
    assert member_count(model, MEMBERS.encode(), "g", ".", "val") == "g.n"


MEMBERS_AND_INTEGERS = """#include <stdint.h>
#include <stdlib.h>
typedef struct { int n; double *v; } vec_t;
int main(void)
{
    vec_t a, *p = &a;
    int64_t count = 8;
    size_t bytes = count * sizeof(double);
    char tag = 'x';
    double h = 0.5;
    a.n = (int)count;
    a.v = malloc(bytes);
#pragma omp target teams distribute parallel for
    for (int i = 0; i < p->n; i++)
        a.v[i] = h * i + tag;
    return 0;
}
"""


def test_member_mentions_name_their_member_and_declarators_say_integer(load_source):
    loaded = load_source(MEMBERS_AND_INTEGERS, name="prog.c", user_flags=("-fopenmp",))
    uses = loaded.model.in_function("var_uses", "main")
    assert [(u.name, u.field, u.pointer) for u in uses if u.role == "member"] == [
        ("a", "n", False), ("a", "v", False), ("p", "n", True), ("a", "v", False)]
    integer = {u.name: u.integer for u in uses if u.role in ("init", "null-init", "declare")}
    # int64_t and size_t are integers by their canonical type; char and double are not
    assert integer == {"a": False, "p": False, "count": True, "bytes": True, "tag": False,
                       "h": False, "i": True}
