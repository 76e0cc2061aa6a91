"""extract_directives: OpenMP pragmas found in libclang tokens, their clauses and statements."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "openmp"


@pytest.fixture
def omp(load_source):
    """``omp(text, name='x.c')`` -> (directives, omp-* warnings, source bytes).

    The ``-fopenmp`` check parse is off by default: snippets use undeclared names in clauses
    and malformed pragmas on purpose, which that parse would report as errors.
    """

    def run(text: str, name: str = "x.c", **options):
        options.setdefault("openmp_check", False)
        loaded = load_source(text, name, **options)
        errors = [d.headline() for d in loaded.diagnostics if d.is_error]
        assert loaded.model is not None, errors
        warnings = [d for d in loaded.diagnostics if d.id.startswith("omp-")]
        assert not [d for d in warnings if d.id == "omp-internal"], warnings
        return loaded.model.directives, warnings, loaded.source

    return run


def text(source: bytes, span) -> str:
    return source[span.start : span.end].decode()


def in_function(pragma: str, stmt: str = "for (int i = 0; i < n; i++) a[i] = 0;") -> str:
    return f"void f(int n, double *a) {{\n  {pragma}\n  {stmt}\n}}\n"


# -- directive names ------------------------------------------------------------------------

WORDS = [
    ("target teams distribute parallel for", "target teams distribute parallel for"),
    ("target teams distribute parallel for simd map(to: a[0:n])",
     "target teams distribute parallel for simd"),
    ("target teams distribute", "target teams distribute"),
    ("target teams loop", "target teams loop"),
    ("target parallel for", "target parallel for"),
    ("target simd", "target simd"),
    ("target", "target"),
    ("target map(a[0:n])", "target"),
    ("teams loop", "teams loop"),
    ("teams distribute parallel for simd", "teams distribute parallel for simd"),
    ("distribute parallel for", "distribute parallel for"),
    ("parallel for simd", "parallel for simd"),
    ("parallel for", "parallel for"),
    ("parallel loop", "parallel loop"),
    ("parallel", "parallel"),
    ("for ordered", "for"),
    ("for simd", "for simd"),
    ("simd safelen(8)", "simd"),
    ("loop bind(thread)", "loop"),
    ("masked", "masked"),
    ("masked filter(0)", "masked"),
    ("master", "master"),
    ("scope", "scope"),
    ("single nowait", "single"),
    ("taskloop simd", "taskloop simd"),
    ("parallel masked taskloop simd", "parallel masked taskloop simd"),
    ("task depend(in: a[0:n])", "task"),
    ("metadirective when(user={condition(n > 10)}: parallel for) otherwise(simd)", "metadirective"),
    ("critical(lock)", "critical"),
    ("atomic update", "atomic"),
    ("tile sizes(4, 4)", "tile"),
    ("unroll partial(2)", "unroll"),
]


@pytest.mark.parametrize("pragma,words", WORDS)
def test_directive_words(omp, pragma, words):
    directives, warnings, _ = omp(in_function(f"#pragma omp {pragma}"))
    assert [d.name for d in directives] == [words]
    assert directives[0].words == tuple(words.split())
    assert not warnings


STANDALONE = [
    ("target enter data map(to: a[0:n])", "target enter data"),
    ("target exit data map(from: a[0:n])", "target exit data"),
    ("target update to(a[0:n])", "target update"),
    ("barrier", "barrier"),
    ("taskwait", "taskwait"),
    ("flush(a)", "flush"),
    ("cancel for", "cancel"),
    ("cancellation point for", "cancellation point"),
]


@pytest.mark.parametrize("pragma,words", STANDALONE)
def test_standalone_directives_have_no_statement(omp, pragma, words):
    directives, warnings, _ = omp(in_function(f"#pragma omp {pragma}"))
    (d,) = directives
    assert d.name == words
    assert d.is_standalone and d.stmt_span is None
    assert not warnings


def test_clause_names_are_not_directive_words(omp):
    directives, _, _ = omp(in_function("#pragma omp cancel for", "a[0]++;"))
    assert directives[0].words == ("cancel",)
    assert [c.name for c in directives[0].clauses] == ["for"]
    directives, _, _ = omp(in_function("#pragma omp atomic capture", "a[0]++;"))
    assert directives[0].words == ("atomic",)
    assert [c.name for c in directives[0].clauses] == ["capture"]


def test_directive_argument_becomes_first_clause(omp):
    directives, _, source = omp(in_function("#pragma omp critical(lock) hint(0)", "a[0]++;"))
    first, second = directives[0].clauses
    assert (first.name, first.argument.text) == ("critical", "lock")
    assert text(source, first.span) == "(lock)"
    assert (second.name, second.argument.text) == ("hint", "0")
    directives, _, _ = omp("double a, b;\n#pragma omp threadprivate(a, b)\n")
    (clause,) = directives[0].clauses
    assert [i.text for i in clause.items] == ["a", "b"]
    assert directives[0].is_declarative and directives[0].stmt_span is None


# -- spans of the pragma itself --------------------------------------------------------------


def test_pragma_span_and_function(omp):
    src = in_function("#pragma omp parallel for")
    directives, _, source = omp(src)
    (d,) = directives
    assert text(source, d.span) == "#pragma omp parallel for"
    assert (d.span.line, d.span.column, d.span.indent) == (2, 3, "  ")
    assert d.function == "f" and d.parent is None


def test_continuation_lines_are_joined(omp):
    src = ("void f(int n, double *a, double *b) {\n"
           "  #pragma omp target teams distribute \\\n"
           "      parallel for \\\n"
           "      map(to: a[0:n]) map(from: b[0:n])   // trailing note\n"
           "  for (int i = 0; i < n; i++) b[i] = a[i];\n}\n")
    directives, _, source = omp(src)
    (d,) = directives
    assert d.name == "target teams distribute parallel for"
    assert text(source, d.span) == ("#pragma omp target teams distribute \\\n      parallel for \\\n"
                                    "      map(to: a[0:n]) map(from: b[0:n])   // trailing note")
    assert (d.span.line, d.span.end_line) == (2, 4)
    assert [(m.map_type, m.items[0].text) for m in d.maps] == [("to", "a[0:n]"), ("from", "b[0:n]")]
    assert text(source, d.stmt_span) == "for (int i = 0; i < n; i++) b[i] = a[i];"


def test_crlf_line_endings(omp):
    src = in_function("#pragma omp target \\\r\n   map(to: a[0:n])").replace("\n", "\r\n").replace("\r\r", "\r")
    directives, _, source = omp(src)
    (d,) = directives
    assert text(source, d.span) == "#pragma omp target \\\r\n   map(to: a[0:n])"
    assert d.maps[0].items[0].text == "a[0:n]"


def test_spaced_hash_and_comment_before(omp):
    directives, _, source = omp(in_function("/* c */ #  pragma   omp   parallel /* x */ for"))
    (d,) = directives
    assert d.name == "parallel for"
    assert text(source, d.span) == "#  pragma   omp   parallel /* x */ for"


# -- pragmas that are not directives ---------------------------------------------------------


def test_ignored_pragmas(omp):
    src = """\
