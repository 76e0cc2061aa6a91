"""Counts a callee spells through a struct the caller owns (issue 28, "above the expert").

Two shapes, each run before and after on clang-16 host offload:

- a parameter block passed as ``const params *p``: the callee's ``n = nx * ny`` with
  ``nx = p->nx`` is main's ``n = p.nx * p.ny`` (main's fields are never written after ``n``,
  and ``&p`` only reaches pointer-to-const parameters: omp.settled), so the callee's
  ``memcpy(result, t, n * sizeof(double))`` writes all of ``result`` and the device's copy of
  it need not come back;
- a struct a creator function fills (``p->n = n; p->rho = alloc(n);``): the callee's loop
  over ``P->n`` writes the whole of ``P->rho`` (omp.member_agree proves ``P->n`` is the
  storage's count where main maps it by the creator call's ``n``), so it goes in with
  ``alloc``, not ``to``.

Where a write of the field breaks the proof, the old, costlier plan stays (and runs right).
"""

from __future__ import annotations

import pytest

from testsuite.omp.omp_runs import rewrite_source, run_both

PARAMS = r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int nx, ny, steps; } params;

static void show(const params *p) { fprintf(stderr, "%d x %d\n", p->nx, p->ny); }

static int relax(const params *p, double *result, double *temp)
{
    const int nx = p->nx, ny = p->ny, n = nx * ny;
    double *r = result, *t = temp;
    int step;
    for (step = 0; step < p->steps; step++) {
        #pragma omp target teams distribute parallel for
        for (int k = 1; k < n - 1; k++)
            r[k] = 0.5 * t[k] + 0.25 * (t[k - 1] + t[k + 1]);
        double *swap = t;
        t = r;
        r = swap;
    }
    if (t != result)
        memcpy(result, t, (size_t)n * sizeof(double));
    return step;
}

int main(int argc, char **argv)
{
    params p = {40, 30, 7};
    if (argc > 1) p.steps = atoi(argv[1]);
    const int n = p.nx * p.ny;
    double *result = (double *)malloc((size_t)n * sizeof(double));
    double *temp = (double *)malloc((size_t)n * sizeof(double));
    for (int k = 0; k < n; k++)
        result[k] = temp[k] = (k % 17) * 0.5;
    show(&p);
    int steps = relax(&p, result, temp);
    double sum = 0.0;
    for (int k = 0; k < n; k++)
        sum += result[k] * (k % 5);
    printf("%d steps, sum %.6f\n", steps, sum);
    free(result);
    free(temp);
    return 0;
}
"""

CREATOR = r"""#include <stdio.h>
#include <stdlib.h>

typedef struct { int n; double h; double *x, *rho; } Particles;

static double *doubles(int count)
{
    double *a = (double *)malloc(sizeof(double) * (size_t)count);
    if (a == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return a;
}

static Particles *create(int n, double h)
{
    Particles *p = (Particles *)malloc(sizeof(Particles));
    p->n = n;
    p->h = h;
    p->x = doubles(n);
    p->rho = doubles(n);
    for (int i = 0; i < n; i++)
        p->x[i] = (i % 13) * 0.25;
    return p;
}

static void shrink(Particles *P) { (void)P; }

static void density(Particles *P)
{
    const int n = P->n;
    const double h = P->h;
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j += 7)
            s += (P->x[i] - P->x[j]) * (P->x[i] - P->x[j]) / h;
        P->rho[i] = s;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 500;
    Particles *P = create(n, 1.5);
    shrink(P);
    double total = 0.0;
    for (int round = 0; round < 3; round++) {
        density(P);
        for (int i = 0; i < P->n; i++)
            total += P->rho[i];
    }
    printf("total %.6f\n", total);
    free(P->x);
    free(P->rho);
    free(P);
    return 0;
}
"""


@pytest.mark.parametrize("resized", [False, True])
def test_a_count_through_a_const_parameter_block(load_source, tmp_path, resized):
    program = PARAMS
    if resized:   # main's p.ny written after n: the callee's n is no longer known to be it
        program = program.replace("show(const params *p) {",
                                  "show(params *p) { p->ny = p->ny + 0;")
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["left unmapped"] == 0, [d.message for d in out.diagnostics]
    update = next(line for line in rewritten.splitlines() if "target update from" in line)
    # the memcpy writes all of result where the counts agree: only t comes back
    assert ("result[0:n]" in update) == resized, rewritten
    if resized:
        return    # the plan of before (run-checked by the corpus)
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()


@pytest.mark.parametrize("shrunk", [False, True])
def test_a_member_length_a_creator_sets(load_source, tmp_path, shrunk):
    program = CREATOR
    if shrunk:    # P->n written outside the creator: not known to be the storage's count
        program = program.replace("static void shrink(Particles *P) { (void)P; }",
                                  "static void shrink(Particles *P) { P->n = P->n - 0; }")
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["left unmapped"] == 0, [d.message for d in out.diagnostics]
    entry = next(line for line in rewritten.splitlines() if "data map(" in line)
    assert ("map(alloc: P->rho" in entry) != shrunk, rewritten
    if shrunk:
        return
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()


# a class whose time loop runs in a method main calls once: the fields it steps are never
# read on the host after it (omp.method_members.left_behind), so they go in and stay
PLATE = r"""#include <cstdio>
#include <cstdlib>

