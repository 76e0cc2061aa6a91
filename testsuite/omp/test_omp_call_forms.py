"""Device work reached through the call forms benchmark codes use (issue 17, item 6): a
local function pointer (``op = axpy; op(y, x, n)``), a generic wrapper that calls its
callable parameter with a forwarded pack (``bench(repeat, kernel, args...)``), and a
function template that owns its arrays. Each program runs before and after on clang-16 host
offload: same output, no unmapped pointer, and the copies of one data region."""

from __future__ import annotations

from s2s.diagnostics import Severity
from testsuite.omp.omp_runs import rewrite_source, run_both

AXPY = """#include <cstdio>
#include <cstdlib>

static void axpy(double *y, const double *x, int n)
{
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i)
        y[i] += 0.5 * x[i];
}

static void decay(double *y, const double *x, int n)
{
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i)
        y[i] = y[i] * 0.99 + x[i] * 1e-3;
}
"""

POINTER_AND_WRAPPER = AXPY + """
template <typename F, typename... Args>
void bench(int repeat, F kernel, Args... args)
{
    for (int r = 0; r < repeat; ++r)
        kernel(args...);
}

int main()
{
    const int n = 4096;
    double *x = (double *)malloc(n * sizeof(double));
    double *y = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; ++i) {
        x[i] = i * 0.001;
        y[i] = 1.0;
    }
    void (*op)(double *, const double *, int) = axpy;
    for (int r = 0; r < 5; ++r)
        op(y, x, n);
    bench(20, decay, y, x, n);
    bench(3, &axpy, y, x, n);
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += y[i] * (i % 5);
    std::printf("%.6f\\n", s);
    free(x);
    free(y);
    return 0;
}
"""

# The pointer is reassigned (a choice of two): it may reach either function, and nothing
# else (issue 28: PRK stencil's ``stencil = star1`` ... in a switch): each call is followed
# into both.
REASSIGNED = POINTER_AND_WRAPPER.replace(
    "        op(y, x, n);\n",
    "        op(y, x, n);\n    op = n > 100 ? decay : &axpy;\n    op(y, x, n);\n")

# The pointer is given what a function returns: it may hold anything, so the call stays
# unknown (a host access of its arguments) and the kernels get a mapping of their own, said.
ESCAPING = POINTER_AND_WRAPPER.replace(
    "int main()\n", "typedef void (*op_t)(double *, const double *, int);\n"
    "static op_t choose(int k) { return k ? decay : axpy; }\n\nint main()\n").replace(
    "        op(y, x, n);\n", "        op(y, x, n);\n    op = choose(1);\n    op(y, x, n);\n")

TEMPLATE_OWNER = """#include <cstdio>
#include <cstdlib>

template <typename T>
void run(int n, int repeat)
{
    T *a = (T *)malloc(n * sizeof(T));
    T *b = (T *)malloc(n * sizeof(T));
    for (int i = 0; i < n; ++i) {
        a[i] = (T)(i % 13);
        b[i] = 0;
    }
    for (int r = 0; r < repeat; ++r) {
#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; ++i)
            b[i] = a[i] * (T)2 + b[i];
#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; ++i)
            a[i] = b[i] * (T)0.5;
    }
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += (double)b[i];
    std::printf("%d %.3f\\n", (int)sizeof(T), s);
    free(a);
    free(b);
}

int main()
{
    run<float>(1000, 10);
    run<double>(1500, 10);
    return 0;
}
"""


def test_function_pointer_and_generic_wrapper_calls_are_followed(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, POINTER_AND_WRAPPER)
    main = rewritten[rewritten.index("int main"):]
    assert "#pragma omp target enter data map(to: y[0:n], x[0:n])" in main
    assert "#pragma omp target exit data map(from: y[0:n]) map(release: x[0:n])" in main
    assert main.index("enter data") < main.index("op(y, x, n)") < \
        main.index("bench(3, &axpy") < main.index("exit data")
    assert not [d for d in out.diagnostics if d.severity is Severity.WARNING]
    original, new = run_both(tmp_path, POINTER_AND_WRAPPER, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert len(original.unmapped) == 2 * (5 + 20 + 3) and new.unmapped == ()
    assert (new.copies.h2d_bytes, new.copies.d2h_bytes) == (2 * 4096 * 8, 4096 * 8)


def test_a_reassigned_function_pointer_is_followed_into_each_function(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, REASSIGNED)
    main = rewritten[rewritten.index("int main"):]
    assert "#pragma omp target enter data map(to: y[0:n], x[0:n])" in main
    assert main.index("enter data") < main.index("op = n > 100") < main.index("exit data")
    assert not [d for d in out.diagnostics if d.severity is Severity.WARNING]
    original, new = run_both(tmp_path, REASSIGNED, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert len(original.unmapped) == 2 * (5 + 1 + 20 + 3) and new.unmapped == ()
    assert (new.copies.h2d_bytes, new.copies.d2h_bytes) == (2 * 4096 * 8, 4096 * 8)


def test_a_function_pointer_given_a_call_result_is_not_followed(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, ESCAPING)
    warnings = [d for d in out.diagnostics if d.severity is Severity.WARNING]
    # the kernels reached only through the reassigned pointer are mapped per construct
    # (issue 28's safety net), and said so
    assert any(d.id == "omp-per-construct" and "function pointer" in d.message
               for d in warnings)
    assert not any(d.id == "omp-left-unmapped" for d in warnings)
    original, new = run_both(tmp_path, ESCAPING, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert original.unmapped and new.unmapped == ()


def test_a_function_template_owning_its_arrays_is_mapped(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, TEMPLATE_OWNER)
    assert "#pragma omp target data map(to: a[0:n]) map(tofrom: b[0:n])" in rewritten
    assert not [d for d in out.diagnostics if d.severity is Severity.WARNING]
    original, new = run_both(tmp_path, TEMPLATE_OWNER, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert len(original.unmapped) > 0 and new.unmapped == ()
    # float: 1000 elements x 4 bytes, double: 1500 x 8; a and b in, b out
    assert new.copies.h2d_bytes == 2 * (1000 * 4 + 1500 * 8)
    assert new.copies.d2h_bytes == 1000 * 4 + 1500 * 8