/* #pragma omp target
   #pragma omp parallel */
// #pragma omp target teams
const char *s = "#pragma omp target";
#if 0
#pragma omp target map(to: x)
#endif
#ifdef SURELY_UNDEFINED_MACRO
#pragma omp parallel
#else
#pragma omp declare target
#endif
#define NOT_HERE \\
  #pragma omp parallel for
#pragma ompx something
#pragma GCC optimize("O3")
int g(void) { return 1; }
#pragma omp end declare target
"""
    directives, warnings, _ = omp(src)
    assert [d.name for d in directives] == ["declare target", "end declare target"]
    assert not warnings


def test_pragma_operator_is_reported(omp):
    src = """\
void f(int n, double *a) {
  _Pragma("omp parallel for")
  for (int i = 0; i < n; i++) a[i] = 0;
  _Pragma("GCC ivdep")
  for (int i = 0; i < n; i++) a[i] = 1;
}
"""
    directives, warnings, source = omp(src)
    assert directives == ()
    (w,) = warnings
    assert w.id == "omp-pragma-operator"
    assert (w.location.line, w.location.column) == (2, 3)


def test_pragma_operator_in_macro_is_reported_where_used(omp):
    src = """\
#define PFOR _Pragma("omp parallel for")
#define UNUSED _Pragma("omp simd")
void f(int n, double *a) {
  PFOR
  for (int i = 0; i < n; i++) a[i] = 0;
}
"""
    directives, warnings, _ = omp(src)
    assert directives == ()
    assert [(w.id, w.location.line) for w in warnings] == [("omp-pragma-operator", 4)]
    assert "PFOR" in warnings[0].message


def test_attribute_syntax_is_reported(omp):
    src = """\
