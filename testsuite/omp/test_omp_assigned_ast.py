"""Whether statements assign a variable, from the AST's mentions (issue 28, omp28v).

``polynomial.assigned_in`` scanned statement text for ``k =``, ``k++``, ``&k``: a macro that
assigns (``BUMP(k)``) was invisible to it. The omp analyses now ask ``omp.changes.assigns_any``
(``VarUse`` roles: a mention inside a macro's expansion sits at the macro's call). Here the
host writes ``b[k]``, bumps ``k`` through the macro and writes ``b[k]`` again on a fresh
buffer: the entry copies of the single elements were ``update to(b[k:1])`` (k is then 3:
``b[2]`` never reached the device, the output was wrong); now ``b[2:1]`` and ``b[3:1]``.
"""

from __future__ import annotations

from testsuite.omp.omp_runs import rewrite_source, run_rewrite_and_host

BUMPED = r"""#include <stdio.h>
#include <stdlib.h>
#define BUMP(v) ((v) = (v) + 1)

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int k = 2;
    double *b = (double *)malloc(sizeof(double) * n);
    double *out = (double *)malloc(sizeof(double) * n);
    b[k] = 7.0;
    BUMP(k);
    b[k] = 5.0;
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
        out[i] = b[2] * i + b[3];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += out[i];
    printf("%.1f %d\n", s, k);
    free(b); free(out);
    return 0;
}
"""


def test_a_macro_that_assigns_the_index_is_seen(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, BUMPED, name="bump.c")
    assert "b[k:1]" not in rewritten, rewritten
    assert dict(out.counts)["target regions mapped"] == 1
    host, device = run_rewrite_and_host(tmp_path, BUMPED, rewritten)
    assert host.stdout == "3501500.0 3\n"
    assert device.returncode == 0 and device.stdout == host.stdout and device.unmapped == ()
