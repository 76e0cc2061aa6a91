"""Device work in functions that have callers (issue 17, item 4): a function that allocates
its own arrays and loops over kernels (``run(n, steps)`` called from ``main``) gets the data
region, placed in it; before, the only root was ``main``, whose region could not map storage
allocated inside it, and the kernels kept copying every array in and out on every launch
(0 changes, exit 0). A function whose kernels also use its caller's arrays stays with the
caller's plan."""

from __future__ import annotations

import pytest

from s2s.edits import EditSet
from s2s.transform.omp import run_omp
from testsuite.omp.omp_runs import run_both

OWNER = """#include <stdio.h>
#include <stdlib.h>

static void init(float *a, float *b, int n)
{
    for (int i = 0; i < n; i++) {
        a[i] = (float)(i % 7);
        b[i] = 0.0f;
    }
}

static double run(int n, int steps)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *a = (float *)malloc(bytes);
    float *b = (float *)malloc(bytes);
    init(a, b, n);
    for (int t = 0; t < steps; t++) {
        #pragma omp target teams distribute parallel for MAPS
        for (int i = 0; i < n; i++)
            b[i] = 0.5f * a[i] + 1.0f;
        #pragma omp target teams distribute parallel for MAPS
        for (int i = 0; i < n; i++)
            a[i] = 0.25f * b[i] + (float)t;
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += a[i];
    free(a);
    free(b);
    return sum;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    printf("sum %.6f\\n", run(n, 10));
    printf("sum %.6f\\n", run(n / 2, 3));
    return 0;
}
"""

#: a helper that returns device-computed storage: the exit copy must bring it back
MAKER = """#include <stdio.h>
#include <stdlib.h>

static float *make_table(int n)
{
    float *table = (float *)malloc(n * sizeof(float));
    float *scratch = (float *)malloc(n * sizeof(float));
    #pragma omp target teams distribute parallel for map(from: scratch[0:n])
    for (int i = 0; i < n; i++)
        scratch[i] = (float)i * 0.5f;
    #pragma omp target teams distribute parallel for map(to: scratch[0:n]) map(from: table[0:n])
    for (int i = 0; i < n; i++)
        table[i] = scratch[i] + scratch[n - 1 - i];
    free(scratch);
    return table;
}

int main(void)
{
    float *t = make_table(4096);
    double s = 0.0;
    for (int i = 0; i < 4096; i++)
        s += t[i];
    printf("%.3f %.3f\\n", s, t[17]);
    free(t);
    return 0;
}
"""

#: ``work`` uses its caller's ``p``: main's plan maps ``p``; ``tmp`` keeps its clauses
MIXED = """#include <stdio.h>
#include <stdlib.h>
static void work(float *p, int n)
{
    float *tmp = (float *)malloc(n * sizeof(float));
    #pragma omp target teams distribute parallel for map(to: p[0:n]) map(from: tmp[0:n])
    for (int i = 0; i < n; i++) tmp[i] = p[i] + 1.0f;
    #pragma omp target teams distribute parallel for map(tofrom: p[0:n]) map(to: tmp[0:n])
    for (int i = 0; i < n; i++) p[i] = tmp[i] * 0.5f;
    free(tmp);
}
int main(void)
{
    int n = 1000;
    float *p = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) p[i] = (float)i;
    for (int k = 0; k < 3; k++) work(p, n);
    printf("%f %f\\n", p[7], p[n - 1]);
    free(p);
    return 0;
}
"""


def rewrite(load_source, text: str) -> tuple[str, list]:
    loaded = load_source(text, name="prog.c")
    result = run_omp(loaded)
    return EditSet(result.edits).apply("prog.c", loaded.source).decode(), result.diagnostics


@pytest.mark.parametrize("maps", ["map(tofrom: a[0:n], b[0:n])", ""])
def test_the_function_that_owns_the_arrays_gets_the_region(load_source, tmp_path, maps):
    program = OWNER.replace("MAPS", maps)
    rewritten, _ = rewrite(load_source, program)
    lines = rewritten.splitlines()
    region = next(i for i, line in enumerate(lines) if "#pragma omp target data" in line)
    assert lines[region + 1].strip() == "for (int t = 0; t < steps; t++) {"
    assert "map(tofrom: a[0:(size_t)n])" in lines[region] and "map(alloc: b[0:(size_t)n])" in lines[region]
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    # one copy in and one out of `a` per call of run: 2 * (4000 + 2000) bytes
    assert new.copies.total_bytes == 2 * (4000 + 2000)
    if maps:


        assert original.copies.total_bytes >= 20 * new.copies.total_bytes


def test_storage_returned_by_the_owner_comes_back(load_source, tmp_path):
    rewritten, _ = rewrite(load_source, MAKER)
    assert "target exit data map(from: table[0:n]) map(release: scratch[0:n])" in rewritten
    original, new = run_both(tmp_path, MAKER, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.total_bytes == 4096 * 4       # table comes back; scratch never moves


def test_a_function_using_its_callers_array_stays_with_the_caller(load_source, tmp_path):
    rewritten, diagnostics = rewrite(load_source, MIXED)
    assert "#pragma omp target data" not in rewritten.split("int main")[0]
    assert "target enter data map(to: p[0:n])" in rewritten
    original, new = run_both(tmp_path, MIXED, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.total_bytes < original.copies.total_bytes