void f(int n, double *a) {
  // [[omp::directive(parallel for)]] in a comment is fine
  [[omp::directive(parallel for)]]
  for (int i = 0; i < n; i++) a[i] = 0;
}
"""
    directives, warnings, _ = omp(src, "x.cpp")
    assert directives == ()
    assert [(w.id, w.location.line) for w in warnings] == [("omp-attribute-syntax", 3)]


# -- maps ------------------------------------------------------------------------------------


def test_map_types_and_modifiers(omp):
    pragma = ("#pragma omp target data map(a[0:n]) map(to: b) map(always, tofrom: c[0:n]) "
              "map(close present, alloc: d) map(mapper(m), to: e) map(release: f) map(delete: g) "
              "map(iterator(it = 0:n), from: h[it]) map(ompx_hold, to: k)")
    directives, warnings, source = omp(in_function(pragma, "{ }"))
    maps = directives[0].maps
    got = [(m.clause, m.map_type, m.modifiers, m.implicit_type, [i.text for i in m.items]) for m in maps]
    assert got == [
        ("map", "tofrom", (), True, ["a[0:n]"]),
        ("map", "to", (), False, ["b"]),
        ("map", "tofrom", ("always",), False, ["c[0:n]"]),
        ("map", "alloc", ("close", "present"), False, ["d"]),
        ("map", "to", ("mapper(m)",), False, ["e"]),
        ("map", "release", (), False, ["f"]),
        ("map", "delete", (), False, ["g"]),
        ("map", "from", ("iterator(it = 0:n)",), False, ["h[it]"]),
        ("map", "to", ("ompx_hold",), False, ["k"]),
    ]
    assert text(source, maps[2].span) == "map(always, tofrom: c[0:n])"
    # The generic clause keeps the map type among its modifiers.
    assert directives[0].clauses[2].modifiers == ("always", "tofrom")
    assert not warnings


def test_target_update_motion_clauses(omp):
    src = in_function("#pragma omp target update to(a[0:n]) from(present: b[1:n-1]) if(n > 2)",
                      "a[0] = 1;")
    directives, _, source = omp(src)
    (d,) = directives
    assert [(m.clause, m.map_type, m.modifiers) for m in d.maps] == [
        ("to", "to", ()), ("from", "from", ("present",))]
    assert d.maps[1].items[0].sections[0].length.text == "n-1"
    assert d.stmt_span is None


def test_declare_target_to_is_not_a_motion_clause(omp):
    src = "int g(int x) { return x; }\n#pragma omp declare target to(g) device_type(any)\n"
    directives, _, _ = omp(src)
    (d,) = directives
    assert d.maps == ()
    assert [c.name for c in d.clauses] == ["to", "device_type"]
    assert d.clauses[0].items[0].root == "g"
    assert d.stmt_span is None  # with a list, declare target opens no region


# -- list items and array sections ---------------------------------------------------------


def section_view(source: bytes, section):
    def expr(e):
        if e is None:
            return None
        assert text(source, e.span) == e.text
        return e.text

    return (expr(section.lower), expr(section.length), section.is_section, text(source, section.span))


def test_array_section_forms(omp):
    pragma = ("#pragma omp target map(to: a[0:n], b[:n], c[1:], d[i], e[ lo + 1 : hi - lo ], "
              "f[0:n][0:m], g[:], h[k][0 : 2*m])")
    directives, warnings, source = omp(in_function(pragma, "{ }"))
    items = directives[0].maps[0].items
    got = {i.text: (i.base, i.root, [section_view(source, s) for s in i.sections]) for i in items}
    assert got == {
        "a[0:n]": ("a", "a", [("0", "n", True, "[0:n]")]),
        "b[:n]": ("b", "b", [(None, "n", True, "[:n]")]),
        "c[1:]": ("c", "c", [("1", None, True, "[1:]")]),
        "d[i]": ("d", "d", [("i", None, False, "[i]")]),
        "e[ lo + 1 : hi - lo ]": ("e", "e", [("lo + 1", "hi - lo", True, "[ lo + 1 : hi - lo ]")]),
        "f[0:n][0:m]": ("f", "f", [("0", "n", True, "[0:n]"), ("0", "m", True, "[0:m]")]),
        "g[:]": ("g", "g", [(None, None, True, "[:]")]),
        "h[k][0 : 2*m]": ("h", "h", [("k", None, False, "[k]"), ("0", "2*m", True, "[0 : 2*m]")]),
    }
    for item in items:
        assert text(source, item.span) == item.text
    assert not warnings


def test_members_arrows_and_parentheses(omp):
    src = """\
