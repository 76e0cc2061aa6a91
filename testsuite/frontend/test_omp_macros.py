"""OpenMP directives written through macros (``_Pragma`` in a header, stringified arguments,
as the Parallel Research Kernels write them) are found where they are used, reported, and
counted: a summary that said "0 left" while such a kernel ran with unmapped pointers lied."""

from __future__ import annotations

from s2s.cli.main import main
from s2s.frontend.extract import load

HEADER = """\
#ifndef PRAGMAS_H
#define PRAGMAS_H
#define PRAGMA(x) _Pragma(#x)
#define OMP_TARGET(x) PRAGMA(omp target x)
#define OMP_PARALLEL(x) PRAGMA(omp parallel x)
#define NOT_A_CALL (1)
#endif
"""

MAIN = """\
#include <stdlib.h>
#include "pragmas.h"
void scale(double *a, int n) {
  OMP_PARALLEL(for)
  for (int i = 0; i < n; i++) a[i] = i;
  OMP_TARGET( data map(tofrom: a[0:n]) )
  {
    OMP_TARGET( teams distribute parallel for )
    for (int i = 0; i < n; i++) a[i] *= NOT_A_CALL;
  }
}
"""


def _write(tmp_path, main: str = MAIN):
    (tmp_path / "pragmas.h").write_text(HEADER)
    path = tmp_path / "main.c"
    path.write_text(main)
    return path


def test_target_macros_from_a_header_are_found_at_their_uses(tmp_path):
    path = _write(tmp_path)
    loaded = load(str(path))
    found = [(m.macro, m.span.line, m.is_target) for m in loaded.model.macro_directives]
    # the parallel directive moves no data: not reported; the data directive and the kernel are
    assert found == [("OMP_TARGET", 6, False), ("OMP_TARGET", 8, True)]
    warnings = [d for d in loaded.diagnostics if d.id == "omp-pragma-operator"]
    assert [w.location.line for w in warnings] == [4, 6, 8]  # the parallel one is only said
    assert "omp target teams distribute parallel" in warnings[2].message


def test_the_summary_counts_them_and_strict_fails(tmp_path, capsys):
    path = _write(tmp_path)
    before = path.read_bytes()
    assert main(["omp", "--diff", str(path)]) == 0
    err = capsys.readouterr().err
    assert "1 left in macros" in err
    assert main(["omp", "--diff", "--strict", str(path)]) == 1
    assert path.read_bytes() == before


def test_files_without_pragma_macros_count_nothing(tmp_path, capsys):
    path = _write(tmp_path, MAIN.replace('#include "pragmas.h"', '#define OMP_TARGET(x)\n'
                                         '#define OMP_PARALLEL(x)\n#define NOT_A_CALL (1)'))
    loaded = load(str(path))
    assert loaded.model.macro_directives == ()
    assert main(["omp", "--diff", str(path)]) == 0
    assert "left in macros" not in capsys.readouterr().err


def test_openmp_guarded_includes_see_omp_h(tmp_path):
    """The parse without -fopenmp defines _OPENMP as the real build does, so code behind
    ``#ifdef _OPENMP #include <omp.h>`` (omp_get_wtime, ...) is declared."""
    path = tmp_path / "timed.c"
    path.write_text("#ifdef _OPENMP\n#include <omp.h>\n#endif\n"
                    "double now(void) { return omp_get_wtime(); }\n")
    loaded = load(str(path))
    assert not [d for d in loaded.diagnostics if d.is_error], loaded.diagnostics
    assert loaded.model is not None
