"""``std::vector`` storage (issue 17, item 2; frontend.host.containers): a vector is the array, its
count ``v.size()``, ``v.data()`` and ``&v[k]`` are pointers to it, ``v[i]`` an access, and any
other use a whole-vector access. Clauses name a vector through a ``s2s_v = v.data()`` handle.
Each program is run before and after on clang-16 host offload: same output, no unmapped
pointer, fewer copies."""

from __future__ import annotations

from s2s.edits import EditSet
from s2s.transform.omp import run_omp
from testsuite.omp.omp_runs import run_both

HEADER = """#include <cstdio>
#include <numeric>
#include <vector>

static void scale(double *a, int n, double s)
{
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; ++i)
        a[i] = a[i] * s + 1.0;
}
"""

# The host changes elements between kernels (v[i] through operator[]), reads a range-for sum
# afterwards, and hands the kernels .data(), &v[0] and a pointer taken earlier.
HOST_UPDATES = HEADER + """
int main()
{
    const int n = 2000;
    std::vector<double> v(n);
    for (int i = 0; i < n; ++i)
        v[i] = i % 7;
    double *p = v.data();
    for (int it = 0; it < 6; ++it) {
        scale(p, n, 0.5);
        v[5] = 100.0 + it;
        scale(&v[0], n, 1.5);
        scale(v.data(), n, 0.75);
    }
    double sum = 0.0;
    for (double x : v)
        sum += x;
    std::printf("%.6f %.6f\\n", sum, v[5]);
    return 0;
}
"""

# A reallocation inside the device work: pointers taken before it name the old storage,
# so the analysis must not map v through a handle taken before it.
REALLOCATED = HEADER + """
int main()
{
    const int n = 1000;
    std::vector<double> v(n, 1.0);
    for (int it = 0; it < 4; ++it) {
        scale(v.data(), (int)v.size(), 2.0);
        v.push_back(0.5);
    }
    std::printf("%.6f %zu\\n", std::accumulate(v.begin(), v.end(), 0.0), v.size());
    return 0;
}
"""


def _rewrite(load_source, program: str) -> str:
    loaded = load_source(program, name="prog.cpp")
    return EditSet(run_omp(loaded).edits).apply("prog.cpp", loaded.source).decode()