struct S { double *v; double x[8]; struct S *next; };
void f(struct S s, struct S *p, int n) {
  #pragma omp target map(tofrom: s.x[0:n], p->v[:n], (*p).v[0:n], p->next->v[1:2], s, p[0:1])
  { }
}
"""
    directives, warnings, source = omp(src)
    items = directives[0].maps[0].items
    assert [(i.text, i.base, i.root, len(i.sections)) for i in items] == [
        ("s.x[0:n]", "s.x", "s", 1),
        ("p->v[:n]", "p->v", "p", 1),
        ("(*p).v[0:n]", "(*p).v", "p", 1),
        ("p->next->v[1:2]", "p->next->v", "p", 1),
        ("s", "s", "s", 0),
        ("p[0:1]", "p", "p", 1),
    ]
    assert not warnings


def test_cxx_items(omp):
    src = """\
namespace ns { double arr[100]; }
struct V {
  double *data; int n;
  void scale(double f) {
    #pragma omp target teams distribute parallel for map(tofrom: this->data[0:n]) map(to: ::ns::arr[0:10])
    for (int i = 0; i < n; i++) data[i] *= f;
  }
};
template <typename T> void tf(T *a, int n) {
  #pragma omp target map(a[0:n])
  for (int i = 0; i < n; i++) a[i] = T();
}
"""
    directives, warnings, source = omp(src, "x.cpp")
    method, template = directives
    assert method.function == "scale"
    assert [(i.base, i.root) for m in method.maps for i in m.items] == [
        ("this->data", "this"), ("::ns::arr", "::ns::arr")]
    assert template.function == "tf"
    assert template.span.template == "tf" and not template.span.editable
    assert not warnings


def test_section_with_stride_and_ternary(omp):
    src = in_function("#pragma omp target update to(a[0:n:2]) from(a[n > 4 ? 1 : 0 : n])", "a[0] = 1;")
    directives, warnings, _ = omp(src)
    to, frm = directives[0].maps
    assert (to.items[0].sections[0].lower.text, to.items[0].sections[0].length.text) == ("0", "n")
    assert [w.id for w in warnings] == ["omp-section-stride"]
    section = frm.items[0].sections[0]
    assert (section.lower.text, section.length.text) == ("n > 4 ? 1 : 0", "n")


# -- other clauses ---------------------------------------------------------------------------


def test_clause_arguments_and_modifiers(omp):
    pragma = ("#pragma omp target teams distribute parallel for if(target: n > 100) num_teams(4) "
              "thread_limit(n / 2) collapse(2) schedule(static, 4) default(none) "
              "defaultmap(tofrom: scalar) reduction(+: s) reduction(max: m, hi) device(0) nowait "
              "private(i, j) firstprivate(k) shared(a) is_device_ptr(p) depend(in: a[0:n]) "
              "dist_schedule(static) if(n)")
    directives, warnings, source = omp(in_function(pragma))
    clauses = directives[0].clauses
    got = [(c.name, c.modifiers, [i.text for i in c.items], c.argument and c.argument.text)
           for c in clauses]
    assert got == [
        ("if", ("target",), [], "n > 100"),
        ("num_teams", (), [], "4"),
        ("thread_limit", (), [], "n / 2"),
        ("collapse", (), [], "2"),
        ("schedule", (), [], "static, 4"),
        ("default", (), [], "none"),
        ("defaultmap", ("tofrom",), [], "scalar"),
        ("reduction", ("+",), ["s"], None),
        ("reduction", ("max",), ["m", "hi"], None),
        ("device", (), [], "0"),
        ("nowait", (), [], None),
        ("private", (), ["i", "j"], None),
        ("firstprivate", (), ["k"], None),
        ("shared", (), ["a"], None),
        ("is_device_ptr", (), ["p"], None),
        ("depend", ("in",), ["a[0:n]"], None),
        ("dist_schedule", (), [], "static"),
        ("if", (), [], "n"),
    ]
    for clause in clauses:
        if clause.argument is not None:
            assert text(source, clause.argument.span) == clause.argument.text
    assert text(source, clauses[0].span) == "if(target: n > 100)"
    assert text(source, clauses[10].span) == "nowait"
    assert directives[0].clause("reduction")[1].items[1].text == "hi"
    assert not warnings


def test_modifier_forms(omp):
    pragma = ("#pragma omp target data if(target data: n > 1) map(always to: x) use_device_addr(x) "
              "use_device_ptr(p)")
    directives, _, _ = omp(in_function(pragma, "{ }"))
    cl = directives[0].clauses
    assert cl[0].modifiers == ("target data",) and cl[0].argument.text == "n > 1"
    assert directives[0].maps[0].modifiers == ("always",) and directives[0].maps[0].map_type == "to"
    pragma = ("#pragma omp simd linear(i: 2) linear(j, k) linear(val(q): 1) linear(r: val, step(3)) "
              "aligned(a, b: 64) aligned(c) reduction(inscan, +: s) lastprivate(conditional: t) "
              "nontemporal(a) allocate(omp_high_bw_mem_alloc: u)")
    directives, warnings, _ = omp(in_function(pragma))
    got = [(c.name, c.modifiers, [i.text for i in c.items], c.argument and c.argument.text)
           for c in directives[0].clauses]
    assert got == [
        ("linear", (), ["i"], "2"),
        ("linear", (), ["j", "k"], None),
        ("linear", ("val",), ["q"], "1"),
        ("linear", ("val", "step(3)"), ["r"], None),
        ("aligned", (), ["a", "b"], "64"),
        ("aligned", (), ["c"], None),
        ("reduction", ("inscan", "+"), ["s"], None),
        ("lastprivate", ("conditional",), ["t"], None),
        ("nontemporal", (), ["a"], None),
        ("allocate", ("omp_high_bw_mem_alloc",), ["u"], None),
    ]
    assert not warnings


def test_depend_forms(omp):
    src = in_function("#pragma omp ordered depend(sink: i - 1, j) depend(source)", "a[0] = 1;")
    directives, _, _ = omp(src)
    (d,) = directives
    sink, source = d.clauses
    assert sink.modifiers == ("sink",) and [i.text for i in sink.items] == ["i - 1", "j"]
    assert source.modifiers == ("source",) and source.items == ()
    assert d.stmt_span is None  # stand-alone form of 'ordered'
    directives, _, _ = omp(in_function("#pragma omp ordered", "a[0] = 1;"))
    assert directives[0].stmt_span is not None


# -- associated statements -------------------------------------------------------------------


def test_associated_statements(omp):
    src = """\
