"""A member's count named by a parameter of the function that allocates it (issue 28):
``init_bodies(&b, n)`` allocates ``b->ax = new_array(n)``; in ``main`` that count is main's
``n`` through the call (omp.member_counts._through_call), so main's data region holds the
members over the time loop. A count naming a local of the allocating function, or an
argument main changes after the call, is no count in main: the constructs fall back to the
safety net. Programs are rewritten in memory and run before and after on clang-16 host
offload.
"""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_both

BODIES = """#include <stdio.h>
#include <stdlib.h>

typedef struct { double *x, *v; } Bodies;

static double *new_array(int n)
{
    double *a = (double *)malloc(n * sizeof(double));
    if (!a) { perror("malloc"); exit(1); }
    return a;
}

static void init_bodies(Bodies *b, int n)
{
    b->x = new_array(n);
    b->v = new_array(n);
    for (int i = 0; i < n; i++) { b->x[i] = i * 0.5; b->v[i] = 1.0 / (i + 1); }
}

int main(int argc, char **argv)
{
    int n = 300;
    if (argc > 1) n = atoi(argv[1]);
    Bodies b;
    init_bodies(&b, n);
    double *x = b.x, *v = b.v;
    for (int step = 0; step < 20; step++) {
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++) x[i] += 0.01 * v[i];
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++) v[i] *= 0.999;
    }
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i] + v[i];
    printf("%.6f\\n", s);
    free(b.x); free(b.v);
    return 0;
}
"""


def test_a_parameter_count_is_read_through_the_one_call(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, BODIES, name="prog.c")
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 0 and counts["left unmapped"] == 0, \
        [d.message for d in out.diagnostics]
    assert "target data" in rewritten and "[0:n]" in rewritten, rewritten
    original, new = run_both(tmp_path, BODIES, rewritten)
    assert original.unmapped
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    # x and v in and out once each (before: one copy each way per construct and step)
    assert new.copies.total_bytes <= 2 * 2 * 300 * 8, new.copies


def test_an_argument_changed_after_the_call_is_no_count(load_source, tmp_path):
    program = BODIES.replace("    double *x = b.x, *v = b.v;\n",
                             "    double *x = b.x, *v = b.v;\n    n = n / 2;\n")
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert "[0:n]" not in rewritten.split("for (int step")[0], rewritten
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()


def test_a_local_of_the_allocating_function_is_no_count(load_source, tmp_path):
    program = BODIES.replace("    b->x = new_array(n);\n",
                             "    int m = n;\n    b->x = new_array(m);\n")
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert "[0:m]" not in rewritten, rewritten
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()


# the struct made and returned by the allocating function (particle_census's make_particles)
RETURNED = BODIES.replace("""static void init_bodies(Bodies *b, int n)
{
    b->x = new_array(n);
    b->v = new_array(n);
    for (int i = 0; i < n; i++) { b->x[i] = i * 0.5; b->v[i] = 1.0 / (i + 1); }
}""", """static Bodies make_bodies(int n)
{
    Bodies b;
    b.x = (double *)malloc(n * sizeof(double));
    b.v = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { b.x[i] = i * 0.5; b.v[i] = 1.0 / (i + 1); }
    return b;
}""").replace("    Bodies b;\n    init_bodies(&b, n);\n", "    Bodies b = make_bodies(n);\n")


def test_a_struct_made_by_the_call_takes_the_count_through_it(load_source, tmp_path):
    assert "make_bodies(n);" in RETURNED and "init_bodies" not in RETURNED
    rewritten, out = rewrite_source(load_source, RETURNED, name="prog.c")
    counts = dict(out.counts)
    assert counts["mapped per construct"] == 0 and counts["left unmapped"] == 0, \
        [d.message for d in out.diagnostics]
    assert "target data" in rewritten and "[0:n]" in rewritten, rewritten
    original, new = run_both(tmp_path, RETURNED, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    assert new.copies.total_bytes <= 2 * 2 * 300 * 8, new.copies


def test_a_struct_given_another_value_is_not_the_calls(load_source, tmp_path):
    program = RETURNED.replace("    double *x = b.x, *v = b.v;\n",
                               "    if (argc > 2) b = make_bodies(n / 2);\n"
                               "    double *x = b.x, *v = b.v;\n")
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert "target data" not in rewritten.split("for (int step")[0], rewritten
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
