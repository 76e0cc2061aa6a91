"""Host extraction: allocations (malloc family, new[], static arrays, VLAs) and function bodies
as Stmt trees (loops, branches, jumps, calls, OpenMP directive links)."""

from __future__ import annotations

import pytest
from conftest import sample_dirs, sample_meta

from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.parse import parse_source
from s2s.frontend.core.toolchain import default_toolchain
from s2s.frontend.host.allocators import extract_allocations
from s2s.frontend.host.functions import extract_functions
from s2s.model.openmp import OmpDirective


@pytest.fixture
def model(load_source):
    """The frozen model of an in-memory source; fails on libclang errors."""

    def _model(text: str, name: str = "x.c"):
        loaded = load_source(text, name)
        errors = [d.message for d in loaded.diagnostics if d.is_error]
        assert loaded.ok, errors
        return loaded.model

    return _model


def context(text: str, name: str = "x.c") -> ExtractContext:
    parsed = parse_source(text, name)
    assert not parsed.has_errors, [d.message for d in parsed.diagnostics]
    return ExtractContext(name, parsed.source, parsed.primary)


def allocs(m) -> dict:
    return {(a.name, a.kind): a for a in m.allocations}


def body(m, name: str):
    function = m.function(name)
    assert function is not None, [f.name for f in m.functions]
    return function.body


def call_names(stmt) -> list[str]:
    return [c.name for c in stmt.calls]


# ---------------------------------------------------------------------------------------------
# Allocations

MALLOC_FORMS = """\
#include <stdlib.h>
struct S { double *x; float *v; int n; double inner[4]; };
void f(int n, int nx, int ny, struct S s, struct S *p) {
  double *a = (double *)malloc(n * sizeof(double));
  float *b;
  b = malloc(sizeof(float) * n);
  int *c = malloc(sizeof *c * n);
  long *d = calloc(n, sizeof(long));
  d = realloc(d, 2 * n * sizeof(long));
  double *e = aligned_alloc(64, nx * ny * sizeof(double));
  double *q;
  posix_memalign((void **)&q, 64, n * sizeof(double));
  s.x = (double *)malloc(sizeof(double) * n * 3);
  p->v = malloc(n * sizeof(float) * ny);
  void *raw = malloc(n * sizeof(short));
  size_t bytes = n * sizeof(double);
  double *g = malloc(bytes);
  free(a); free(b); free(c); free(d); free(e); free(q); free(raw); free(g);
}
double *helper(int n) { return malloc(n * sizeof(double)); }
"""


def test_malloc_family_kinds_names_counts_and_sizes(model):
    found = allocs(model(MALLOC_FORMS))
    expect = {
        ("a", "malloc"): ("double", "n", "n * sizeof(double)"),
        ("b", "malloc"): ("float", "n", "sizeof(float) * n"),
        ("c", "malloc"): ("int", "n", "sizeof *c * n"),
        ("d", "calloc"): ("long", "n", "n * sizeof(long)"),
        ("d", "realloc"): ("long", "2 * n", "2 * n * sizeof(long)"),
        ("e", "aligned_alloc"): ("double", "nx * ny", "nx * ny * sizeof(double)"),
        ("q", "posix_memalign"): ("double", "n", "n * sizeof(double)"),
        ("s.x", "malloc"): ("double", "n * 3", "sizeof(double) * n * 3"),
        ("p->v", "malloc"): ("float", "n * ny", "n * sizeof(float) * ny"),
        ("raw", "malloc"): ("short", "n", "n * sizeof(short)"),
        ("g", "malloc"): ("double", "n", "bytes"),  # through bytes' only definition
    }
    assert set(found) == set(expect)
    for key, (element, count, size) in expect.items():
        alloc = found[key]
        assert alloc.element_type == element, key
        assert (alloc.count.text if alloc.count else None) == count, key
        assert alloc.size_bytes.text == size, key
        assert alloc.function == "f"
        assert alloc.dims == ()


