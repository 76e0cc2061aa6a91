"""A class template's vectors mapped over each object's lifetime (omp.lifetime).

The clauses name no type (``auto s2s_u_ = u_.data();`` and ``[0:u_.size()]``), so the
template's one definition, edited, is right for every instantiation, provided every
instantiation satisfies the conditions: they are checked on the template pattern (its
dependent ``u_.data()`` and ``u_.size()`` read from the tokens the front end cannot
resolve), and a specialisation (which has a body of its own) refuses the class. Run before
and after on clang-16 host offload with two instantiations: same output, no unmapped
pointer, bytes counted exactly."""

from __future__ import annotations

import pytest

from testsuite.omp.omp_runs import check_mapped_per_call, rewrite_source, run_both

FIELD = """#include <cstdio>
#include <vector>

template <typename T>
class Field {
public:
    explicit Field(int n) : u_(n), f_(n)
    {
        for (int i = 0; i < n; ++i)
            u_[i] = (T)((i % 11) * 0.1);
    }
    void forces()
    {
        const T *u = u_.data();
        T *f = f_.data();
        const int n = (int)u_.size();
#pragma omp target teams distribute parallel for map(to: u[0:n]) map(from: f[0:n])
        for (int i = 0; i < n; ++i)
            f[i] = u[i > 0 ? i - 1 : i] - (T)2 * u[i] + u[i + 1 < n ? i + 1 : i];
    }
    void update(T dt)
    {
        T *u = u_.data();
        const T *f = f_.data();
        const int n = (int)u_.size();
#pragma omp target teams distribute parallel for map(tofrom: u[0:n]) map(to: f[0:n])
        for (int i = 0; i < n; ++i)
            u[i] += dt * f[i];
    }
    void advance(T dt)
    {
        forces();
        update(dt);
    }
    double checksum() const
    {
        double s = 0.0;
        for (int i = 0; i < (int)u_.size(); ++i)
            s += (double)u_[i] * (i % 7);
        return s;
    }

private:
    std::vector<T> u_, f_;
};

int main()
{
    Field<double> a(3000);
    Field<float> b(2000);
    for (int step = 0; step < 20; ++step) {
        a.advance(0.1);
        b.advance(0.1f);
        if (step % 10 == 9)
            std::printf("%d %.9f %.4f\\n", step, a.checksum(), b.checksum());
    }
    return 0;
}
"""


def test_the_template_pattern_is_mapped_for_every_instantiation(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, FIELD)
    constructor = rewritten[rewritten.index("explicit Field"):rewritten.index("void forces")]
    assert "#pragma omp target enter data map(to: s2s_u_[0:u_.size()], " \
        "s2s_f_[0:f_.size()])" in constructor
    assert "public:\n    ~Field()\n    {\n" in rewritten
    checksum = rewritten[rewritten.index("double checksum"):rewritten.index("private:")]
    assert "#pragma omp target update from(s2s_u_[0:u_.size()])" in checksum
    assert "target data" not in rewritten
    original, new = run_both(tmp_path, FIELD, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    # both fields of both objects in once; u_ of each back at each of its 2 checksums
    assert new.copies.h2d_bytes == 2 * (3000 * 8 + 2000 * 4)
    assert new.copies.d2h_bytes == 2 * (3000 * 8 + 2000 * 4)
    assert original.copies.total_bytes > 15 * new.copies.total_bytes


SPECIALISED = FIELD.replace("int main()", """template <typename T>
class Field<T *> {
public:
    explicit Field(int) {}
};

int main()""")

REFUSED = {
    "specialisation": (SPECIALISED, "the template is specialised at"),
    "copy": (FIELD.replace("    Field<float> b(2000);\n",
                           "    Field<float> b(2000);\n    Field<double> c = a;\n"),
             "an object of it is copied or moved at"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_template_is_mapped_per_call_where_an_instantiation_may_differ(load_source,
                                                                          tmp_path, case):
    program, reason = REFUSED[case]
    assert program != FIELD
    check_mapped_per_call(load_source, tmp_path, program, reason, "~Field")


def _templated(program: str) -> str:
    """The pointer-member class of test_omp_member_pointers as a class template."""
    for old, new in (("class Heat {", "template <typename T>\nclass Heat {"),
                     ("const double *", "const T *"), ("double *", "T *"),
                     ("new double[", "new T["), ("sizeof(double)", "sizeof(T)"),
                     ("    Heat h(5000);", "    Heat<double> h(5000);")):
        assert old in program
        program = program.replace(old, new)
    return program


def test_a_template_with_pointer_members(load_source, tmp_path):
    from testsuite.omp.test_omp_member_pointers import HEAT

    program = _templated(HEAT)
    rewritten, out = rewrite_source(load_source, program)
    assert "#pragma omp target enter data map(alloc: s2s_f_[0:n_])" in rewritten
    original, new = run_both(tmp_path, program, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.h2d_bytes == 2 * 5000 * 8 and new.copies.d2h_bytes == 4 * 5000 * 8
