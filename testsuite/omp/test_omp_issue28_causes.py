"""Issue 28, item 3: general causes that refused real programs.

* a host read in a loop's condition (``do { kernels } while (stop[0])``) is copied back every
  trip, before the statements that end the body without touching it, not once before the
  loop (that needed "more than 200 copies");
* allocation helpers as people write them (``T *p = malloc(...); if (!p) exit(1); fill;
  return p;``), also defined in another file of the program; a byte size declared without a
  value and assigned once; a ``char`` buffer ``malloc(len + 1)``;
* a pointer a kernel derives from an array (``const float *row = src + y * w``) makes the
  kernel an access to that array;
* a struct passed by value: its pointer members are the caller's storage.

Each rewrite is built and run with clang-16 host offload where the toolchain is there (same
output, no unmapped pointer); the facts are checked on the model without it.
"""

from __future__ import annotations

from s2s.edits import EditSet
from s2s.model.program import merge_units
from s2s.transform.omp import run_omp
from testsuite.omp.omp_runs import run_both

FLAG_LOOP = """#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 5000;
    int *label = (int *)malloc(sizeof(int) * n);
    int *stop = (int *)malloc(sizeof(int));
    for (int i = 0; i < n; i++)
        label[i] = (i * 37) % 101;
    int sweeps = 0;
    do {
        stop[0] = 0;
        #pragma omp target teams distribute parallel for map(tofrom: label[0:n], stop[0:1])
        for (int i = 1; i < n; i++) {
            if (label[i] > 0) {
                label[i] = label[i] - 1;
                #pragma omp atomic write
                stop[0] = 1;
            }
        }
        sweeps++;
    } while (stop[0] && sweeps < 400);
    printf("%d %d %d\\n", sweeps, label[0], label[n - 1]);
    free(label);
    free(stop);
    return 0;
}
"""


def _rewrite(load_source, program: str, name: str = "prog.c") -> str:
    loaded = load_source(program, name=name)
    return EditSet(run_omp(loaded).edits).apply(name, loaded.source).decode()