static void relax(const double *u, double *v, int n)
{
    #pragma omp target teams distribute parallel for
    for (int i = 1; i < n - 1; i++)
        v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
}

static double settle(double *u, const double *v, int n)
{
    double change = 0.0;
    #pragma omp target teams distribute parallel for reduction(max: change)
    for (int i = 1; i < n - 1; i++) {
        double d = v[i] > u[i] ? v[i] - u[i] : u[i] - v[i];
        if (d > change)
            change = d;
        u[i] = v[i];
    }
    return change;
}

class Plate {
    int n;
    double *u;
    double *v;

    void Allocate()
    {
        u = (double *)std::malloc(n * sizeof(double));
        v = (double *)std::malloc(n * sizeof(double));
        for (int i = 0; i < n; i++)
            u[i] = v[i] = (i % 11) * 0.5;
    }

public:
    explicit Plate(int cells) : n(cells) { Allocate(); }
    ~Plate()
    {
        std::free(u);
        std::free(v);
    }
    double Run(int steps);
};

double Plate::Run(int steps)
{
    double change = 0.0;
    for (int s = 0; s < steps; s++) {
        relax(u, v, n);
        change = settle(u, v, n);
    }
    return change;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? std::atoi(argv[1]) : 20;
    Plate plate(600);
    double change = plate.Run(steps);
    std::printf("last change %.9f\n", change);
    return 0;
}
"""


@pytest.mark.parametrize("twice", [False, True])
def test_fields_a_method_main_calls_once_leaves_behind(load_source, tmp_path, twice):
    program = PLATE
    if twice:     # a second Run() would copy in the host's stale u: it must come back
        program = program.replace("double change = plate.Run(steps);",
                                  "double change = plate.Run(steps) + plate.Run(1);")
    rewritten, out = rewrite_source(load_source, program)
    assert dict(out.counts)["left unmapped"] == 0, [d.message for d in out.diagnostics]
    region = next(line for line in rewritten.splitlines() if "data map(" in line)
    assert ("tofrom" in region) == twice and \
        ("tofrom: v[0:n], u[0:n]" if twice else "map(to: u[0:n])") in region, rewritten
    if twice:
        return    # the plan of before (run-checked by the corpus)
    original, new = run_both(tmp_path, program, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()


# a pointer copied out of a struct a helper made, before the struct is given a new value:
# its count is what the helper stored beside the member, in the call's arguments
# (omp.copied_members), so main's region maps it once instead of each launch
LEVELS = r"""#include <stdio.h>
#include <stdlib.h>

typedef struct { int n; double *val; } Level;