def test_malloc_spans_are_the_call_and_count_is_a_sub_expression(model):
    m = model(MALLOC_FORMS)
    source = MALLOC_FORMS.encode()
    found = allocs(m)
    a = found[("a", "malloc")]
    assert a.span.text(source) == "malloc(n * sizeof(double))"
    assert a.span.line == 4
    e = found[("e", "aligned_alloc")]
    assert e.count.span.text(source) == "nx * ny"  # a real sub-range, not synthesised text
    assert e.size_bytes.span.text(source) == "nx * ny * sizeof(double)"
    # sizeof in the middle: the factors are not contiguous, so the text is rebuilt
    assert found[("p->v", "malloc")].count.text == "n * ny"
    assert found[("d", "calloc")].size_bytes.span.text(source) == "n, sizeof(long)"


def test_new_array_forms(model):
    src = """\
#include <new>
#include <vector>
struct P { double *w; };
void g(int n, P &p) {
  double *a = new double[n];
  float *b = new (std::nothrow) float[n * 2]();
  p.w = new double[ n + 1 ];
  int *one = new int(3);
  std::vector<double> v(n);
  delete[] a; delete[] b; delete one;
}
"""
    found = allocs(model(src, "x.cpp"))
    # a std::vector is its own kind, counted by its size() (frontend.host.containers)
    assert set(found) == {("a", "new[]"), ("b", "new[]"), ("p.w", "new[]"), ("v", "vector")}
    assert found[("v", "vector")].count.text == "v.size()"
    assert found[("a", "new[]")].count.text == "n"
    assert found[("a", "new[]")].element_type == "double"
    assert found[("b", "new[]")].count.text == "n * 2"
    assert found[("b", "new[]")].element_type == "float"
    assert found[("p.w", "new[]")].count.text == "n + 1"
    assert all(a.size_bytes is None for a in found.values())


def test_static_arrays_globals_locals_and_multi_dim(model):
    src = """\
#define N 64
#define M 8
struct S { double field[4]; };
double g[N];
static float grid[N][M + 1];
int table[] = {1, 2, 3};
extern double ext[10];
typedef double vec3[3];
vec3 origin;
void f(double param[], int n) {
  static double weights[16];
  double local[4][2];
  double v[n];
  double tile[4][n];
  (void)param;
}
"""
    m = model(src)
    found = allocs(m)
    assert set(found) == {("g", "static_array"), ("grid", "static_array"),
                          ("table", "static_array"), ("origin", "static_array"),
                          ("weights", "static_array"), ("local", "static_array"),
                          ("v", "vla"), ("tile", "vla")}
    g = found[("g", "static_array")]
    assert (g.function, g.element_type, g.count.text, [d.text for d in g.dims]) == (
        None, "double", "N", ["N"])
    grid = found[("grid", "static_array")]
    assert [d.text for d in grid.dims] == ["N", "M + 1"]
    assert grid.count.text == "N * (M + 1)"
    assert grid.element_type == "float"
    assert found[("table", "static_array")].count.text == "3"
    assert found[("origin", "static_array")].count.text == "3"
    weights = found[("weights", "static_array")]
    assert (weights.function, weights.count.text) == ("f", "16")
    assert found[("local", "static_array")].count.text == "4 * 2"
    v = found[("v", "vla")]
    assert (v.function, v.count.text, v.element_type) == ("f", "n", "double")
    assert [d.text for d in found[("tile", "vla")].dims] == ["4", "n"]
    assert v.span.text(src.encode()) == "double v[n]"


def test_device_code_and_cuda_allocations_are_skipped(model):
    src = """\
#include <cstdlib>
__device__ float dev_table[32];
__constant__ float coeffs[8];
__global__ void k(float *x) {
  __shared__ float tile[64];
  float local[4];
  tile[threadIdx.x] = x[threadIdx.x];
  local[0] = tile[0];
  x[0] = local[0];
}
__device__ void helper() { float scratch[8]; scratch[0] = 0; }
__host__ __device__ void both() { float mixed[2]; mixed[0] = 0; }
int main() {
  int n = 256;
  float *h = (float *)malloc(n * sizeof(float));
  float *pinned;
  cudaMallocHost(&pinned, n * sizeof(float));
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  k<<<1, n>>>(d);
  free(h); cudaFreeHost(pinned); cudaFree(d);
  return 0;
}
"""
    found = allocs(model(src, "x.cu"))
    assert set(found) == {("mixed", "static_array"), ("h", "malloc")}
    assert found[("h", "malloc")].function == "main"


