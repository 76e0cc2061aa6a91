"""extract_accesses: ArrayRef (array accesses, host and target regions) and PointerCopy.

Documented choices checked here: ``*p`` has subscripts ``()`` and ``*(p + k)`` ``(k,)``; a
pointer passed to a call has ``()``, ``a + k`` and ``&a[k]`` ``(k,)``; ``ps->n`` is an access
of ``ps->n`` (root ``ps``); ``pp[i][j]`` through ``double **`` is one access of ``pp``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from s2s.frontend.access.refs import extract_accesses
from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.parse import parse_file
from s2s.frontend.openmp.directives import extract_directives

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples" / "openmp"


@pytest.fixture
def model(load_source):
    def _model(text: str, name: str = "x.c"):
        loaded = load_source(text, name)
        errors = [d.message for d in loaded.diagnostics if d.is_error]
        assert loaded.ok, errors
        return loaded.model

    return _model


def refs(m) -> list[tuple]:
    """(array, mode, subscripts) of every ArrayRef, in order."""
    return [(r.array, r.mode, tuple(s.text for s in r.subscripts)) for r in m.array_refs]


def copies(m) -> list[tuple]:
    return [(c.target, c.source, c.offset) for c in m.pointer_copies]


# ---------------------------------------------------------------------------------------------
# Subscripts and modes

def test_subscript_modes(load_source):
    loaded = load_source("""
double g[8][16];
void f(double *a, int n, int i, int j) {
  double loc[4];
  double vla[n];
  a[i] = 1.0;
  a[i] += 2.0;
  a[i]++;
  --a[j];
  double x = a[i + 1];
  x = loc[2] + vla[i];
  g[i][j] = x;
  loc[0] = g[1][j * 2];
}
""", "x.c")
    m = loaded.model
    assert refs(m) == [
        ("a", "write", ("i",)),
        ("a", "readwrite", ("i",)),
        ("a", "readwrite", ("i",)),
        ("a", "readwrite", ("j",)),
        ("a", "read", ("i + 1",)),
        ("loc", "read", ("2",)),
        ("vla", "read", ("i",)),
        ("g", "write", ("i", "j")),
        ("loc", "write", ("0",)),
        ("g", "read", ("1", "j * 2")),
    ]
    first = m.array_refs[0]
    assert first.root == "a" and first.function == "f" and first.directive is None
    assert first.call is None and first.arg_index is None and not first.conditional
    assert first.span.text(loaded.source) == "a[i]"


def test_reads_in_headers_conditions_returns_and_declarations(model):
    m = model("""
double f(const double *a, int *idx, int n) {
  double s = a[0];
  for (int i = idx[0]; i < idx[1]; i += idx[2])
    s += a[i];
  while (a[n] > 0) n--;
  if (idx[3]) s = 0;
  return a[idx[4]];
}
""")
    assert refs(m) == [
        ("a", "read", ("0",)), ("idx", "read", ("0",)), ("idx", "read", ("1",)),
        ("idx", "read", ("2",)), ("a", "read", ("i",)), ("a", "read", ("n",)),
        ("idx", "read", ("3",)), ("a", "read", ("idx[4]",)), ("idx", "read", ("4",)),
    ]
    assert not any(r.conditional for r in m.array_refs)


def test_dereferences(model):
    m = model("""
void f(double *p, double **pp, int k) {
  *p = 1.0;
  double x = *(p + k);
  x += *(p - 2);
  *p++ = x;
  pp[1][2] = **pp;
}
""")
    assert refs(m) == [
        ("p", "write", ()), ("p", "read", ("k",)), ("p", "read", ("-2",)), ("p", "write", ()),
        ("pp", "write", ("1", "2")), ("pp", "read", ()),
    ]


def test_struct_members(model):
    m = model("""
struct P { double *x, *vx; int n; double fixed[4]; };
struct E { double v; int k; };
void f(struct P *ps, struct E *p, int i) {
  struct P s;
  s.n = 3;
  s.x[i] = ps->vx[i];
  ps->x[i] = p[i].v;
  p[i].k = ps->n;
  ps->fixed[1] = (*ps).n;
  if (ps->x) s.x = 0;
}
""")
    assert refs(m) == [
        ("s.x", "write", ("i",)), ("ps->vx", "read", ("i",)),
        ("ps->x", "write", ("i",)), ("p", "read", ("i",)),
        ("p", "write", ("i",)), ("ps->n", "read", ()),
        ("ps->fixed", "write", ("1",)), ("ps", "read", ()),
    ]
    assert [r.root for r in m.array_refs][:3] == ["s", "ps", "ps"]


def test_scalars_and_pointer_names_are_not_accesses(model):
    m = model("""