def test_vector_is_mapped_through_a_data_handle(load_source, tmp_path):
    rewritten = _rewrite(load_source, HOST_UPDATES)
    assert "auto s2s_v = v.data();" in rewritten
    assert "#pragma omp target data map(tofrom: s2s_v[0:v.size()])" in rewritten
    # the host's v[5] = ... between kernels goes to the device as one element
    assert "#pragma omp target update to(s2s_v[5:1])" in rewritten
    original, new = run_both(tmp_path, HOST_UPDATES, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.total_count < original.copies.total_count / 4


def test_reallocation_is_never_mapped_through_a_stale_handle(load_source, tmp_path):
    rewritten = _rewrite(load_source, REALLOCATED)
    original, new = run_both(tmp_path, REALLOCATED, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert "s2s_v" not in rewritten


def test_vector_facts(load_source):
    model = load_source(HOST_UPDATES, name="prog.cpp").model
    (vector,) = [a for a in model.allocations if a.kind == "vector"]
    assert (vector.name, vector.element_type, vector.count.text) == ("v", "double", "v.size()")
    host = [(r.array, r.mode, tuple(s.text for s in r.subscripts)) for r in model.array_refs
            if r.function == "main" and r.call is None]
    assert ("v", "write", ("i",)) in host and ("v", "write", ("5",)) in host
    assert ("v", "readwrite", ()) in host  # the range-for: a whole-vector access
    assert ("v", "read", ("5",)) in host
    calls = {(r.call, r.array, tuple(s.text for s in r.subscripts)) for r in model.array_refs
             if r.call == "scale"}
    assert calls == {("scale", "p", ()), ("scale", "v", ("0",)), ("scale", "v", ())}
    assert [(c.target, c.source) for c in model.pointer_copies] == [("p", "v")]


# A class owning its fields as vectors: phase methods take .data() (one through this->),
# an outer method runs the phases, main holds the object and reads a field through a
# const-reference accessor. Only member functions can name the members: the region goes in
# the outermost one (advance), not in main.
CLASS_MEMBERS = """#include <cstdio>
#include <vector>

class Field {
public:
    explicit Field(int n) : u_(n), f_(n), w_(n, 0.25)
    {
        for (int i = 0; i < n; ++i)
            u_[i] = (i % 11) * 0.1;
    }
    void forces()
    {
        const double *u = u_.data(), *w = w_.data();
        double *f = this->f_.data();
        const int n = (int)u_.size();
#pragma omp target teams distribute parallel for map(to: u[0:n], w[0:n]) map(from: f[0:n])
        for (int i = 0; i < n; ++i)
            f[i] = w[i] * (u[i > 0 ? i - 1 : i] - 2.0 * u[i] + u[i + 1 < n ? i + 1 : i]);
    }
    void update(double dt)
    {
        double *u = u_.data();
        const double *f = f_.data();
        const int n = (int)u_.size();
#pragma omp target teams distribute parallel for map(tofrom: u[0:n]) map(to: f[0:n])
        for (int i = 0; i < n; ++i)
            u[i] += dt * f[i];
    }
    void advance(double dt)
    {
        forces();
        update(dt);
        forces();
        update(dt);
    }
    const std::vector<double> &values() const { return u_; }

private:
    std::vector<double> u_, f_, w_;
};

int main()
{
    Field field(3000);
    for (int step = 0; step < 20; ++step)
        field.advance(0.1);
    const std::vector<double> &u = field.values();
    double sum = 0.0;
    for (int i = 0; i < (int)u.size(); ++i)
        sum += u[i] * (i % 3);
    std::printf("%.9f %.9f\\n", sum, u[17]);
    return 0;
}
"""


# A method writing a field on the host keeps the fields from being mapped over the object's
# lifetime (omp.lifetime; test_omp_object_lifetime.py): they are mapped per call instead.
PER_CALL_MEMBERS = CLASS_MEMBERS.replace(
    "    const std::vector<double> &values() const",
    "    void kick() { u_[0] += 1.0; }\n    const std::vector<double> &values() const").replace(
    "    Field field(3000);\n", "    Field field(3000);\n    field.kick();\n")


def test_vector_members_are_mapped_in_the_outermost_member_function(load_source, tmp_path):
    assert PER_CALL_MEMBERS != CLASS_MEMBERS
    rewritten = _rewrite(load_source, PER_CALL_MEMBERS)
    advance = rewritten[rewritten.index("void advance"):rewritten.index("const std::vector")]
    assert "auto s2s_u_ = u_.data();" in advance
    assert "map(to: s2s_u_[0:u_.size()]" in advance.replace("map(tofrom:", "map(to:")
    assert "s2s_" not in rewritten[rewritten.index("int main"):]
    original, new = run_both(tmp_path, PER_CALL_MEMBERS, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    # per advance() call one entry and one exit copy per field instead of one per kernel
    assert new.copies.total_count < original.copies.total_count * 0.6


# Vectors handed to functions by reference (``std::vector<double> &u``) are the caller's
# storage under another name, like pointer parameters; a const reference is only read.
REFERENCE_PARAMS = """#include <cstdio>
#include <vector>

static void smooth(std::vector<double> &u, std::vector<double> &tmp)
{
    double *pu = u.data(), *pt = tmp.data();
    const int n = (int)u.size();
#pragma omp target teams distribute parallel for map(to: pu[0:n]) map(from: pt[0:n])
    for (int i = 0; i < n; ++i)
        pt[i] = 0.25 * pu[i > 0 ? i - 1 : i] + 0.5 * pu[i] + 0.25 * pu[i + 1 < n ? i + 1 : i];
#pragma omp target teams distribute parallel for map(to: pt[0:n]) map(from: pu[0:n])
    for (int i = 0; i < n; ++i)
        pu[i] = pt[i];
}

static double total(const std::vector<double> &v)
{
    double s = 0.0;
    for (double x : v)
        s += x;
    return s;
}

int main()
{
    std::vector<double> a(4000), b(4000), u(10, 1.0);
    for (int i = 0; i < 4000; ++i)
        a[i] = (i * 37) % 101;
    for (int it = 0; it < 30; ++it)
        smooth(a, b);
    std::printf("%.6f %.6f %.1f\\n", total(a), a[100], u[3]);
    return 0;
}
"""


def test_vectors_passed_by_reference_are_the_callers_arrays(load_source, tmp_path):
    rewritten = _rewrite(load_source, REFERENCE_PARAMS)
    main = rewritten[rewritten.index("int main"):]
    assert "auto s2s_a = a.data();" in main and "s2s_u" not in main
    assert "map(tofrom: s2s_a[0:a.size()])" in main
    original, new = run_both(tmp_path, REFERENCE_PARAMS, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.total_count <= 3 < original.copies.total_count