# ---------------------------------------------------------------------------------------------
# Functions and statements

LOOPS = """\
int work(int);
void loops(int n, const char *s) {
  int i = 0;
  for (;;) { if (i++ > 3) break; }
  for (; i < n;) i += 2;
  for (i = 0;;) { break; }
  for (;; i++) { if (i > n) break; }
  for (int j = 0; j < n; j++) work(j);
  for (i = work(0); i < work(n); i += work(1)) { work(i); }
  for (/* ; */ i = 0; s[i] != ';' && s[i] != '"'; /* ; */ i++) {}
  for (; int k = work(i); i--) work(k);
  while (i > 0) i--;
  do { i++; } while (i < n);
  do i--; while (work(i));
}
"""


def test_for_header_shapes(model):
    stmts = [s for s in body(model(LOOPS, "x.cpp"), "loops").children if s.kind == "for"]
    shapes = [(s.init.span.text(LOOPS.encode()) if s.init else None,
               s.cond.text if s.cond else None,
               s.step.text if s.step else None) for s in stmts]
    assert shapes == [
        (None, None, None),
        (None, "i < n", None),
        ("i = 0", None, None),
        (None, None, "i++"),
        ("int j = 0;", "j < n", "j++"),
        ("i = work(0)", "i < work(n)", "i += work(1)"),
        ("i = 0", "s[i] != ';' && s[i] != '\"'", "i++"),
        (None, "int k = work(i)", "i--"),
    ]
    assert all(s.body is not None for s in stmts)
    assert [s.init.kind for s in stmts if s.init] == ["expr", "decl", "expr", "expr"]
    assert stmts[0].body.kind == "block"
    assert stmts[1].body.kind == "expr" and stmts[1].body.span.text(LOOPS.encode()) == "i += 2"


def test_for_calls_belong_to_the_header_and_body_calls_to_the_body(model):
    stmts = [s for s in body(model(LOOPS, "x.cpp"), "loops").children if s.kind == "for"]
    header = stmts[5]
    assert call_names(header) == ["work", "work", "work"]
    assert [c.args[0].text for c in header.calls] == ["0", "n", "1"]
    assert header.init.calls == ()
    assert call_names(header.body.children[0]) == ["work"]
    assert call_names(stmts[4]) == []
    assert call_names(stmts[4].body) == ["work"]
    assert call_names(stmts[7]) == ["work"]  # the condition variable's initialiser


def test_while_and_do_while(model):
    m = model(LOOPS, "x.cpp")
    stmts = body(m, "loops").children
    loop = next(s for s in stmts if s.kind == "while")
    assert loop.cond.text == "i > 0" and loop.body.kind == "expr"
    dos = [s for s in stmts if s.kind == "do"]
    assert [d.cond.text for d in dos] == ["i < n", "work(i)"]
    assert dos[0].body.kind == "block"
    assert dos[1].body.span.text(LOOPS.encode()) == "i--"
    assert call_names(dos[1]) == ["work"]
    assert len(m.function("loops").loops) == 11


BRANCHES = """\
int pick(int);
int branches(int n) {
  if (n < 0) return -1;
  if (n == 0) { n = pick(0); } else if (n == 1) n = 2; else { n = pick(n); }
  switch (pick(n)) {
    case 0:
    case 1:
      n++;
    case 2: {
      n += 2;
      break;
    }
    default:
      n = 0;
  }
  while (n > 10) {
    if (n % 2) { n--; continue; }
    n /= 2;
  }
  goto done;
  n = 5;
done:
  ;
  return n * pick(n);
}
"""


def test_if_else_chain(model):
    stmts = body(model(BRANCHES), "branches").children
    first, chain = stmts[0], stmts[1]
    assert (first.kind, first.cond.text, first.body.kind, first.orelse) == ("if", "n < 0", "return", None)
    assert first.body.cond.text == "-1"
    assert chain.cond.text == "n == 0"
    assert chain.body.kind == "block" and call_names(chain.body.children[0]) == ["pick"]
    elif_ = chain.orelse
    assert (elif_.kind, elif_.cond.text, elif_.body.kind) == ("if", "n == 1", "expr")
    assert elif_.orelse.kind == "block"
    assert call_names(elif_.orelse.children[0]) == ["pick"]