#include <stddef.h>
double f(double *u, int n) {
  double sum = 0.0;
  #pragma omp target teams distribute parallel for reduction(+:sum) map(to: u[0:n])
  for (int i = 0; i < n; ++i)
    sum += 1.0;
  if (!u || u == NULL) return 0;
  return sum + sizeof(u[0]);
}
""")
    assert m.array_refs == ()


# ---------------------------------------------------------------------------------------------
# Calls

def test_call_arguments(model):
    m = model("""
void consume(const double *in, double *out, int n);
void g(double *a, double (*rows)[8], int k) {
  double grid[4][8];
  consume(a, a + k, k);
  consume(&a[k], &grid[1][2], 0);
  consume(grid[k], rows[1], 8);
}
""")
    got = [(r.array, r.mode, tuple(s.text for s in r.subscripts), r.call, r.arg_index)
           for r in m.array_refs]
    assert got == [
        ("a", "read", (), "consume", 0),
        ("a", "readwrite", ("k",), "consume", 1),
        ("a", "read", ("k",), "consume", 0),
        ("grid", "readwrite", ("1", "2"), "consume", 1),
        ("grid", "read", ("k",), "consume", 0),
        ("rows", "readwrite", ("1",), "consume", 1),
    ]


def test_library_calls(model):
    m = model("""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct S { double *x; };
void h(double *d, const double *s, char *name, struct S *ps, int argc, char **argv, size_t n) {
  memset(d, 0, n);
  memcpy(d, s, n);
  memmove(d + 1, d, n);
  printf("%p %s %f\\n", (void *)d, name, d[0]);
  fprintf(stderr, "%d\\n", atoi(argv[1]));
  free(ps->x);
  free(d);
}
""")
    got = [(r.array, r.mode, tuple(s.text for s in r.subscripts), r.call, r.arg_index)
           for r in m.array_refs]
    assert got == [
        ("d", "write", (), "memset", 0),
        ("d", "write", (), "memcpy", 0), ("s", "read", (), "memcpy", 1),
        ("d", "write", ("1",), "memmove", 0), ("d", "read", (), "memmove", 1),
        ("name", "read", (), "printf", 2),
        ("d", "read", ("0",), None, None),
        ("argv", "read", ("1",), None, None),
    ]


def test_library_handles_are_not_arrays(model):
    """FILE *, streams: pointers to a system header's struct are handles, not program data."""
    m = model("""
#include <stdio.h>
void f(FILE *fp, double *a) {
  fprintf(fp, "%f\\n", a[0]);
  fclose(fp);
}
""")
    assert refs(m) == [("a", "read", ("0",))]


def test_deep_expressions_and_else_if_chains(model):
    terms = " + ".join(f"a[{k}]" for k in range(400))
    chain = "\n".join(f"  else if (c == {k}) a[{k}] = 1;" for k in range(250))
    m = model(f"double f(double *a, int c) {{\n  double s = {terms};\n  if (c < 0) s = 0;\n{chain}\n"
              "  return s;\n}\n")
    assert len(m.array_refs) == 650
    assert [r.conditional for r in m.array_refs] == [False] * 400 + [True] * 250


def test_struct_address_and_member_pointer_arguments(model):
    m = model("""
struct P { double *x; int n; };
void kick(struct P *ps);
void take(double *v, int n);
void f(void) {
  struct P p;
  kick(&p);
  take(p.x, p.n);
}
""")
    got = [(r.array, r.root, r.mode, r.call, r.arg_index) for r in m.array_refs]
    assert got == [("p", "p", "readwrite", "kick", 0), ("p.x", "p", "readwrite", "take", 0)]


# ---------------------------------------------------------------------------------------------
# Conditional accesses

def test_conditional(model):
    m = model("""
void f(double *a, int n, int c) {
  for (int i = 0; i < n; ++i)
    a[i] = 0;
  if (a[0] > 0)
    a[1] = 1;
  else
    a[2] = 2;
  switch ((int)a[3]) {
  case 1: a[4] = 1; break;
  default: a[5] = 2;
  }
  double x = c ? a[6] : a[7];
  int ok = a[8] > 0 && a[9] > 0;
  ok = ok || a[10] > 0;
  if (c) {
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; ++i) {
      a[i] += 1;
      if (i % 2) a[i] = x;
    }
  }
}
""")
    got = [(tuple(s.text for s in r.subscripts), r.conditional) for r in m.array_refs]
    assert got == [
        (("i",), False), (("0",), False), (("1",), True), (("2",), True),
        (("3",), False), (("4",), True), (("5",), True),
        (("6",), True), (("7",), True), (("8",), False), (("9",), True), (("10",), True),
        (("i",), False), (("i",), True),
    ]
    assert [r.directive for r in m.array_refs][-2:] == [0, 0]


# ---------------------------------------------------------------------------------------------
# Target regions

