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


def test_target_macros_from_a_header_are_directives_at_their_uses(tmp_path):
    """Issue 28: a target directive written through a macro is planned like any other: a
    directive whose span is the macro use (never edited) and whose statement follows it."""
    path = _write(tmp_path)
    loaded = load(str(path))
    assert loaded.model.macro_directives == ()      # none left unread
    data, kernel = loaded.model.directives
    assert data.words == ("target", "data") and data.span.macro == "OMP_TARGET"
    assert [(m.map_type, [i.text for i in m.items]) for m in data.maps] == \
        [("tofrom", ["a[0:n]"])]
    assert (data.span.line, data.stmt_span.line) == (6, 7)
    assert kernel.is_target_region and kernel.parent == 0 and kernel.span.line == 8
    assert kernel.stmt_span.line == 9 and kernel.stmt_span.macro is None
    warnings = [d for d in loaded.diagnostics if d.id == "omp-pragma-operator"]
    assert [w.location.line for w in warnings] == [4]  # the parallel one is only said


def test_the_macros_own_mapping_is_read_and_nothing_is_left(tmp_path, capsys):
    path = _write(tmp_path)
    before = path.read_bytes()
    assert main(["omp", "--diff", "--strict", str(path)]) == 0
    err = capsys.readouterr().err
    assert "1 target regions mapped" in err and "left in macros" not in err
    assert path.read_bytes() == before


NESTED = """\
#include <stdlib.h>
#include "pragmas.h"
#define TWICE(x) x x
void scale(double *a, int n) {
  TWICE(OMP_TARGET( teams distribute parallel for ) for (int i = 0; i < n; i++) a[i] *= 2;)
}
"""


def test_a_directive_macro_inside_another_macro_is_counted_left(tmp_path, capsys):
    """Inside another macro's arguments nothing can go before the use: still counted."""
    path = _write(tmp_path, NESTED)
    assert main(["omp", "--diff", "--strict", str(path)]) == 1
    assert "1 left in macros" in capsys.readouterr().err


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