def test_switch_case_default_with_fallthrough(model):
    switch = body(model(BRANCHES), "branches").children[2]
    assert switch.kind == "switch" and switch.cond.text == "pick(n)"
    assert call_names(switch) == ["pick"]
    labels = switch.body.children
    assert [s.kind for s in labels] == ["case", "case", "default"]
    case0 = labels[0]
    assert case0.cond.text == "0"
    case1 = case0.children[0]  # case 0: case 1: n++;  (nested labels, then the statement)
    assert (case1.kind, case1.cond.text) == ("case", "1")
    assert case1.children[0].kind == "expr"
    assert case1.children[0].span.text(BRANCHES.encode()) == "n++"
    case2 = labels[1]
    assert case2.cond.text == "2"
    assert [s.kind for s in case2.children[0].children] == ["expr", "break"]
    assert labels[2].children[0].kind == "expr"
    assert len(model(BRANCHES).function("branches").branches) == 5


def test_jumps_labels_and_returns(model):
    stmts = body(model(BRANCHES), "branches").children
    loop = stmts[3]
    inner_if = loop.body.children[0]
    assert [s.kind for s in inner_if.body.children] == ["expr", "continue"]
    goto, label, ret = stmts[4], stmts[6], stmts[7]
    assert (goto.kind, goto.label) == ("goto", "done")
    assert (label.kind, label.label, [c.kind for c in label.children]) == ("label", "done", ["null"])
    assert (ret.kind, ret.cond.text, call_names(ret)) == ("return", "n * pick(n)", ["pick"])


def test_cxx_statements(model):
    src = """\
#include <vector>
int use(int);
struct Acc { int total = 0; void add(int v) { total += use(v); } };
int run(std::vector<int> &v) {
  int s = 0;
  for (int x : v) s += x;
  for (auto &x : v) { x = use(x); }
  if (int t = use(s); t > 0) s = t;
  if (int *p = &s) *p += 1;
  switch (int m = use(1); m) { case 1: break; default: break; }
  auto twice = [](int y) { return use(y) * 2; };
  Acc acc;
  acc.add(twice(3));
  try { s = use(s); } catch (...) { s = 0; }
  return s;
}
"""
    m = model(src, "x.cpp")
    stmts = body(m, "run").children
    r1, r2 = stmts[1], stmts[2]
    assert (r1.kind, r1.init.span.text(src.encode()), r1.cond.text, r1.body.kind) == (
        "range_for", "int x", "v", "expr")
    assert r1.calls == ()
    assert r2.init.span.text(src.encode()) == "auto &x"
    assert call_names(r2.body.children[0]) == ["use"]
    if_init, if_var, switch = stmts[3], stmts[4], stmts[5]
    assert (if_init.init.span.text(src.encode()), if_init.cond.text) == ("int t = use(s);", "t > 0")
    assert call_names(if_init) == ["use"]
    assert if_var.cond.text == "int *p = &s" and if_var.init is None
    assert switch.kind == "switch" and switch.cond.text == "m"
    decl_lambda, decl_acc, call, try_ = stmts[6], stmts[7], stmts[8], stmts[9]
    assert decl_lambda.kind == "decl" and decl_lambda.calls == ()  # the body runs later
    assert decl_acc.calls == ()  # implicit default constructor
    assert call_names(call) == ["add", "twice"]
    assert [a.text for a in call.calls[0].args] == ["twice(3)"]
    assert try_.kind == "other"
    assert [c.name for s in try_.walk() for c in s.calls] == ["use"]
    assert {f.name for f in m.functions} == {"add", "run"}