def test_a_flag_read_in_a_do_while_condition_comes_back_at_the_end_of_each_trip(
        load_source, tmp_path):
    rewritten = _rewrite(load_source, FLAG_LOOP)
    # before the statements that end the body without touching it (sweeps++), every trip
    body_end = rewritten.split("#pragma omp target teams")[1].split("} while (stop[0]")[0]
    assert body_end.count("#pragma omp target update from(stop[0:1])\n        sweeps++;") == 1
    assert "#pragma omp target update to(stop[0:1])" in rewritten
    original, new = run_both(tmp_path, FLAG_LOOP, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.total_bytes < original.copies.total_bytes


def test_a_while_condition_gets_its_copy_at_the_end_of_the_body(load_source, tmp_path):
    program = FLAG_LOOP.replace("    int sweeps = 0;\n    do {", "    int sweeps = 0;\n"
                                "    stop[0] = 1;\n    while (stop[0] && sweeps < 400) {")
    program = program.replace("    } while (stop[0] && sweeps < 400);", "    }")
    assert program.count("while (") == 1
    rewritten = _rewrite(load_source, program)
    body_end = rewritten.split("#pragma omp target teams")[1].split("printf(")[0]
    assert body_end.count("#pragma omp target update from(stop[0:1])\n        sweeps++;") == 1
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()


HELPERS = """#include <stdio.h>
#include <stdlib.h>

double *make_field(int count, double value)
{
    double *p = (double *)malloc(count * sizeof(double));
    if (!p) {
        fprintf(stderr, "out of memory\\n");
        exit(1);
    }
    for (int i = 0; i < count; i++)
        p[i] = value;
    return p;
}

float *make_buffer(size_t pixels)
{
    size_t bytes;
    bytes = pixels * sizeof(float);
    float *buf = (float *)malloc(bytes);
    if (buf == NULL)
        return NULL;
    return buf;
}

char *make_text(int len)
{
    char *s = malloc(len + 1);
    return s;
}
"""

CALLER = """double *make_field(int count, double value);
float *make_buffer(unsigned long pixels);

void use(int n)
{
    double *u = make_field(n * 2, 1.0);
    float *f = make_buffer(n + 1);
}
"""


def test_allocation_helpers_as_people_write_them(load_source):
    model = load_source(HELPERS, name="util.c").model
    helpers = {h.name: h for h in model.allocating_helpers}
    assert helpers["make_field"].count == "count" and helpers["make_field"].kind == "helper"
    assert helpers["make_buffer"].count == "pixels"
    counts = {a.name: a.count.text for a in model.allocations if a.count is not None}
    assert counts["s"] == "len + 1"       # char: the bytes are the elements
    assert counts["buf"] == "pixels"      # size_t bytes; bytes = pixels * sizeof(float);


def test_a_helper_defined_in_another_file_allocates_at_its_call(load_source):
    util = load_source(HELPERS, name="util.c")
    main = load_source(CALLER, name="main.c")
    assert [c.callee for c in main.model.helper_calls] == ["make_field", "make_buffer"]
    program = merge_units([(main.model, main.source), (util.model, util.source)])
    found = {a.name: (a.count.text, a.function) for a in program.unit.allocations
             if a.function == "use"}
    assert found == {"u": ("(n * 2)", "use"), "f": ("(n + 1)", "use")}


def test_a_helper_that_assigns_its_pointer_twice_is_no_summary(load_source):
    source = HELPERS.replace("    return p;", "    p = p + 1;\n    return p;")
    helpers = {h.name for h in load_source(source, name="util.c").model.allocating_helpers}
    assert "make_field" not in helpers and "make_buffer" in helpers


ROW_POINTER = """#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 1200, w = 12;
    float *src = (float *)malloc(n * sizeof(float));
    float *dst = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        src[i] = (float)(i % 9);
    for (int it = 0; it < 3; it++) {
        src[it] += 1.0f;
        #pragma omp target teams distribute parallel for map(to: src[0:n]) map(from: dst[0:n])
        for (int y = 0; y < n / w; y++) {
            const float *row = src + y * w;
            for (int x = 0; x < w; x++)
                dst[y * w + x] = 2.0f * row[x];
        }
    }
    printf("%f %f\\n", dst[0], dst[n - 1]);
    return 0;
}
"""


def test_an_array_read_through_a_pointer_the_kernel_derives_is_mapped(load_source, tmp_path):
    rewritten = _rewrite(load_source, ROW_POINTER)
    # src whole at the entry (the kernel reads it through row), and the element the host
    # changes each trip pushed after it (omp.solver's element pushes; before: src[0:n] each
    # trip)
    assert "map(to: src[0:n])" in rewritten.split("for (int it")[0]
    assert "target update to(src[it:1])" in rewritten.split("#pragma omp target teams")[0]
    original, new = run_both(tmp_path, ROW_POINTER, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()


BY_VALUE = """#include <stdio.h>
#include <stdlib.h>

typedef struct { int n; double *u; double *v; } Field;

static double relax(Field f, int steps)
{
    for (int s = 0; s < steps; s++) {
        #pragma omp target teams distribute parallel for map(to: f.n, f.u[0:f.n]) map(from: f.v[0:f.n])
        for (int i = 0; i < f.n; i++)
            f.v[i] = 0.5 * f.u[i] + 1.0;
        #pragma omp target teams distribute parallel for map(to: f.n, f.v[0:f.n]) map(tofrom: f.u[0:f.n])
        for (int i = 0; i < f.n; i++)
            f.u[i] = f.v[i];
    }
    return f.u[0];
}

int main(void)
{
    Field field;
    field.n = 4000;
    field.u = (double *)malloc(sizeof(double) * field.n);
    field.v = (double *)malloc(sizeof(double) * field.n);
    for (int i = 0; i < field.n; i++)
        field.u[i] = i % 13;
    double first = relax(field, 20);
    printf("%.6f %.6f\\n", first, field.u[field.n - 1]);
    return 0;
}
"""


def test_a_struct_passed_by_value_maps_the_callers_members(load_source, tmp_path):
    rewritten = _rewrite(load_source, BY_VALUE)
    assert "f.u[0:" not in rewritten.split("int main")[1]     # the caller's names
    assert "field.u[0:" in rewritten.split("int main")[1]
    original, new = run_both(tmp_path, BY_VALUE, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.total_bytes < original.copies.total_bytes
