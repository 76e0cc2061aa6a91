"""A class's ``std::vector`` members mapped over each object's lifetime (omp.lifetime).

The fields are entered at the end of the constructor, released at the start of the
destructor (added when the class has none), and member functions that read them on the host
first update them from the device. Each program is run before and after on clang-16 host
offload: same output, no unmapped pointer, fewer bytes. Where the invariant cannot be shown
(a copy, a host write, a reference kept across a time step ...), the fields are mapped per
call as before and ``--explain`` says why."""

from __future__ import annotations

import pytest

from s2s.diagnostics import Severity
from testsuite.omp.omp_runs import check_mapped_per_call, rewrite_source, run_both
from testsuite.omp.test_omp_vectors import CLASS_MEMBERS


def test_fields_are_entered_by_the_constructor_and_released_by_an_added_destructor(
        load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, CLASS_MEMBERS)
    constructor = rewritten[rewritten.index("explicit Field"):rewritten.index("void forces")]
    assert "#pragma omp target enter data map(to: s2s_u_[0:u_.size()], s2s_f_[0:f_.size()], " \
        "s2s_w_[0:w_.size()])" in constructor
    values = rewritten[rewritten.index("values() const"):rewritten.index("private:")]
    assert "#pragma omp target update from(s2s_u_[0:u_.size()])" in values
    tail = rewritten[rewritten.index("private:"):rewritten.index("int main")]
    assert "public:\n    ~Field()\n    {\n" in tail
    assert "#pragma omp target exit data map(release: s2s_u_[0:u_.size()]" in tail
    # no data region per call of advance(), nothing in main
    assert "target data" not in rewritten and "s2s_" not in rewritten[rewritten.index("int main"):]
    assert not [d for d in out.diagnostics if d.severity is Severity.WARNING]
    original, new = run_both(tmp_path, CLASS_MEMBERS, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    # three fields in once, u_ out once (3000 doubles each), against 80 kernels' own maps
    assert new.copies.h2d_bytes == 3 * 3000 * 8
    assert new.copies.d2h_bytes == 3000 * 8
    again, second = rewrite_source(load_source, rewritten)
    assert again == rewritten and not second.diagnostics


# A second shape: the class has a destructor and a one-line constructor body, two objects
# live at once, one kernel runs in a free function that a method hands its pointers to, and
# a const method computes a checksum on the host (returned by value).
TWO_GRIDS = """#include <cstdio>
#include <vector>

static void relax(double *out, const double *in, int n)
{
#pragma omp target teams distribute parallel for map(to: in[0:n]) map(from: out[0:n])
    for (int i = 0; i < n; ++i)
        out[i] = 0.5 * in[i] + 0.25 * (in[i > 0 ? i - 1 : i] + in[i + 1 < n ? i + 1 : i]);
}

class Grid {
    std::vector<double> cur, next;
    int steps;

public:
    Grid(int n, double seed) : cur(n, seed), next(n), steps(0) { cur[n / 2] = 100.0 * seed; }
    ~Grid() { std::printf("grid of %zu done after %d steps\\n", cur.size(), steps); }
    void step()
    {
        relax(next.data(), cur.data(), (int)cur.size());
        relax(cur.data(), next.data(), (int)cur.size());
        ++steps;
    }
    double checksum() const
    {
        double s = 0.0;
        for (std::size_t i = 0; i < cur.size(); ++i)
            s += cur[i] * (double)(i % 7);
        return s;
    }
};

int main()
{
    Grid a(4000, 1.0), b(2500, 3.0);
    for (int t = 0; t < 30; ++t) {
        a.step();
        b.step();
        if (t % 10 == 9)
            std::printf("t=%d a=%.6f b=%.6f\\n", t, a.checksum(), b.checksum());
    }
    return 0;
}
"""


def test_two_objects_a_destructor_and_a_host_checksum(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, TWO_GRIDS)
    assert "~Grid() {\n        auto s2s_cur = cur.data();" in rewritten
    assert rewritten.count("target enter data") == 1 and rewritten.count("target exit data") == 1
    checksum = rewritten[rewritten.index("double checksum"):rewritten.index("int main")]
    assert "#pragma omp target update from(s2s_cur[0:cur.size()])" in checksum
    assert "next" not in checksum  # it reads cur only
    original, new = run_both(tmp_path, TWO_GRIDS, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    # both fields of both grids in once; cur back at each of the 3 checksums of each grid
    assert new.copies.h2d_bytes == 2 * (4000 + 2500) * 8
    assert new.copies.d2h_bytes == 3 * (4000 + 2500) * 8
    assert new.copies.total_bytes < original.copies.total_bytes / 20


# Overloaded constructors each enter the fields; one that delegates does not (the constructor
# it delegates to has, by its end); three objects, made by each of them.
CONSTRUCTORS = TWO_GRIDS.replace(
    "    Grid(int n, double seed)",
    "    Grid() : Grid(64, 1.0) {}\n"
    "    explicit Grid(int n) : cur(n, 2.0), next(n), steps(0) {}\n"
    "    Grid(int n, double seed)").replace(
    "    Grid a(4000, 1.0), b(2500, 3.0);", "    Grid a(4000, 1.0), b(2500), c;").replace(
    "        b.step();\n", "        b.step();\n        c.step();\n")


def test_overloaded_and_delegating_constructors(load_source, tmp_path):
    assert CONSTRUCTORS.count("Grid(") > TWO_GRIDS.count("Grid(")
    rewritten, out = rewrite_source(load_source, CONSTRUCTORS)
    assert rewritten.count("target enter data") == 2  # not in the delegating one
    assert "Grid() : Grid(64, 1.0) {}" in rewritten
    original, new = run_both(tmp_path, CONSTRUCTORS, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.h2d_bytes == 2 * (4000 + 2500 + 64) * 8


# Each of these breaks the invariant "between member functions the device copy is the
# newest"; the fields are then mapped per call of advance() (still right, and said).
REFUSED = {
    "copy": (("    Field field(3000);\n", "    Field field(3000);\n    Field spare = field;\n"),
             "an object of it is copied or moved"),
    "host write": (("    const std::vector<double> &values() const",
                    "    void kick() { u_[0] += 1.0; }\n    const std::vector<double> &values() const"),
                   "'kick' writes 'u_' on the host"),
    "new storage": (("    const std::vector<double> &values() const",
                     "    void grow() { w_.push_back(0.5); }\n"
                     "    const std::vector<double> &values() const"),
                    "'grow' gives 'w_' new storage"),
    "public field": (("private:\n    std::vector<double> u_, f_, w_;",
                      "    std::vector<double> u_, f_, w_;"), "is public (code outside the class"),
    "delegating body": (("    explicit Field(int n)",
                         "    Field() : Field(50) { u_[0] = 1.0; }\n    explicit Field(int n)"),
                        "a delegating constructor's body runs after"),
    "overloaded method": (("    void advance(double dt)\n",
                           "    void advance() { advance(0.1); }\n    void advance(double dt)\n"),
                          "another function of the program is also named 'advance'"),
    "reference kept": (("    for (int step = 0; step < 20; ++step)\n        field.advance(0.1);\n"
                        "    const std::vector<double> &u = field.values();\n",
                        "    const std::vector<double> &u = field.values();\n"
                        "    for (int step = 0; step < 20; ++step)\n        field.advance(0.1);\n"),
                       "the result of 'values'"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_fields_are_mapped_per_call_where_the_invariant_cannot_be_shown(load_source, tmp_path,
                                                                        case):
    (old, new_text), reason = REFUSED[case]
    assert old in CLASS_MEMBERS
    program = CLASS_MEMBERS.replace(old, new_text)
    check_mapped_per_call(load_source, tmp_path, program, reason, "~Field")