def test_directive_of_access(model):
    m = model("""
void f(double *a, double *b, int n) {
  #pragma omp target data map(tofrom: a[0:n]) map(to: b[0:n])
  {
    #pragma omp target
    #pragma omp teams distribute parallel for
    for (int i = 0; i < n; ++i)
      a[i] = b[i];
    a[0] = 1.0;
    #pragma omp target update to(a[0:1])
    #pragma omp target teams distribute parallel for map(from: b[0:n])
    for (int i = 0; i < n; ++i)
      b[i] = a[i];
  }
}
""")
    names = [d.name for d in m.directives]
    assert names == ["target data", "target", "teams distribute parallel for", "target update",
                     "target teams distribute parallel for"]
    got = [(r.array, r.mode, r.directive) for r in m.array_refs]
    assert got == [("a", "write", 1), ("b", "read", 1), ("a", "write", None),
                   ("b", "write", 4), ("a", "read", 4)]


def test_extract_accesses_without_directives():
    """Called directly without directives, everything is host code."""
    source = b"void f(double *a) {\n#pragma omp target\n a[0] = 1;\n}\n"
    path = "direct.c"
    from s2s.frontend.core.parse import parse_source

    parsed = parse_source(source, path)
    ctx = ExtractContext(path, parsed.source, parsed.primary)
    refs_, copies_ = extract_accesses(ctx)
    assert [(r.array, r.directive) for r in refs_] == [("a", None)] and copies_ == ()
    refs_, _ = extract_accesses(ctx, extract_directives(ctx))
    assert [(r.array, r.directive) for r in refs_] == [("a", 0)]


# ---------------------------------------------------------------------------------------------
# Pointer copies

def test_pointer_copies(model):
    m = model("""
#include <stdlib.h>
struct S { double *x; };
void f(double *result, double *a, double *b, int c, int n) {
  double *r = result;
  double *u = a, *unew = b, *tmp;
  r = result;
  tmp = u; u = unew; unew = tmp;
  double *q = a + 1;
  double *p = (double *)malloc(n * sizeof(double));
  p = c ? a : b;
  struct S s;
  s.x = p;
  q = &a[2];
  p += 2;
  q++;
  double x = 0; x = *p;
}
""")
    assert copies(m) == [
        ("r", "result", False), ("u", "a", False), ("unew", "b", False),
        ("r", "result", False), ("tmp", "u", False), ("u", "unew", False),
        ("unew", "tmp", False), ("q", "a", True), ("p", None, False), ("p", None, False),
        ("s.x", "p", False), ("q", "a", True), ("p", "p", True), ("q", "q", True),
    ]
    assert all(c.function == "f" for c in m.pointer_copies)
    assert m.pointer_copies[0].span.line == 5


# ---------------------------------------------------------------------------------------------
# Macros, templates, C++, CUDA

def test_macros_and_templates(model):
    m = model("""
#define AT(a, i) a[i]
#define IDX(i, j) ((i) * 8 + (j))
template <class T> void fill(T *a, int n) { for (int i = 0; i < n; ++i) a[i] = T(); }
void f(double *u, int k) {
  AT(u, k) = 2;
  u[IDX(k, 1)] = 3;
  fill(u, k);
}
""", "x.cpp")
    first, macro_arg, indexed, call = m.array_refs
    assert (first.array, first.mode, first.span.template) == ("a", "write", "fill")
    assert (macro_arg.array, macro_arg.mode, macro_arg.span.macro) == ("u", "write", "AT")
    assert [s.text for s in macro_arg.subscripts] == ["k"]
    # the literal 8 is written only in the macro's body: the subscript is rendered with clang's
    # value of it (omp28r, TeaLeaf's stencil macros), the span still names the macro
    assert indexed.subscripts[0].text == "((k) * 8 + (1))" and indexed.subscripts[0].span.macro == "IDX"
    assert (call.array, call.call, call.mode) == ("u", "fill", "readwrite")


def test_cplusplus_references_and_methods(model):
    m = model("""
struct V {
  double *x;
  double get(int i) const { return x[i]; }
};
void f(V *pv, double *p) {
  double r = pv->get(1);
  double &w = p[1];
  const double &c = p[2];
  w = c + r;
}
""", "x.cpp")
    assert [(r.array, r.mode, r.function) for r in m.array_refs] == [
        ("x", "read", "get"), ("p", "readwrite", "f"), ("p", "read", "f")]


def test_cuda_host_code_only(model):
    m = model("""
__global__ void k(float *d, int n) { d[threadIdx.x] = 1.0f; }
void host(float *h, float *d, int n) {
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  k<<<1, 32>>>(d, n);
  h[0] = 2.0f;
}
""", "x.cu")
    got = [(r.array, r.mode, r.call, r.arg_index, r.function) for r in m.array_refs]
    assert got == [("d", "write", "cudaMemcpy", 0, "host"), ("h", "read", "cudaMemcpy", 1, "host"),
                   ("d", "readwrite", "k", 0, "host"), ("h", "write", None, None, "host")]


