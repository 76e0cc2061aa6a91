"""The safety net inside templates and through struct members (issue 28, item 1).

A class template's kernels (BabelStream's shape: ``T *a = this->a;`` then a target construct
over ``std::intptr_t i < length``) are mapped per construct in the template's own text: the
clauses name only variables of the pattern, which every instantiation evaluates with its own
types and values, so the one edit is right for all of them. Each program is rewritten in
memory, run before and after on clang-16 host offload with two instantiations, and must print
the same with no unmapped pointer left.
"""

from __future__ import annotations

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
