"""Copies cut to the elements the device touches (issue 17 item 8, omp.touched).

Each program is run before and after on clang-16 host offload: same output, no unmapped
pointer, and the exact bytes moved. Where an element outside the kernels' range would come
back from the device (an exit copy, an alias that counts from another element, a kernel in a
called function), the copies stay whole, and the run shows they had to.
"""

from __future__ import annotations

from s2s.analysis.omp.arrays import MappedArray
from s2s.analysis.omp.touched import unsound
from s2s.transform.omp import run_omp
from testsuite.omp.omp_runs import rewrite_source, run_both

# A layer with a bias element: the host sets act[0] = 1 every step and reads the whole
# layer; the kernel writes act[1..n] and reads a padded input of which it uses n elements
# (the host refills all n + 8 each step).
BIAS_AND_PADDING = r"""#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4000, steps = 5;
    double *in = (double *)malloc((n + 8) * sizeof(double));
    double *act = (double *)malloc((n + 1) * sizeof(double));
    double total = 0.0;
    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < n + 8; ++i)
            in[i] = (double)((i * 7 + s) % 13);
        act[0] = 1.0;
#pragma omp target teams distribute parallel for map(to: in[0:n + 8]) map(tofrom: act[0:n + 1])
        for (int j = 1; j <= n; ++j)
            act[j] = 0.5 * in[j - 1];
        for (int j = 0; j <= n; ++j)
            total += act[j];
    }
    printf("total %.3f\n", total);
    free(in);
    free(act);
    return 0;
}
"""


def test_updates_move_only_the_elements_the_kernels_touch(load_source, tmp_path):
    rewritten = rewrite_source(load_source, BIAS_AND_PADDING, "prog.c")[0]
    assert "target update to(in[0:n])" in rewritten
    assert "target update from(act[1:n])" in rewritten
    # act[0] is the host's alone: it never goes over
    assert "act[0:1]" not in rewritten
    original, new = run_both(tmp_path, BIAS_AND_PADDING, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    n, steps = 4000, 5
    assert new.copies.h2d_bytes == steps * n * 8
    assert new.copies.d2h_bytes == steps * n * 8
    assert rewrite_source(load_source, rewritten, "prog.c")[0] == rewritten


# The padded buffer is updated in place by the kernel and read whole by the host at the end,
# and the host rewrites its padding every step. The padding is no kernel's: its writes need
# no copy at all (before: the whole buffer came back and went over again every step), and
# what comes back at the end is the part the kernel wrote.
COPIED_BACK = r"""#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 3000, steps = 4;
    double *buf = (double *)calloc(n + 4, sizeof(double));
    for (int s = 0; s < steps; ++s) {
        for (int i = n; i < n + 4; ++i)
            buf[i] = s + i;
#pragma omp target teams distribute parallel for map(tofrom: buf[0:n + 4])
        for (int i = 0; i < n; ++i)
            buf[i] += 1.0;
    }
    double sum = 0.0;
    for (int i = 0; i < n + 4; ++i)
        sum += buf[i];
    printf("sum %.1f\n", sum);
    free(buf);
    return 0;
}
"""


def test_host_writes_outside_the_kernels_range_need_no_copy(load_source, tmp_path):
    rewritten = rewrite_source(load_source, COPIED_BACK, "prog.c")[0]
    assert "target update to" not in rewritten
    original, new = run_both(tmp_path, COPIED_BACK, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    n = 3000
    assert (new.copies.h2d_count, new.copies.h2d_bytes) == (1, (n + 4) * 8)
    assert (new.copies.d2h_count, new.copies.d2h_bytes) == (1, n * 8)
    assert rewrite_source(load_source, rewritten, "prog.c")[0] == rewritten


def test_passed_over_host_writes_are_planned_again_when_a_copy_could_bring_them_back():
    # (the runs above never reach this: s2s plans read-backs of the kernel's part)
    hulls = {"buf": (frozenset({"buf"}), "[0:n]")}
    whole = MappedArray("buf", "[0:n + 4]", "to", "from")
    released = MappedArray("buf", "[0:n + 4]", "to", "release")
    assert unsound(frozenset({"buf"}), hulls, "main", [whole], [], []) == {"buf"}
    assert unsound(frozenset({"buf"}), hulls, "main", [released], [], ["buf[0:n]"]) == set()
    assert unsound(frozenset({"buf"}), hulls, "main", [released], [], ["buf[0:n + 1]"]) == \
        {"buf"}
    assert unsound(frozenset(), hulls, "main", [whole], [], []) == set()


# The kernel counts from the second element (``u = base + 1``, set before the loop) while
# the host refills the array through ``base``. Before this test the plan gave ``u`` storage
# of its own, copied it in once and never again: the kernel doubled old values (acc 12.0
# instead of 15.0). Now the function is left as written, with the reason.
OFFSET_ALIAS = r"""#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 2000, steps = 3;
    double *base = (double *)malloc((n + 2) * sizeof(double));
    double *u = base + 1;
    double acc = 0.0;
    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < n + 2; ++i)
            base[i] = i % 5 + s;
#pragma omp target teams distribute parallel for map(tofrom: u[0:n])
        for (int i = 0; i < n; ++i)
            u[i] = 2.0 * u[i];
        acc += base[0] + base[n] + base[n + 1];
    }
    printf("acc %.1f\n", acc);
    free(base);
    return 0;
}
"""


def test_a_kernel_pointer_into_another_array_leaves_the_function_as_written(load_source,
                                                                           tmp_path):
    loaded = load_source(OFFSET_ALIAS, name="prog.c")
    out = run_omp(loaded)
    assert not out.edits
    [warning] = [d for d in out.diagnostics if d.id == "omp-unsupported"]
    assert "'u' points into 'base' at an offset (line 8)" in warning.message
    original, new = run_both(tmp_path, OFFSET_ALIAS, OFFSET_ALIAS)
    assert new.returncode == 0 and new.stdout == original.stdout == "acc 15.0\n"