def test_calls_per_statement_exact_names(model):
    src = """\
#include <stdio.h>
#include <stdlib.h>
static int sq(int v) { return v * v; }
int apply(int (*fn)(int), int v) { return fn(v); }
int main(void) {
  int n = sq(3);
  printf("%d %d\\n", sq(n), apply(sq, n));
  n = abs(sq(n) - 3);
  return 0;
}
"""
    m = model(src)
    stmts = body(m, "main").children
    assert call_names(stmts[0]) == ["sq"]
    assert call_names(stmts[1]) == ["printf", "sq", "apply"]
    assert [a.text for a in stmts[1].calls[0].args] == ['"%d %d\\n"', "sq(n)", "apply(sq, n)"]
    assert call_names(stmts[2]) == ["abs", "sq"]
    assert call_names(body(m, "apply").children[0]) == ["fn"]
    assert [c.name for c in m.function("main").calls] == ["sq", "printf", "sq", "apply", "abs", "sq"]
    assert stmts[1].calls[1].span.text(src.encode()) == "sq(n)"


CUDA = """\
#include <cstdio>
__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
__device__ float twice(float v) { return 2 * v; }
__host__ __device__ inline int cdiv(int a, int b) { return (a + b - 1) / b; }
template <typename T> __global__ void fill(T *x, T v) { x[threadIdx.x] = v; }
template <typename T> void launch_fill(T *x, T v, int n) { fill<<<1, n>>>(x, v); }
int main() {
  int n = 1024;
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  scale<<<cdiv(n, 256), 256>>>(d, 2.0f, n);
  launch_fill<float>(d, 1.0f, n);
  cudaDeviceSynchronize();
  cudaFree(d);
  return 0;
}
"""


def test_kernels_excluded_host_device_included_templates_flagged(model):
    m = model(CUDA, "x.cu")
    functions = {f.name: f for f in m.functions}
    assert set(functions) == {"cdiv", "launch_fill", "main"}
    assert functions["launch_fill"].is_template
    assert functions["launch_fill"].span.template == "launch_fill"
    assert functions["launch_fill"].body.span.editable is False
    assert not functions["main"].is_template and functions["main"].span.template is None
    assert functions["cdiv"].return_type == "int"
    assert [p.name for p in functions["cdiv"].params] == ["a", "b"]


def test_kernel_launches_are_calls(model):
    m = model(CUDA, "x.cu")
    stmts = body(m, "main").children
    launch = stmts[3]
    assert call_names(launch) == ["scale", "cdiv"]
    assert [a.text for a in launch.calls[0].args] == ["d", "2.0f", "n"]
    assert launch.calls[0].span.text(CUDA.encode()) == "scale<<<cdiv(n, 256), 256>>>(d, 2.0f, n)"
    assert call_names(stmts[2]) == ["cudaMalloc"]
    templated = body(m, "launch_fill").children[0]
    assert call_names(templated) == ["fill"]
    assert [a.text for a in templated.calls[0].args] == ["x", "v"]
    assert all(c.name != "__cudaPushCallConfiguration" for c in m.function("main").calls)


def test_params_and_static(model):
    src = """\
static void kernel_like(const double *__restrict in, double *out, int n, double m[][4],
                        const float buf[]) {
  for (int i = 0; i < n; i++) out[i] = in[i] + m[i][0] + buf[i];
}
template <typename T> static T ident(T v) { return v; }
struct K { template <typename U> U conv(U u) const { return u; } void plain() {} };
template <typename V> struct Box { V get() { return V(); } void set(V v); V *p; };
template <typename V> void Box<V>::set(V v) { p = new V[1]; p[0] = v; }
int main() { return (int)ident(1) + K().conv(2); }
"""
    m = model(src, "x.cpp")
    f = m.function("kernel_like")
    assert f.is_static and not f.is_template and f.return_type == "void"
    params = {p.name: p for p in f.params}
    assert (params["in"].is_pointer, params["in"].pointee_const, params["in"].restrict) == (True, True, True)
    assert (params["out"].is_pointer, params["out"].pointee_const, params["out"].restrict) == (True, False, False)
    assert params["n"].is_pointer is False
    assert params["m"].is_pointer and params["buf"].pointee_const
    assert params["in"].span.text(src.encode()) == "const double *__restrict in"
    assert m.function("ident").is_static and m.function("ident").is_template
    assert m.function("conv").is_template and not m.function("plain").is_template
    assert m.function("get").is_template  # a member of a class template
    out_of_line = m.function("set")  # defined outside the class template's braces
    assert out_of_line.is_template and out_of_line.span.template == "Box"
    assert not out_of_line.body.children[0].span.editable
    (alloc,) = m.allocations
    assert (alloc.name, alloc.kind, alloc.span.template) == ("p", "new[]", "Box")
    assert not m.function("main").is_static


