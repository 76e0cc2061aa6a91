"""Target constructs with an ``if`` clause inside a planned data region (omp.if_guards).

TeaLeaf's halo kernels run ``#pragma omp target ... if(is_offload)``: on the host when the
flag is false, on the host copies. The plan used to refuse every root reaching one; now the
construct is guarded by ``target update if(!(flag)) from(...)`` before and ``to(...)`` after,
so the device copy stays the fresh one either way. The program runs the kernel on the host
every third step: without the guards its checksum differs (measured: 47956.957600947), with
them it is the original's. Runs use one thread: clang-16's libomp asserts on a
``target teams ... if(0)`` fallback with more (TeaLeaf's own runs are single-threaded too).
"""

from __future__ import annotations

import pytest

from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source

HALO = """#include <stdio.h>
#include <stdlib.h>

static void reflect(int n, double *u, int on_device)
{
#pragma omp target teams distribute parallel for if(on_device)
    for (int i = 0; i < 2; i++)
        u[i] = u[4 - i];
}

static void smooth(int n, double *u, double *w)
{
#pragma omp target teams distribute parallel for
    for (int i = 1; i < n - 1; i++)
        w[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
#pragma omp target teams distribute parallel for
    for (int i = 1; i < n - 1; i++)
        u[i] = w[i];
}

int main(void)
{
    int n = 4000;
    double *u = malloc(n * sizeof(double));
    double *w = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        u[i] = (i % 17) * 0.5;
        w[i] = 0.0;
    }
    for (int step = 0; step < 20; step++) {
        reflect(n, u, step % 3 != 0);
        smooth(n, u, w);
    }
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += u[i] * (i % 7);
    printf("checksum %.9f\\n", s);
    free(u);
    free(w);
    return 0;
}
"""


def _run(tmp_path, name: str, text: str):
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    omp_harness.build(source, tmp_path / name)
    return omp_harness.run(tmp_path / name, env={"OMP_NUM_THREADS": "1"})


def test_a_construct_with_an_if_clause_is_guarded_inside_the_region(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, HALO, name="halo.c")
    reflect = rewritten[rewritten.index("static void reflect"):rewritten.index("static void smooth")]
    assert reflect.index("#pragma omp target update if(!(on_device)) from(u[0:5])") < \
        reflect.index("if(on_device)\n") < \
        reflect.index("#pragma omp target update if(!(on_device)) to(u[0:5])"), reflect
    assert "#pragma omp target enter data map(to: u[0:n]) map(alloc: w[0:n])" in rewritten
    assert ("target regions mapped", 3) in out.counts
    again, _ = rewrite_source(load_source, rewritten, name="halo.c")
    assert again == rewritten
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    original, new = _run(tmp_path, "orig", HALO), _run(tmp_path, "new", rewritten)
    assert original.stdout == "checksum 47957.450181458\n" and new.stdout == original.stdout
    assert original.unmapped and new.unmapped == ()
    # u in once, w allocated; 7 host steps fetch and push u[0:5]; u back at the end but
    # its last element (no kernel writes it)
    assert new.copies.h2d_bytes == 4000 * 8 + 7 * 5 * 8
    assert new.copies.d2h_bytes == 7 * 5 * 8 + 2 * 8 + 3998 * 8  # u[0:2], u[1:n - 2]


def test_a_condition_that_is_no_plain_name_keeps_the_root_refused(load_source):
    program = HALO.replace("if(on_device)", "if(on_device && n > 10)")
    rewritten, out = rewrite_source(load_source, program, name="halo.c")
    assert "target enter data" not in rewritten and "target update if" not in rewritten
    reasons = [d.message for d in out.diagnostics if "has an if clause" in d.message]
    assert reasons and "is not a plain name" in reasons[0], reasons
