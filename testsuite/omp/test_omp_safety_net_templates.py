"""The safety net inside templates and through struct members (issue 28, item 1).

A class template's kernels (BabelStream's shape: ``T *a = this->a;`` then a target construct
over ``std::intptr_t i < length``) are mapped per construct in the template's own text: the
clauses name only variables of the pattern, which every instantiation evaluates with its own
types and values, so the one edit is right for all of them. Each program is rewritten in
memory, run before and after on clang-16 host offload with two instantiations, and must print
the same with no unmapped pointer left.
"""

from __future__ import annotations

from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source, run_both

# methods defined in the class (the directives sit inside the class template's cursor), a
# counter of type std::intptr_t, instantiations for float and double from main; result()
# hands out a member pointer, so the members are not mapped over each object's lifetime
IN_CLASS = """#include <cstdint>
#include <cstdio>
#include <cstdlib>

template <typename T>
class Pair {
public:
    explicit Pair(std::intptr_t n) : n_(n)
    {
        x_ = (T *)std::malloc(sizeof(T) * n);
        y_ = (T *)std::malloc(sizeof(T) * n);
        for (std::intptr_t i = 0; i < n; i++) { x_[i] = (T)(i % 5); y_[i] = (T)1; }
    }
    ~Pair() { std::free(x_); std::free(y_); }
    void axpy(T alpha)
    {
        std::intptr_t n = this->n_;
        T *x = this->x_;
        T *y = this->y_;
#pragma omp target teams distribute parallel for
        for (std::intptr_t i = 0; i < n; i++)
            y[i] = alpha * x[i] + y[i];
    }
    const T *result() const { return y_; }
    std::intptr_t size() const { return n_; }
private:
    std::intptr_t n_;
    T *x_, *y_;
};

int main()
{
    Pair<float> f(1000);
    Pair<double> d(3000);
    for (int k = 0; k < 4; k++) { f.axpy(0.5f); d.axpy(0.25); }
    double s = 0.0;
    for (std::intptr_t i = 0; i < f.size(); i++) s += f.result()[i];
    for (std::intptr_t i = 0; i < d.size(); i++) s += d.result()[i] * 0.5;
    std::printf("%.6f\\n", s);
    return 0;
}
"""


def test_a_class_template_is_mapped_per_construct_for_every_instantiation(load_source,
                                                                          tmp_path):
    rewritten, out = rewrite_source(load_source, IN_CLASS)
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 1 and counts["left unmapped"] == 0, \
        [d.message for d in out.diagnostics]
    assert "#pragma omp target teams distribute parallel for map(to: x[0:n]) " \
        "map(tofrom: y[0:n])" in rewritten, rewritten
    original, new = run_both(tmp_path, IN_CLASS, rewritten, suffix=".cpp")
    assert original.unmapped and new.unmapped == ()
    assert new.returncode == 0 and new.stdout == original.stdout


# XSBench's shape: a struct of pointers passed by value, its lengths set where it is built,
# members passed on to a device function and read at data-dependent indices (no range from
# the kernel's loops): each member's whole storage, with the length kept beside it, and the
# scalar member the kernel reads
BY_VALUE = """#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double *table;
    int *index;
    int len_table, len_index, stride;
} Data;

static Data build(int n)
{
    Data d;
    d.stride = 3;
    d.len_table = n * d.stride;
    d.len_index = n;
    d.table = (double *)malloc(d.len_table * sizeof(double));
    d.index = (int *)malloc(d.len_index * sizeof(int));
    for (int i = 0; i < d.len_table; i++) d.table[i] = (i % 13) * 0.5;
    for (int i = 0; i < d.len_index; i++) d.index[i] = (i * 7) % n;
    return d;
}

#pragma omp declare target
static double pick(const double *table, int k, int stride)
{
    return table[k * stride] + table[k * stride + stride - 1];
}
#pragma omp end declare target

static double lookups(Data d, int m)
{
    double *out = (double *)malloc(m * sizeof(double));
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < m; i++)
        out[i] = pick(d.table, d.index[(i * 31) % d.len_index], d.stride);
    double s = 0.0;
    for (int i = 0; i < m; i++) s += out[i];
    free(out);
    return s;
}

int main(void)
{
    Data d = build(500);
    printf("%.3f %.3f\\n", lookups(d, 2000), lookups(d, 300));
    free(d.table); free(d.index);
    return 0;
}
"""