static Level level_make(int n, double scale)
{
    Level g;
    g.n = n;
    g.val = (double *)malloc(sizeof(double) * g.n);
    for (int i = 0; i < g.n; i++)
        g.val[i] = scale * ((i * 7) % 23);
    return g;
}

static double level_sum(const double *c, int n)
{
    double s = 0.0;
    #pragma omp target teams distribute parallel for reduction(+: s)
    for (int i = 0; i < n; i++)
        s += c[i];
    return s;
}

static void smooth(Level *g)
{
    double *v = g->val;
    int n = g->n;
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
        v[i] = 0.5 * v[i] + 1.0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300;
    Level g = level_make(n, 0.5);
    double *coarse = g.val;
    g = level_make(4 * n, 0.25);
    double weight = 0.0;
    for (int step = 0; step < 5; step++) {
        smooth(&g);
        weight += level_sum(coarse, n);
    }
    printf("%.6f %.6f %d\n", weight, g.val[7], g.n);
    free(coarse);
    free(g.val);
    return 0;
}
"""


@pytest.mark.parametrize("written", [False, True])
def test_a_pointer_copied_out_of_a_made_struct(load_source, tmp_path, written):
    program = LEVELS
    if written:   # the helper's count is no longer the argument
        program = program.replace("    return g;\n", "    g.n = n + 0 * g.n;\n    return g;\n")
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["left unmapped"] == 0, [d.message for d in out.diagnostics]
    assert ("coarse[0:n]" in rewritten.split("int main")[1]) != written, rewritten
    if written:
        return
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    # each level goes in once (300 + 1,200 doubles), and the five sums' initial values
    assert new.copies.h2d_bytes == 8 * (300 + 1200) + 5 * 8, new.copies


# Rodinia hotspot's shape: the time loop runs in a callee over its parameter, swapping two
# buffers; main's guard (a function that never returns) leaves the argument >= 1, so the
# loop's first trip writes all of ``result`` through ``r`` before anything reads it
# (omp.cover: the first trip run alone, its trip count from the caller's guard)
SWAP = r"""#include <stdio.h>
#include <stdlib.h>

static void fail(const char *why)
{
    fprintf(stderr, "%s\n", why);
    exit(1);
}

static void sweep(float *out, const float *in, int rows, int cols)
{
    #pragma omp target teams distribute parallel for collapse(2)
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            int k = r * cols + c;
            float west = c > 0 ? in[k - 1] : in[k];
            out[k] = 0.5f * (in[k] + west);
        }
}

static float *advance(float *result, int steps, float *temp, int rows, int cols)
{
    float *r = result, *t = temp;
    for (int i = 0; i < steps; i++) {
        sweep(r, t, rows, cols);
        float *swap = t;
        t = r;
        r = swap;
    }
    return t;
}

int main(int argc, char **argv)
{
    int rows = 40, cols = 30, steps = argc > 1 ? atoi(argv[1]) : 5;
    if (steps <= 0)
        fail("steps must be positive");
    size_t size = (size_t)rows * cols;
    float *temp = (float *)malloc(size * sizeof(float));
    float *result = (float *)calloc(size, sizeof(float));
    for (size_t k = 0; k < size; k++)
        temp[k] = (float)(k % 9);
    float *final = advance(result, steps, temp, rows, cols);
    double sum = 0.0;
    for (size_t k = 0; k < size; k++)
        sum += final[k] * (k % 4);
    printf("%.4f\n", sum);
    free(temp);
    free(result);
    return 0;
}
"""


@pytest.mark.parametrize("guarded", [True, False])
def test_a_callee_time_loop_the_callers_guard_runs(load_source, tmp_path, guarded):
    program = SWAP if guarded else SWAP.replace("if (steps <= 0)", "if (steps < -1)")
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert dict(out.counts)["left unmapped"] == 0, [d.message for d in out.diagnostics]
    entry = next(line for line in rewritten.splitlines() if "enter data" in line)
    assert ("map(alloc: result[0:size])" in entry) == guarded, rewritten
    if not guarded:
        return    # with 0 steps final is temp: result's zeros are never read, but the
                  # plan does not know which buffer final is
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
