"""Pointer members a class allocates in a method its constructor calls (issue 28, 3c; AMD's
8_jacobi: ``InitializeData()`` mallocs ``h_U`` with ``mesh.N``, ``Run()`` loops over kernels;
omp.method_members). The member function with the device work gets the data region and the
allocation's own count, where that count provably means the same there; before, ``main``
was the only root, could not name the private members and knew no count, and every kernel
was mapped per construct (or left, where its range could not be bounded). Each program is
run on clang-16 host offload, its output compared with the original's."""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

#define CUR u
struct dims_t { int nx; int n; double h; };

static void relax(const dims_t &d, const double *in, double *out)
{
    const int n = d.n;
    #pragma omp target teams distribute parallel for
    for (int i = 1; i < n - 1; i++)
        out[i] = 0.5 * in[i] + 0.25 * (in[i - 1] + in[i + 1]);
}

class Rod {
    dims_t &dims;
    double *u, *v;
    int steps;
    void Geometry() { dims.n = dims.nx + 2; dims.h = 1.0 / dims.nx; }
    void Fields()
    {
        u = (double *)malloc(dims.n * sizeof(double));
        v = (double *)malloc(dims.n * sizeof(double));
        for (int i = 0; i < dims.n; i++)
            u[i] = v[i] = (i % 5) * dims.h;
    }
public:
    Rod(dims_t &d) : dims(d), steps(0) { Geometry(); Fields(); }
    ~Rod() { free(u); free(v); }
    void Run(int count)
    {
        const int n = dims.n;
        for (int s = 0; s < count; s++) {
            relax(dims, CUR, v);
            #pragma omp target teams distribute parallel for
            for (int i = 1; i < n - 1; i++)
                u[i] = v[i];
            steps++;
        }
    }
    double Sum() const
    {
        double s = 0;
        for (int i = 0; i < dims.n; i++)
            s += u[i];
        return s;
    }
    EXTRA
};

int main(void)
{
    dims_t d;
    d.nx = 2000;
    Rod rod(d);
    rod.Run(40);
    CALL
    printf("%.10f\\n", rod.Sum());
    return 0;
}
"""


def _program(extra: str = "", call: str = "") -> str:
    return PROGRAM.replace("EXTRA", extra).replace("CALL", call)


def _check_run(tmp_path, program: str, rewritten: str):
    original, new = run_both(tmp_path, program, rewritten, suffix=".cpp")
    assert original.returncode == 0 and new.returncode == 0, new.stderr[-800:]
    assert new.stdout == original.stdout
    assert new.unmapped == ()
    return new


def test_the_member_function_maps_the_members_with_their_allocation_count(load_source,
                                                                          tmp_path):
    program = _program()
    rewritten, out = rewrite_source(load_source, program)
    assert "u[0:dims.n]" in rewritten and "v[0:dims.n]" in rewritten
    assert rewritten.index("u[0:dims.n]") > rewritten.index("void Run")
    assert dict(out.counts)["target regions mapped"] == 2
    new = _check_run(tmp_path, program, rewritten)
    # the two 16,016-byte arrays once in, and u once out (members outlive Run: a second call
    # would copy them in again; v is left behind: only Run steps it and main calls Run once,
    # omp.method_members.left_behind), not per launch (16 bytes: relax's and the loop's scalars)
    assert "map(to: v[0:dims.n])" in rewritten and "map(tofrom: u[0:dims.n])" in rewritten
    assert new.copies.total_bytes == 3 * 16016 + 16, new.copies


def test_a_count_member_written_after_the_constructor_gives_no_count(load_source, tmp_path):
    # Grow() writes dims.n outside the constructor's methods: dims.n at Run need not be
    # the count the storage was allocated with
    program = _program("void Grow() { dims.n = dims.n + 0; }", "rod.Grow();")
    rewritten, out = rewrite_source(load_source, program)
    assert "[0:dims.n]" not in rewritten
    assert dict(out.counts)["target regions mapped"] == 0
    _check_run(tmp_path, program, rewritten)


def test_a_member_re_pointed_in_another_method_gives_no_count(load_source, tmp_path):
    program = _program("void Flip() { double *t = u; u = v; v = t; }", "rod.Flip();")
    rewritten, out = rewrite_source(load_source, program)
    assert "[0:dims.n]" not in rewritten
    _check_run(tmp_path, program, rewritten)


def test_an_allocating_method_called_outside_the_constructor_gives_no_count(load_source,
                                                                          tmp_path):
    program = _program("void Reset() { free(u); free(v); Fields(); }", "rod.Reset();")
    rewritten, out = rewrite_source(load_source, program)
    assert "[0:dims.n]" not in rewritten
    _check_run(tmp_path, program, rewritten)


def test_a_count_naming_a_local_of_a_member_function_gives_no_count(load_source, tmp_path):
    # Run declares its own 'dims': the allocation's 'dims.n' means another variable there
    program = _program().replace("        const int n = dims.n;\n",
                                 "        dims_t dims = this->dims;\n"
                                 "        const int n = dims.n;\n")
    rewritten, out = rewrite_source(load_source, program)
    assert "[0:dims.n]" not in rewritten
    _check_run(tmp_path, program, rewritten)


def test_a_second_run_changes_nothing_and_keeps_quiet(load_source):
    # the first run's data directives in Run() map the members: main, which cannot name
    # them, leaves them to Run() instead of refusing its own plan ("'u' could not be
    # mapped by the plan, which would replace the enter/exit data of the functions it calls")
    rewritten, _ = rewrite_source(load_source, _program())
    again, out = rewrite_source(load_source, rewritten)
    assert again == rewritten
    assert not [d.message for d in out.diagnostics if d.severity.value == "warning"]