def test_source_order(model):
    m = model("""
void f(double *a, int *b, int *c, int i) { a[b[i]] = b[c[i]]; }
""")
    starts = [r.span.start for r in m.array_refs]
    assert starts == sorted(starts)
    assert [r.array for r in m.array_refs] == ["a", "b", "b", "c"]


# ---------------------------------------------------------------------------------------------
# Samples

def load_sample(name: str):
    from s2s.frontend.extract import load

    loaded = load(str(SAMPLES / name / f"{name}.c"))
    assert loaded.ok
    return loaded.model


def test_sample_stencil_host_check():
    m = load_sample("stencil_host_check")
    assert [d.is_target_region for d in m.directives] == [True, True]
    device = [(r.array, r.mode) for r in m.array_refs if r.directive == 0]
    assert device[0] == ("unew", "write") and set(device[1:]) == {("u", "read")}
    assert {(r.array, r.mode) for r in m.array_refs if r.directive == 1} == {
        ("unew", "read"), ("u", "read")}
    probes = [r for r in m.array_refs if r.array == "unew" and r.directive is None and r.mode == "read"]
    assert len(probes) == 3 and all(r.conditional for r in probes)
    assert [(c.target, c.source) for c in m.pointer_copies][-3:] == [
        ("tmp", "u"), ("u", "unew"), ("unew", "tmp")]
    calls = [(r.array, r.call) for r in m.array_refs if r.call]
    assert calls == [("u", "set_boundary"), ("unew", "set_boundary")]


def test_sample_struct_of_arrays():
    m = load_sample("struct_of_arrays")
    main_device = {(r.array, r.root, r.mode) for r in m.array_refs
                   if r.function == "main" and r.directive is not None}
    assert {("p.x", "p", "write"), ("p.x", "p", "read"), ("p.vy", "p", "read")} <= main_device
    drift = [r for r in m.array_refs if r.function == "drift" and r.directive is not None]
    assert {r.array for r in drift} == {"ps->x", "ps->y", "ps->vx", "ps->vy"}
    assert any(r.conditional for r in drift) and not all(r.conditional for r in drift)
    assert [(c.target, c.source) for c in m.pointer_copies] == [
        ("p.x", None), ("p.y", None), ("p.vx", None), ("p.vy", None)]
    assert [(r.array, r.call) for r in m.array_refs if r.call] == [("p", "kick"), ("p", "drift")]


def test_sample_pointer_alias():
    m = load_sample("pointer_alias")
    assert ("r", "result", False) in copies(m)
    first_region = [(r.array, r.mode) for r in m.array_refs if r.directive == 0]
    assert first_region == [("r", "write"), ("input", "read")]
    host_writes = [(r.array, r.subscripts[0].text) for r in m.array_refs
                   if r.directive is None and r.mode == "write" and r.array == "r"]
    assert host_writes == [("r", "0"), ("r", "n - 1")]
    third = [r for r in m.array_refs if r.directive == 2]
    assert [(r.mode, r.conditional) for r in third] == [
        ("readwrite", False), ("read", True), ("read", True)]


# ---------------------------------------------------------------------------------------------
# Performance

def test_thousand_line_openmp_file_is_fast(tmp_path):
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from gen_big_cu import generate_openmp
    finally:
        sys.path.remove(str(REPO / "scripts"))
    path = tmp_path / "big.c"
    path.write_text(generate_openmp(1000))
    parsed = parse_file(str(path))
    ctx = ExtractContext(str(path), parsed.source, parsed.primary)
    ctx.nodes()
    directives = extract_directives(ctx)
    start = time.perf_counter()
    found, _ = extract_accesses(ctx, directives)
    elapsed = time.perf_counter() - start
    assert len(found) > 300
    assert elapsed < 1.0, elapsed  # measured ~0.05 s; the budget is 0.3 s


def test_index_written_through_a_macro_is_expanded(load_source):
    """Stencil codes index through macros; the analysis needs the arithmetic, not the call."""
    loaded = load_source(
        "#define IDX(r, c) ((r) * ld + (c))\n"
        "double f(double *u, int n, int ld) { return u[IDX(n / 8, n / 2 + 1)] + u[IDX(1, 3)]; }\n",
        name="m.c")
    refs = [r for r in loaded.model.array_refs if r.array == "u"]
    assert [r.subscripts[0].text for r in refs] == ["((n / 8) * ld + (n / 2 + 1))",
                                                    "((1) * ld + (3))"]
    assert all(r.subscripts[0].span.macro == "IDX" for r in refs)