def test_directive_index_on_the_associated_statement(model):
    src = """\
void saxpy(int n, float a, const float *x, float *y) {
  #pragma omp target data map(to: x[0:n]) map(tofrom: y[0:n])
  {
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
      y[i] = a * x[i] + y[i];
    #pragma omp target
    #pragma omp teams distribute parallel for
    for (int i = 0; i < n; i++) y[i] += 1;
    #pragma omp target
    y[0] = 0;
  }
}
"""
    m = model(src)
    names = [d.name for d in m.directives]
    assert names == ["target data", "target teams distribute parallel for", "target",
                     "teams distribute parallel for", "target"]
    block = body(m, "saxpy").children[0]
    assert block.kind == "block" and block.directive == 0
    first, second, third = block.children
    assert (first.kind, first.directive) == ("for", 1)
    assert (second.kind, second.directive) == ("for", 3)  # stacked pragmas: the innermost
    assert (third.kind, third.directive) == ("expr", 4)
    assert first.body.directive is None and first.init.directive is None


def test_directive_index_from_hand_made_directives():
    src = """\
void f(int n, double *a) {
  for (int i = 0; i < n; i++) a[i] = 0;
  a[0] = 1;
}
"""
    ctx = context(src)
    loop_start = src.index("for (")
    expr_start = src.index("a[0] = 1")
    spans = [ctx.index.span(loop_start, src.index("a[i] = 0;") + 9),
             ctx.index.span(expr_start, expr_start + 9)]
    directives = tuple(OmpDirective(("target",), span, (), (), span, "f") for span in spans)
    (function,) = extract_functions(ctx, directives)
    loop, expr = function.body.children
    assert (loop.directive, expr.directive) == (0, 1)
    assert extract_functions(ctx)[0].body.children[0].directive is None


def test_else_if_chain_200_deep(model):
    arms = "\n".join(f"  else if (n == {k}) r = f({k});" for k in range(1, 200))
    src = f"int f(int);\nint g(int n) {{\n  int r = 0;\n  if (n == 0) r = 1;\n{arms}\n  else r = -1;\n  return r;\n}}\n"
    m = model(src)
    function = m.function("g")
    chain = function.body.children[1]
    depth = 0
    node = chain
    while node is not None and node.kind == "if":
        depth += 1
        last = node
        node = node.orelse
    assert depth == 200
    assert node.kind == "expr" and last.cond.text == "n == 199"
    assert len(function.branches) == 200
    assert len(function.calls) == 199


def test_deep_nesting_and_a_long_expression():
    loops = "".join(f"for (int i{k} = 0; i{k} < 2; i{k}++) {{\n" for k in range(120))
    src = ("int g(int);\nint f(void) {\n  int s = 0;\n" + loops + "s += g(1);\n" + "}\n" * 120
           + "  s = " + " + ".join(f"g({k})" for k in range(400)) + ";\n  return s;\n}\n")
    (function,) = [f for f in extract_functions(context(src)) if f.name == "f"]
    assert len(function.loops) == 120
    assert len(function.calls) == 401


def test_statements_from_macros():
    src = """\
#define CHECK(x) do { if ((x) != 0) return 1; } while (0)
#define LOOP(i, n) for (int i = 0; i < (n); i++)
int step(int);
int f(int n) {
  CHECK(step(n));
  LOOP(k, n) step(k);
  return 0;
}
"""
    ctx = context(src)
    kinds = [s.kind for s in extract_functions(ctx)[0].body.children]
    assert kinds == ["do", "for", "return"]
    loop = extract_functions(ctx)[0].body.children[1]
    # The header comes from the macro (no parenthesised text to scan): placed by kinds.
    assert loop.init.kind == "decl" and loop.init.span.macro == "LOOP"
    assert loop.cond.span.macro == "LOOP" and loop.step.span.macro == "LOOP"
    assert call_names(loop.body) == ["step"] and loop.body.span.editable