void f(int n, double *a) {
  int x = 0;
  #pragma omp target map(tofrom: x)
  x = x + 1;
  #pragma omp target
  {
    x++;
  }
  #pragma omp parallel
  do { x--; } while (x > 0);
  #pragma omp target map(a[0:n]) // comment
  /* block comment */
  #pragma omp teams distribute
  #pragma unroll
  for (int i = 0; i < n; i++)
    a[i] = i;
  #pragma omp task
  g(x);
  #pragma omp parallel
  #ifdef SURELY_UNDEFINED_MACRO
  x = 3;
  #endif
  if (x) x = 2;
}
"""
    directives, warnings, source = omp("void g(int);\n" + src)
    stmts = [text(source, d.stmt_span) for d in directives]
    assert stmts == [
        "x = x + 1;",
        "{\n    x++;\n  }",
        "do { x--; } while (x > 0);",
        "#pragma omp teams distribute\n  #pragma unroll\n  for (int i = 0; i < n; i++)\n    a[i] = i;",
        "for (int i = 0; i < n; i++)\n    a[i] = i;",
        "g(x);",
        "if (x) x = 2;",
    ]
    assert [d.parent for d in directives] == [None, None, None, None, 3, None, None]
    assert not warnings


def test_statements_in_other_positions(omp):
    src = """\