def test_struct_members_by_value_are_mapped_whole_with_their_lengths(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, BY_VALUE, name="prog.c")
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 1 and counts["left unmapped"] == 0, \
        [d.message for d in out.diagnostics]
    assert "map(to: d.index[0:d.len_index], d.table[0:d.len_table], d.len_index, d.stride) " \
        "map(from: out[0:m])" in rewritten, rewritten
    original, new = run_both(tmp_path, BY_VALUE, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()


def test_a_length_changed_after_the_allocation_is_not_trusted(load_source):
    """``d.len_table`` written again in main (not where the member is allocated): the count
    may no longer be the storage's, so the member is left, with the reason."""
    changed = BY_VALUE.replace("    Data d = build(500);\n",
                               "    Data d = build(500);\n    d.len_table -= 3;\n")
    _, out = rewrite_source(load_source, changed, name="prog.c")
    left = [d.message for d in out.diagnostics if d.id == "omp-left-unmapped"]
    assert dict(out.counts)["left unmapped"] == 1 and "'d.table'" in left[0], left
    assert "count of the storage of 'd.table' is not known" in left[0]


# The Parallel Research Kernels' allocation (issue 28, 3b): a posix_memalign wrapper
# returning void *, called with a byte count held in a local; the helper counts bytes, each
# call's argument gives the count in its target's elements
ALIGNED = """#include <stdio.h>
#include <stdlib.h>

static inline void *bench_malloc(size_t bytes)
{
    void *ptr = NULL;
    int ret = posix_memalign(&ptr, 64, bytes);
    if (ret != 0) ptr = NULL;
    return ptr;
}

int main(int argc, char **argv)
{
    size_t length = argc > 1 ? (size_t)atol(argv[1]) : 5000;
    size_t bytes = length * sizeof(double);
    double *A = bench_malloc(bytes);
    double *B = (double *)bench_malloc(sizeof(double) * length);
    for (size_t i = 0; i < length; i++) { A[i] = 0.0; B[i] = 2.0; }
    for (int iter = 0; iter <= 10; iter++) {
        #pragma omp target teams distribute parallel for
        for (size_t i = 0; i < length; i++)
            A[i] += B[i] + 3.0;
    }
    double asum = 0.0;
    for (size_t i = 0; i < length; i++) asum += A[i];
    printf("%.3f\\n", asum);
    free(A); free(B);
    return 0;
}
"""


def test_a_posix_memalign_wrapper_is_followed_as_an_allocation(load_source, tmp_path):
    loaded = load_source(ALIGNED, name="prog.c")
    counts = {a.name: a.count.text for a in loaded.model.allocations if a.count is not None}
    assert counts["A"] == "length" and counts["B"] == "length", counts
    rewritten, out = rewrite_source(load_source, ALIGNED, name="prog.c")
    assert dict(out.counts)["target regions mapped"] == 1, [d.message for d in out.diagnostics]
    assert "#pragma omp target data map(to: B[0:length]) map(tofrom: A[0:length])" in rewritten
    original, new = run_both(tmp_path, ALIGNED, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    assert new.copies.total_bytes == 3 * 5000 * 8     # A in and out, B in: once each


# a function template whose array parameter's type is a template parameter: a pointer in
# the instantiations main makes, so the construct uses an unmapped pointer at run time
DEPENDENT = """#include <cstdio>
#include <cstdlib>
template <typename P>
void twice(P a, int n)
{
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
        a[i] = 2 * a[i];
}
int main()
{
    int n = 100;
    double *d = (double *)std::malloc(n * sizeof(double));
    float *f = (float *)std::malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) { d[i] = i; f[i] = i; }
    twice(d, n);
    twice(f, n);
    std::printf("%f %f\\n", d[n - 1], (double)f[n - 2]);
    std::free(d); std::free(f);
    return 0;
}
"""


def test_a_dependent_array_type_is_counted_as_left(load_source, tmp_path):
    """The summary used to say '1 target regions mapped, 0 left' over an unmapped pointer."""
    rewritten, out = rewrite_source(load_source, DEPENDENT)
    counts = dict(out.counts)
    assert counts["left unmapped"] == 1 and counts["target regions mapped"] == 0, counts
    left = [d.message for d in out.diagnostics if d.id == "omp-left-unmapped"]
    assert "'a' is not declared a pointer in template 'twice'" in left[0], left
    original, _ = run_both(tmp_path, DEPENDENT, rewritten, suffix=".cpp")
    assert omp_harness.unmapped_constructs(original) == counts["left unmapped"]


def test_a_string_literal_argument_does_not_refuse_the_callers_plan(load_source):
    """``scale("x", a, n)``: the literal is no array of the program (issue 28, 3f); main's
    plan used to be refused ('the pointer argument '"x"' ... is not one array')."""
    program = """#include <stdio.h>
#include <stdlib.h>
static void scale(const char *label, double *a, int n)
{
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
        a[i] *= 2.0;
    printf("%s %.1f\\n", label, a[n - 1]);
}
int main(void)
{
    int n = 64;
    double *a = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) a[i] = i;
    for (int k = 0; k < 3; k++)
        scale("step" "s", a, n);
    free(a);
    return 0;
}
"""
    _, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["target regions mapped"] == 1, [d.message for d in out.diagnostics]
    assert not any("is not one array" in d.message for d in out.diagnostics)
