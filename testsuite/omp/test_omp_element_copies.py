"""Pointers copied out of an array of pointers whose elements a loop allocates (issue 28, 3e;
miniBUDE's ``auto poses_0 = poses[0];`` from a ``std::array<float *, 6>``;
omp.element_copies). Before, the copies had no element count: the plan could not map them,
and the construct kept unmapped pointers ("its element count is not known"). Each program
runs on clang-16 host offload, its output compared with the original's."""

from __future__ import annotations

import pytest

from testsuite.omp.omp_runs import rewrite_source, run_both

PROGRAM = """#include <array>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    const int n = argc > 5 ? atoi(argv[1]) : 3000;
    ARRAY
    float *out = (float *)malloc(sizeof(float) * n);
    for (int k = 0; k < 3; k++)
        comp[k] = static_cast<float *>(std::malloc(sizeof(float) * n));
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < n; i++)
            comp[k][i] = k + 0.001f * (i % 97);
    BEFORE
    auto c0 = comp[0];
    auto c1 = comp[1];
    float *c2 = comp[2];
    AFTER
    for (int step = 0; step < 4; step++) {
#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            out[i] = c0[i] * c1[i] + c2[i] + step;
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += out[i];
    printf("%.4f\\n", s);
    for (auto &p : comp)
        free(p);
    free(out);
    return 0;
}
"""

STD_ARRAY = "std::array<float *, 3> comp{};"
C_ARRAY = "float *comp[3];"


def _program(array: str, before: str = "", after: str = "") -> str:
    return PROGRAM.replace("ARRAY", array).replace("BEFORE", before).replace("AFTER", after)


def _run(tmp_path, program: str, rewritten: str):
    original, new = run_both(tmp_path, program, rewritten, suffix=".cpp")
    assert original.returncode == 0 and new.returncode == 0, new.stderr[-800:]
    assert new.stdout == original.stdout
    return new


@pytest.mark.parametrize("array", [STD_ARRAY, C_ARRAY], ids=["std_array", "c_array"])
def test_the_copies_get_the_elements_count(load_source, tmp_path, array):
    program = _program(array)
    rewritten, out = rewrite_source(load_source, program)
    assert "map(to: c0[0:n], c1[0:n], c2[0:n]) map(from: out[0:n])" in rewritten
    assert dict(out.counts)["target regions mapped"] == 1
    new = _run(tmp_path, program, rewritten)
    assert new.unmapped == ()
    # the three 12,000-byte inputs in once, out back once (the step is firstprivate)
    assert new.copies.total_bytes == 4 * 12000, new.copies


def test_an_element_re_pointed_before_the_copy_is_counted_by_what_the_kernel_touches(
        load_source, tmp_path):
    # an element written other than by an allocation has no count of its own (comp[1] + 1
    # would hold n - 1 elements): the count is the range the function's kernel touches
    # (omp.touched_counts), the elements the original construct reads in any case
    program = _program(STD_ARRAY, before="comp[1] = comp[1] + (argc > 7);")
    rewritten, out = rewrite_source(load_source, program)
    assert "map(to: c0[0:n], c1[0:n], c2[0:n])" in rewritten.split("#pragma omp target teams")[0]
    assert dict(out.counts)["target regions mapped"] == 1
    assert _run(tmp_path, program, rewritten).unmapped == ()


def test_a_copy_given_another_value_gives_no_count(load_source, tmp_path):
    program = _program(STD_ARRAY, after="if (argc > 7) c1 = out;")
    rewritten, out = rewrite_source(load_source, program)
    assert "c1[0:n]" not in rewritten.split("#pragma omp target teams")[0]
    _run(tmp_path, program, rewritten)


def test_the_array_handed_to_a_call_before_the_copy_is_counted_by_what_the_kernel_touches(
        load_source, tmp_path):
    program = _program(STD_ARRAY, before="std::swap(comp[0], comp[2]);")
    rewritten, out = rewrite_source(load_source, program)
    assert "c0[0:n]" in rewritten.split("#pragma omp target teams")[0]
    assert _run(tmp_path, program, rewritten).unmapped == ()
