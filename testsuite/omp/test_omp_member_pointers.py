"""Raw pointer members mapped over each object's lifetime (omp.member_pointers, omp.lifetime).

A class that allocates ``u_(new double[n])`` or ``f_ = (double *)malloc(...)`` in its
constructor keeps that storage mapped from the constructor's end (``to``, or ``alloc`` for
storage the constructor leaves undefined) to the destructor's start (release, before the
``delete[]``/``free``), with the section ``[0:n_]`` of the field holding the count. Each
program runs before and after on clang-16 host offload: same output, no unmapped pointer,
the bytes counted exactly. Where the pointer may move or escape, or the count is not held
in a field, the members keep their per-call mapping and ``--explain`` says why."""

from __future__ import annotations

import pytest

from testsuite.omp.omp_runs import check_mapped_per_call, rewrite_source, run_both

HEAT = """#include <cstdio>
#include <cstdlib>

class Heat {
public:
    explicit Heat(int n) : n_(n), u_(new double[n]), w_(new double[n])
    {
        f_ = (double *)std::malloc(n * sizeof(double));
        for (int i = 0; i < n; ++i) {
            u_[i] = (i % 13) * 0.5;
            w_[i] = 0.25 + (i % 3) * 0.01;
        }
    }
    ~Heat()
    {
        delete[] u_;
        delete[] w_;
        std::free(f_);
    }
    void forces()
    {
        const double *u = u_, *w = w_;
        double *f = f_;
        const int n = n_;
#pragma omp target teams distribute parallel for map(to: u[0:n], w[0:n]) map(from: f[0:n])
        for (int i = 0; i < n; ++i)
            f[i] = w[i] * (u[i > 0 ? i - 1 : i] - 2.0 * u[i] + u[i + 1 < n ? i + 1 : i]);
    }
    void update(double dt)
    {
        double *u = u_;
        const double *f = f_;
        const int n = n_;
#pragma omp target teams distribute parallel for map(tofrom: u[0:n]) map(to: f[0:n])
        for (int i = 0; i < n; ++i)
            u[i] += dt * f[i];
    }
    void advance(double dt)
    {
        forces();
        update(dt);
    }
    double sample(int i) const { return u_[i]; }
    double checksum() const
    {
        double s = 0.0;
        for (int i = 0; i < n_; ++i)
            s += u_[i] * (i % 5);
        return s;
    }

private:
    int n_;
    double *u_, *w_;
    double *f_;
};

int main()
{
    Heat h(5000);
    for (int step = 0; step < 25; ++step) {
        h.advance(0.05);
        if (step % 10 == 9)
            std::printf("step %d: %.9f\\n", step, h.checksum());
    }
    std::printf("%.9f %.9f\\n", h.checksum(), h.sample(17));
    return 0;
}
"""


