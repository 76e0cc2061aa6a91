"""Which kernels overwrite an array completely (so it needs no copy in): the planner then
maps it ``alloc`` instead of ``to``. Each case is a kernel shape from the samples."""

from __future__ import annotations

import pytest

from s2s.analysis.omp.plan import plan_file

PROGRAM = """#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int rows = 12, cols = 7, n = rows * cols;
    const int nel = rows * cols;
    double *a = malloc(nel * sizeof(double)), *b = malloc(nel * sizeof(double));
    for (int i = 0; i < n; i++) { a[i] = -1; b[i] = i; }  /* a holds data: partial writes keep it */
    #pragma omp target teams distribute parallel for map(tofrom: a[0:nel], b[0:nel])
    KERNEL
    printf("%f\\n", a[3]);
    free(a); free(b);
    return 0;
}
"""

FULL = {
    "plain": "for (int i = 0; i < nel; i++) a[i] = b[i];",
    "if_else_split": "for (int i = 0; i < nel; i++) {\n"
                     "    if (i == 0 || i == nel - 1) a[i] = 0.0; else a[i] = b[i] + 1;\n}",
    "conditional_value": "for (int i = 0; i < nel; i++) a[i] = i == 0 ? b[i] : 2 * b[i];",
    "transpose_nest": "for (int i = 0; i < rows; i++)\n"
                      "    for (int j = 0; j < cols; j++) a[(size_t)j * rows + i] = b[i * cols + j];",
    "row_major_nest": "for (int i = 0; i < rows; i++)\n"
                      "    for (int j = 0; j < cols; j++) { a[i * cols + j] = b[i]; }",
    # the index through a local defined once (hotspot's ``int idx = r * col + c;``)
    "index_local": "for (int i = 0; i < rows; i++)\n"
                   "    for (int j = 0; j < cols; j++) {\n"
                   "        int idx = i * cols + j;\n"
                   "        double v = b[idx] * 2;\n"
                   "        a[idx] = v;\n    }",
}

PARTIAL = {
    "one_branch_only": "for (int i = 0; i < nel; i++) { if (i > 0) a[i] = b[i]; }",
    "read_in_condition": "for (int i = 0; i < nel; i++) { if (a[i] > 0) a[i] = 0; else a[i] = 1; }",
    "write_under_conditional_operator": "for (int i = 0; i < nel; i++) i ? (a[i] = 1) : 0;",
    "read_before_write": "for (int i = 0; i < nel; i++) a[i] = a[i] + b[i];",
    "continue_first": "for (int i = 0; i < nel; i++) { if (b[i] < 0) continue; a[i] = b[i]; }",
    "wrong_radix": "for (int i = 0; i < rows; i++)\n"
                   "    for (int j = 0; j < cols; j++) a[i * rows + j] = b[i];",
    "strided_half": "for (int i = 0; i < rows; i++)\n"
                    "    for (int j = 0; j < cols; j++) a[2 * (i * cols + j)] = b[i];",
    "index_local_reassigned": "for (int i = 0; i < rows; i++)\n"
                              "    for (int j = 0; j < cols; j++) {\n"
                              "        int idx = i * cols + j;\n"
                              "        if (b[idx] > 3) idx = 0;\n"
                              "        a[idx] = 1;\n    }",
}


def _entry_of_a(load_source, kernel: str) -> str:
    loaded = load_source(PROGRAM.replace("KERNEL", kernel), name="prog.c")
    plan = plan_file(loaded.model, loaded.source)
    [region] = plan.regions
    [entry] = [m.enter for m in region.arrays if m.name == "a"]
    return entry


@pytest.mark.parametrize("name", sorted(FULL))
def test_complete_overwrite_needs_no_copy_in(load_source, name):
    assert _entry_of_a(load_source, FULL[name]) == "alloc"


@pytest.mark.parametrize("name", sorted(PARTIAL))
def test_partial_or_unprovable_overwrite_copies_in(load_source, name):
    assert _entry_of_a(load_source, PARTIAL[name]) == "to"


# A kernel in a function that main calls: its count is in its own parameters (``rows *
# cols``), the mapped section in main's names (``nel``, defined as ``rows * cols`` there).
CALLEE = """#include <stdio.h>
#include <stdlib.h>
static void fill(double *out, const double *in, int rows, int cols)
{
    int size = rows * cols + 1;
    #pragma omp target teams distribute parallel for collapse(2) map(to: in[0:size]) map(from: out[0:size])
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            int idx = r * cols + c;
            out[idx] = in[idx] + 1.0;
        }
}
int main(void) {
    int h = 12, w = 7;
    const int nel = h * w;
    double *a = malloc(nel * sizeof(double)), *b = malloc(nel * sizeof(double));
    for (int i = 0; i < nel; i++) { a[i] = -1; b[i] = i; }
    fill(a, b, h, w);
    fill(b, a, h, w);
    fill(a, b, h, w);
    printf("%f\\n", a[3]);
    free(a); free(b);
    return 0;
}
"""


def test_a_callee_overwriting_an_array_in_its_own_names_needs_no_copy_in(load_source):
    loaded = load_source(CALLEE, name="prog.c")
    [region] = plan_file(loaded.model, loaded.source).regions
    entries = {m.name: m.enter for m in region.arrays}
    assert entries == {"a": "alloc", "b": "to"}
    # with a different count (the callee's ``size`` is not main's) it stays a partial write
    loaded = load_source(CALLEE.replace("fill(a, b, h, w);", "fill(a, b, h, w - 1);"),
                         name="prog.c")
    [region] = plan_file(loaded.model, loaded.source).regions
    assert {m.name: m.enter for m in region.arrays}["a"] == "to"