#define FOR_EACH(i, n) for (int i = 0; i < n; i++)
#define RESET(x) x = 0
void f(int n, double *a, int c) {
  #pragma omp parallel for
  FOR_EACH(i, n) { a[i] = 0; }
  if (c)
    #pragma omp parallel for
    for (int i = 0; i < n; i++) a[i] = 1;
  switch (c) {
  case 1:
    #pragma omp parallel
    RESET(a[0]);
    break;
  }
  #pragma omp sections
  {
    #pragma omp section
    { a[0] = 1; }
    #pragma omp section
    a[1] = 2;
  }
  #pragma omp parallel
  ;
  #pragma omp parallel
  L: a[2] = 3;
  #pragma omp parallel
  return;
}
"""
    directives, warnings, source = omp(src)
    assert [(d.name, text(source, d.stmt_span), d.parent) for d in directives] == [
        ("parallel for", "FOR_EACH(i, n) { a[i] = 0; }", None),
        ("parallel for", "for (int i = 0; i < n; i++) a[i] = 1;", None),
        ("parallel", "RESET(a[0]);", None),
        ("sections", "{\n    #pragma omp section\n    { a[0] = 1; }\n    #pragma omp section\n"
                     "    a[1] = 2;\n  }", None),
        ("section", "{ a[0] = 1; }", 3),
        ("section", "a[1] = 2;", 3),
        ("parallel", ";", None),
        ("parallel", "L: a[2] = 3;", None),
        ("parallel", "return;", None),
    ]
    assert not warnings


def test_nesting_inside_target_data(omp):
    src = """\
void f(int n, double *a, double *b) {
  #pragma omp target data map(to: a[0:n]) map(from: b[0:n])
  {
    for (int t = 0; t < 10; t++) {
      #pragma omp target teams distribute parallel for
      for (int i = 0; i < n; i++) b[i] = a[i] * t;
      #pragma omp target update from(b[0:n])
      #pragma omp target data map(alloc: a[0:1])
      {
        #pragma omp target
        #pragma omp parallel for
        for (int i = 0; i < n; i++) b[i] += 1;
      }
    }
  }
  #pragma omp target enter data map(to: a[0:n])
}
"""
    directives, warnings, _ = omp(src)
    assert [(d.name, d.parent) for d in directives] == [
        ("target data", None),
        ("target teams distribute parallel for", 0),
        ("target update", 0),
        ("target data", 0),
        ("target", 3),
        ("parallel for", 4),
        ("target enter data", None),
    ]
    assert directives[0].is_target_data and directives[1].is_target_region
    assert not warnings


def test_declare_target_region(omp):
    src = """\
#pragma omp declare target
static double sq(double x) { return x * x; }
void body(int n, double *a) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = sq(a[i]);
}
#pragma omp end declare target
#pragma omp begin declare target device_type(nohost)
int h(void) { return 2; }
#pragma omp end declare target
"""
    directives, warnings, source = omp(src)
    assert [(d.name, d.parent, d.function) for d in directives] == [
        ("declare target", None, None), ("parallel for", 0, "body"), ("end declare target", None, None),
        ("begin declare target", None, None), ("end declare target", None, None)]
    region = text(source, directives[0].stmt_span)
    assert region.startswith("static double sq") and region.endswith("a[i] = sq(a[i]);\n}")
    assert text(source, directives[3].stmt_span) == "int h(void) { return 2; }"
    assert directives[2].stmt_span is None
    assert not warnings


def test_function_names(omp):
    src = """\
