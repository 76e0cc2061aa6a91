"""``s2s omp`` on a program without a target construct reads the files' outlines only
(issue 30, item 1: no walk of every cursor where the pass has nothing to do), with the
same output as the whole models give; a target construct in a project header, or written
through a macro of the user's flags, brings the whole models back."""

from __future__ import annotations

import pytest

from s2s.driver import RunOptions, Success
from s2s.frontend.core.parse import ParseOptions
from s2s.transform import registry
from s2s.transform.omp import run_omp
from s2s.whole_program import process_program

HOST_ONLY = """\
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "sizes.h"

static void scale(double *x, int n, double a)
{
#pragma omp parallel for
    for (int i = 0; i < n; ++i)
        x[i] *= a;
}

int main(void)
{
    double *x = malloc(N * sizeof *x);
    for (int i = 0; i < N; ++i)
        x[i] = i;
    scale(x, N, 2.0);
    OFFLOAD_HINT
    printf("%g %d\\n", x[N - 1], omp_get_max_threads() > 0);
    free(x);
    return 0;
}
"""


def _results(paths, flags=(), needs=True, monkeypatch=None):
    if not needs:
        monkeypatch.setattr(registry, "NEEDS_WORD", {})
    options = RunOptions(parse=ParseOptions(user_flags=tuple(flags)))
    return process_program([str(p) for p in paths], options, run_omp)


def _shown(results):
    """What the CLI prints of a result: diagnostics, counts, the rewrite, the status."""
    return [(r.status, tuple(d.headline() for d in r.diagnostics), getattr(r, "counts", ()),
             getattr(r, "change", None) and r.change.after) for r in results]


@pytest.fixture
def program(tmp_path):
    (tmp_path / "sizes.h").write_text("#define N 1000\n#define OFFLOAD_HINT\n")
    (tmp_path / "host.c").write_text(HOST_ONLY)
    (tmp_path / "util.c").write_text("int util_sum(const int *v, int n)\n{\n    int s = 0;\n"
                                     "    for (int i = 0; i < n; ++i)\n        s += v[i];\n"
                                     "    return s;\n}\n")
    return tmp_path


def test_a_program_without_target_constructs_is_outlined_with_the_same_output(program,
                                                                              monkeypatch):
    files = [program / "host.c", program / "util.c"]
    fast = _results(files)
    assert all(isinstance(r, Success) and r.loaded.outlined for r in fast)
    assert all(not r.loaded.model.functions for r in fast)         # nothing was extracted
    assert fast[0].loaded.model.project_headers == (str(program / "sizes.h"),)
    whole = _results(files, needs=False, monkeypatch=monkeypatch)
    assert all(not r.loaded.outlined and r.loaded.model.functions for r in whole)
    assert _shown(fast) == _shown(whole)
    assert dict(fast[0].counts)["target regions mapped"] == 0


def test_a_target_region_in_a_project_header_brings_the_whole_models(program):
    (program / "sizes.h").write_text(
        "#define N 1000\n#define OFFLOAD_HINT\n"
        "static inline void twice(double *x, int n)\n{\n"
        "#pragma omp target teams distribute parallel for map(tofrom: x[0:n])\n"
        "    for (int i = 0; i < n; ++i)\n        x[i] *= 2;\n}\n")
    results = _results([program / "host.c", program / "util.c"])
    assert not any(r.loaded.outlined for r in results if isinstance(r, Success))
    assert all(r.loaded.model.functions for r in results[:2])


def test_a_target_construct_from_the_users_flags_brings_the_whole_model(program):
    flags = ['-DOFFLOAD_TARGET=_Pragma("omp target update from(x[0:N])")']
    results = _results([program / "util.c"], flags)
    assert not results[0].loaded.outlined and results[0].loaded.model.functions


def test_a_header_with_other_openmp_directives_is_a_unit_of_the_run_as_before(program,
                                                                            monkeypatch):
    """A project header with ``#pragma omp`` (no target) is analysed as a file of its own in
    the program: the run lists it, so its includer is loaded whole, as before."""
    (program / "sizes.h").write_text(
        "#define N 1000\n#define OFFLOAD_HINT\n"
        "static inline void zero(double *x, int n)\n{\n#pragma omp parallel for\n"
        "    for (int i = 0; i < n; ++i)\n        x[i] = 0;\n}\n")
    fast = _results([program / "host.c"])
    whole = _results([program / "host.c"], needs=False, monkeypatch=monkeypatch)
    assert [r.path for r in fast] == [r.path for r in whole] == [str(program / "host.c"),
                                                                   str(program / "sizes.h")]
    assert not fast[0].loaded.outlined
    assert _shown(fast) == _shown(whole)
