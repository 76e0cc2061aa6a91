"""A host statement that reads and writes one element inside the region's loop (a camera
loop moving a hot pixel: ``src[f * 3] += 0.5f;`` each frame, blur_pipeline): the array goes
in once at the entry and the element is pushed right after each change (omp.solver), where
the plain plan copied the whole array in every frame. Not where a host loop of the region
writes the elements one by one (that would be one copy per element). Parsed in memory; the
rewrite is built once and run on clang-16 host offload and with offload disabled (the
original's output).
"""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_rewrite_and_host

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    float *src = (float *)malloc(n * sizeof(float));
    float *out = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        src[i] = (float)(i % 7);
    double total = 0.0;
    for (int f = 0; f < 5; f++) {
        src[f * 3] += 0.5f;
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            out[i] = 2.0f * src[i];
        total += out[f * 3];
    }
    printf("%.2f\\n", total);
    free(src);
    free(out);
    return 0;
}
"""


def test_an_element_changed_each_pass_is_pushed(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, PROGRAM, name="push.c")
    assert dict(out.counts)["target regions mapped"] == 1, [d.message for d in out.diagnostics]
    assert "map(to: src[0:n])" in rewritten and "target update to(src[0:n])" not in rewritten
    lines = rewritten.splitlines()
    at = next(i for i, line in enumerate(lines) if "src[f * 3] += 0.5f;" in line)
    assert "target update to(src[" in lines[at + 1] and ":1])" in lines[at + 1], rewritten
    original, new = run_rewrite_and_host(tmp_path, PROGRAM, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    # src in once (4,000 B) and one element per frame (5 x 4 B); out[f * 3] back per frame
    assert new.copies.total_bytes == 4000 + 5 * 4 + 5 * 4, new.copies


def test_elements_a_host_loop_changes_are_not_pushed_one_by_one(load_source):
    program = PROGRAM.replace("        src[f * 3] += 0.5f;\n",
                              "        for (int k = 0; k < n; k += 100)\n"
                              "            src[k] += 0.5f;\n")
    rewritten, _out = rewrite_source(load_source, program, name="push.c")
    pushes = [line for line in rewritten.splitlines()
              if "target update to(src[" in line and ":1])" in line]
    assert "target update to(src[0:n])" in rewritten and not pushes, rewritten