#pragma omp requires unified_shared_memory
static void first(int n, double *a) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
}
int main(void) {
  double a[10];
  #pragma omp target map(a)
  a[0] = 1;
  return 0;
}
"""
    directives, _, _ = omp(src)
    assert [(d.name, d.function) for d in directives] == [
        ("requires", None), ("parallel for", "first"), ("target", "main")]


# -- malformed input: warnings, never an exception -------------------------------------------


@pytest.mark.parametrize("pragma,ident", [
    ("#pragma omp target map(to: a[0:n]", "omp-parse"),
    ("#pragma omp target map(to: a[0:n]))", "omp-parse"),
    ("#pragma omp frobnicate all", "omp-unknown-directive"),
    ("#pragma omp", "omp-unknown-directive"),
    ("#pragma omp parallel for frobnicate(3)", "omp-unknown-clause"),
    ("#pragma omp target map(to: a[0:n],)", "omp-parse"),
    ("#pragma omp target map(to:)", "omp-parse"),
    ("#pragma omp target if()", "omp-parse"),
    ("#pragma omp target map(to: a[])", "omp-parse"),
    ("#pragma omp target 42", "omp-parse"),
    ("#pragma omp target map(to: a[0:n)]", "omp-parse"),
])
def test_malformed_pragmas_warn(omp, pragma, ident):
    directives, warnings, _ = omp(in_function(pragma))
    assert ident in [w.id for w in warnings]
    assert all(w.location is not None and w.location.line == 2 for w in warnings)


def test_unknown_directive_between_pragma_and_statement(omp):
    src = in_function("#pragma omp parallel for\n  #pragma omp frobnicate")
    directives, warnings, source = omp(src)
    (d,) = directives
    assert text(source, d.stmt_span) == "for (int i = 0; i < n; i++) a[i] = 0;"
    assert [w.id for w in warnings] == ["omp-unknown-directive"]


def test_directive_without_statement(omp):
    src = "void f(int n) {\n  n++;\n  #pragma omp parallel\n}\n#pragma omp parallel\n"
    directives, warnings, _ = omp(src)
    assert [d.stmt_span for d in directives] == [None, None]
    assert [w.id for w in warnings] == ["omp-no-statement", "omp-no-statement"]
    directives, warnings, _ = omp("#pragma omp end declare target\n#pragma omp declare target\nint x;\n")
    assert [w.id for w in warnings] == ["omp-parse", "omp-parse"]


def test_no_openmp_at_all(omp):
    directives, warnings, _ = omp("int main(void) { return 0; }\n")
    assert directives == () and warnings == []
    directives, warnings, _ = omp("")
    assert directives == ()


# -- property: generated map clauses round-trip ----------------------------------------------

IDENT = st.sampled_from(["a", "b", "buf", "n", "m", "lo", "hi", "x1"])
EXPR = st.one_of(
    IDENT,
    st.integers(0, 999).map(str),
    st.tuples(IDENT, st.sampled_from(["+", "-", "*", "/"]), st.integers(1, 9)).map(
        lambda t: f"{t[0]} {t[1]} {t[2]}"),
    st.tuples(IDENT, IDENT).map(lambda t: f"{t[0]}[{t[1]}]"),
    st.tuples(IDENT, IDENT).map(lambda t: f"f({t[0]}, {t[1]})"),
)
SECTION = st.one_of(
    st.tuples(st.none() | EXPR, st.none() | EXPR).map(lambda t: ("section",) + t),
    EXPR.map(lambda e: ("index", e, None)),
)
BASE = st.one_of(
    IDENT.map(lambda r: (r, r)),
    st.tuples(IDENT, IDENT).map(lambda t: (f"{t[0]}.{t[1]}", t[0])),
    st.tuples(IDENT, IDENT).map(lambda t: (f"{t[0]}->{t[1]}", t[0])),
    st.tuples(IDENT, IDENT).map(lambda t: (f"(*{t[0]}).{t[1]}", t[0])),
)
ITEM = st.tuples(BASE, st.lists(SECTION, max_size=3))
MAP = st.tuples(
    st.lists(st.sampled_from(["always", "close", "present", "mapper(mm)"]), max_size=2, unique=True),
    st.none() | st.sampled_from(["to", "from", "tofrom", "alloc", "release", "delete"]),
    st.lists(ITEM, min_size=1, max_size=4),
    st.sampled_from([" ", "  ", " \\\n      "]),
)


def _render_section(section) -> str:
    kind, lower, length = section
    if kind == "index":
        return f"[{lower}]"
    return f"[{lower or ''}:{length or ''}]"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(MAP)
def test_generated_map_clauses_round_trip(omp, spec):
    modifiers, map_type, items, gap = spec
    rendered = [base + "".join(_render_section(s) for s in sections) for (base, _), sections in items]
    prefix = ", ".join(modifiers + ([map_type] if map_type else []))
    clause = f"map({prefix + ': ' if prefix else ''}{', '.join(rendered)})"
    directives, warnings, source = omp(in_function(f"#pragma omp target{gap}{clause}", "{ }"))
    (d,) = directives
    (m,) = d.maps
    assert not warnings
    assert text(source, m.span) == clause
    assert m.map_type == (map_type or "tofrom") and m.implicit_type == (map_type is None)
    assert m.modifiers == tuple(modifiers)
    assert [i.text for i in m.items] == rendered
    for item, ((base, root), sections) in zip(m.items, items, strict=True):
        assert (item.base, item.root) == (base, root)
        assert text(source, item.span) == item.text
        assert len(item.sections) == len(sections)
        for got, (kind, lower, length) in zip(item.sections, sections, strict=True):
            assert got.is_section == (kind == "section")
            assert (got.lower and got.lower.text) == lower
            assert (got.length and got.length.text) == length
            for expr in (got.lower, got.length):
                if expr is not None:
                    assert text(source, expr.span) == expr.text


# -- samples ---------------------------------------------------------------------------------

_SAMPLES = sorted(p.parent for p in SAMPLES.glob("*/sample.toml"))


@pytest.mark.skipif(not _SAMPLES, reason="no OpenMP samples under samples/openmp")
@pytest.mark.parametrize("directory", _SAMPLES, ids=lambda p: p.name)
def test_sample_directives(load_source, directory):
    with open(directory / "sample.toml", "rb") as handle:
        meta = tomllib.load(handle)
    for name in meta.get("sources", []):
        path = directory / name
        loaded = load_source(path.read_text(), str(path))
        assert loaded.model is not None, [d.headline() for d in loaded.diagnostics]
        source = loaded.source.decode()
        assert not [d for d in loaded.diagnostics if d.id.startswith("omp-")]
        for directive in loaded.model.directives:
            if directive.is_declarative:
                continue
            assert directive.function, directive.span.location()
            if not directive.is_standalone:
                assert directive.stmt_span is not None, directive.span.location()
            if not (directive.is_target_region or directive.words[0] == "target"):
                continue
            before = source[: directive.span.start]
            for clause in directive.clauses:
                for item in clause.items:
                    assert re.fullmatch(r"[A-Za-z_]\w*", item.root), item.text
                    assert re.search(rf"\b{item.root}\b", before), (item.root, directive.span.location())


GARBAGE = st.lists(st.sampled_from([
    "map", "to", "from", "tofrom:", "always", "target", "teams", "linear", "aligned", "reduction",
    "if", "depend", "a", "n", "(", ")", "[", "]", ":", "::", ",", "?", "+", "->", ".", "0", "1",
    "\\\n", "/* c */", "{", "}", "*",
]), max_size=14)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["target", "target update", "simd", "declare target", "critical"]), GARBAGE)
def test_arbitrary_pragma_text_never_raises(omp, words, garbage):
    pragma = f"#pragma omp {words} " + " ".join(garbage)
    directives, warnings, source = omp(in_function(pragma))  # the fixture rejects omp-internal
    assert len(directives) == 1
    assert text(source, directives[0].span) == pragma  # up to the end of its last line
    for clause in directives[0].clauses:
        assert directives[0].span.contains(clause.span)