def test_pointer_members_are_entered_by_the_constructor_and_released_by_the_destructor(
        load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, HEAT)
    constructor = rewritten[rewritten.index("explicit Heat"):rewritten.index("~Heat")]
    assert "auto s2s_u_ = u_;" in constructor
    assert "#pragma omp target enter data map(to: s2s_u_[0:n_], s2s_w_[0:n_])" in constructor
    assert "#pragma omp target enter data map(alloc: s2s_f_[0:n_])" in constructor
    destructor = rewritten[rewritten.index("~Heat"):rewritten.index("void forces")]
    assert destructor.index("exit data map(release: s2s_u_[0:n_]") < \
        destructor.index("delete[] u_")
    assert "target data" not in rewritten and "s2s_" not in rewritten[rewritten.index("int main"):]
    original, new = run_both(tmp_path, HEAT, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    # u_ and w_ in once (f_ only allocated); u_ back at each of 4 host reads (2 checksums in
    # the loop, the last checksum, sample)
    assert new.copies.h2d_bytes == 2 * 5000 * 8
    assert new.copies.d2h_bytes == 4 * 5000 * 8
    assert original.copies.total_bytes > 20 * new.copies.total_bytes
    again, second = rewrite_source(load_source, rewritten)
    assert again == rewritten


# The allocations in the constructor's body sized by the count field, with new[] (with and
# without an initializer); no destructor (one is added: the release alone); two objects of
# different sizes.
BODY = HEAT.replace(
    "    explicit Heat(int n) : n_(n), u_(new double[n]), w_(new double[n])\n    {\n"
    "        f_ = (double *)std::malloc(n * sizeof(double));\n",
    "    explicit Heat(int n) : n_(n)\n    {\n        u_ = new double[n_];\n"
    "        w_ = new double[n_]();\n        f_ = new double[n_];\n"
).replace("""    ~Heat()
    {
        delete[] u_;
        delete[] w_;
        std::free(f_);
    }
""", "").replace("    Heat h(5000);\n", "    Heat h(5000), g(1200);\n").replace(
    "        h.advance(0.05);\n", "        h.advance(0.05);\n        g.advance(0.02);\n").replace(
    "h.checksum(), h.sample(17));", "h.checksum(), g.checksum());")


def test_allocations_in_the_constructor_body_and_an_added_destructor(load_source, tmp_path):
    assert "new double[n_]" in BODY and "~Heat" not in BODY
    rewritten, out = rewrite_source(load_source, BODY)
    assert "public:\n    ~Heat()\n    {\n" in rewritten
    # f_ has no initializer and the constructor leaves it alone; w_ is value-initialised
    assert "#pragma omp target enter data map(alloc: s2s_f_[0:n_])" in rewritten
    original, new = run_both(tmp_path, BODY, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.h2d_bytes == 2 * (5000 + 1200) * 8
    # h: 2 checksums in the loop and the last; g: its last checksum
    assert new.copies.d2h_bytes == 3 * 5000 * 8 + 1200 * 8


# Each keeps the pointers from being mapped per object; they are mapped per call instead
# (still right, and said).
REFUSED = {
    "accessor": (("    double sample(int i) const { return u_[i]; }",
                  "    double sample(int i) const { return u_[i]; }\n"
                  "    const double *data() const { return u_; }"),
                 ("h.sample(17));", "h.data()[17]);"), "'u_' is handed out at"),
    "reference": (("    double sample(int i) const { return u_[i]; }",
                   "    double sample(int i) const { return u_[i]; }\n"
                   "    double &at(int i) { double *p = u_; return p[i]; }"),
                  ("    Heat h(5000);\n", "    Heat h(5000);\n    h.at(3) = 7.5;\n"),
                  "'u_' is handed out at"),
    "reassigned": (("    void advance(double dt)\n    {\n        forces();\n        update(dt);\n",
                    "    void advance(double dt)\n    {\n        forces();\n        update(dt);\n"
                    "        double *t = u_;\n        u_ = w_;\n        w_ = t;\n"),
                   None, "'u_' is assigned at"),
    "freed early": (("    double sample(int i) const",
                     "    void drop() { delete[] w_; }\n    double sample(int i) const"),
                    None, "'w_' is freed at"),
    "count not held": (("u_(new double[n])", "u_(new double[n + 0])"), None,
                       "is not held in a field"),
    "count written": (("    double sample(int i) const",
                       "    void shrink() { n_ = n_ - 1; }\n    double sample(int i) const"),
                      ("    Heat h(5000);\n", "    Heat h(5000);\n    h.shrink();\n"),
                      "is not held in a field"),
    "public": (("private:\n    int n_;\n    double *u_, *w_;", "    int n_;\n    double *u_, *w_;"),
               None, "is public (code outside"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_pointer_members_are_mapped_per_call_where_the_invariant_cannot_be_shown(
        load_source, tmp_path, case):
    first, second, reason = REFUSED[case]
    program = HEAT
    for old, new_text in [first] + ([second] if second else []):
        assert old in program
        program = program.replace(old, new_text)
    check_mapped_per_call(load_source, tmp_path, program, reason)