def test_host_extraction_of_a_1000_line_file_is_fast():
    chunk = """\
static double helper{k}(const double *a, int n) {{
  double s = 0;
  for (int i = 0; i < n; ++i) {{
    if (a[i] > 0) s += a[i]; else if (a[i] < -1) s -= a[i]; else continue;
  }}
  switch (n) {{ case 0: return 0; case 1: s += 1; default: break; }}
  return s;
}}
void run{k}(int n) {{
  double *d = (double *)calloc(n, sizeof(double));
  double t[64];
  for (int it = 0; it < 10; it++) {{
    #pragma omp target teams distribute parallel for map(tofrom: d[0:n])
    for (int i = 0; i < n; i++) d[i] += it;
    t[it] = helper{k}(d, n);
  }}
  printf("%f %f\\n", d[0], t[0]);
  free(d);
}}
"""
    src = "#include <stdio.h>\n#include <stdlib.h>\n" + "".join(chunk.format(k=k) for k in range(55))
    assert src.count("\n") > 1000
    ctx = context(src)
    found = extract_allocations(ctx)
    functions = extract_functions(ctx)
    assert len(found) == 110 and len(functions) == 110


# ---------------------------------------------------------------------------------------------
# Samples

SAMPLES = [d for language in ("cuda", "openmp") for d in sample_dirs(language)]


@pytest.mark.slow
@pytest.mark.skipif(not SAMPLES, reason="no samples/ in this checkout")
@pytest.mark.parametrize("directory", SAMPLES, ids=lambda d: f"{d.parent.name}/{d.name}")
def test_sample_functions_have_bodies_and_main(load_source, directory):
    meta = sample_meta(directory)
    names = []
    for source in meta.get("sources", []):
        path = directory / source
        # The bundled CUDA shim parses ~2x faster than the toolkit headers; host structure is
        # the same either way.
        loaded = load_source(path.read_text(), str(path), toolchain=default_toolchain(None))
        assert loaded.ok, [d.message for d in loaded.diagnostics if d.is_error]
        for function in loaded.model.functions:
            assert function.body is not None and function.body.kind == "block", function.name
            names.append(function.name)
    assert "main" in names


DISPATCH = """
typedef void (*kernel_t)(int, double *);
static void none(int n, double *a) { (void)n; (void)a; }
static void star1(int n, double *a) {
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; i++) a[i] += 1.0;
}
static void star2(int n, double *a) { for (int i = 0; i < n; i++) a[i] += 2.0; }
static kernel_t pick(int r) { return r ? star1 : star2; }
void run(int r, int n, double *a) {
    kernel_t apply = none;
    switch (r) {
    case 1: apply = star1; break;
    case 2: apply = &star2; break;
    }
    apply(n, a);
    kernel_t once;
    once = star2;
    once(n, a);
    kernel_t other = star1;
    other = pick(r);
    other(n, a);
    kernel_t shared = star1;
    kernel_t *where = &shared;
    shared(n, a);
    (void)where;
    kernel_t either = r > 1 ? star2 : &none;
    either(n, a);
}
"""


def test_calls_through_a_switch_assigned_function_pointer_list_its_targets(model):
    """A local function pointer given only functions (initializer, ``=`` in a switch, ``&f``,
    the arms of ``?:``)
    and otherwise only called: the call names the pointer and lists the functions it may
    reach; given exactly one, the call is that function's. Given a call's result or with
    its address taken, it may hold anything: no targets."""
    m = model(DISPATCH)
    calls = {c.name: c for s in body(m, "run").walk() for c in s.calls}
    assert calls["apply"].targets == ("none", "star1", "star2")
    assert "once" not in calls and calls["star2"].targets == ()
    assert calls["other"].targets == () and calls["shared"].targets == ()
    assert calls["either"].targets == ("none", "star2")  # both arms of ``?:``
    taken = {r.name for r in m.function_refs}
    assert taken == {"star1", "star2"}  # pick's return values and other/shared's initializers
