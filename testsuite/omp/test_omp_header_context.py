"""Project headers that compile only inside the file that includes them (issue 28 item 3h).

``kern.h`` uses the type ``real_t`` and the macro ``BLOCK`` that ``main.c`` defines before its
``#include`` line: on its own the header does not parse. It used to be ``header-skipped``: its
target region kept its implicit zero-length mappings while the summary said "0 left unmapped".
Now the header's model comes from ``main.c``'s own parse, its regions are planned with the
program's, and an edit that lands in the header is checked in the context of every file that
includes it.
"""

from __future__ import annotations

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput, RunOptions, Success
from s2s.edits import Edit
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load
from s2s.transform.check import EditGroup
from s2s.verify import omp_harness
from s2s.whole_program import HEADER_CONTEXTS, process_program

KERN = """\
#ifndef KERN_H
#define KERN_H
static void scale(const real_t *a, real_t *b, int n)
{
    #pragma omp target teams distribute parallel for thread_limit(BLOCK)
    for (int i = 0; i < n; i++)
        b[i] += 2.0 * a[i];
}
#endif
"""

MAIN = """\
#include <stdio.h>
#include <stdlib.h>
#define BLOCK 64
typedef double real_t;
#include "kern.h"

int main(void)
{
    int n = 1000;
    real_t *a = (real_t *)malloc(n * sizeof(real_t));
    real_t *b = (real_t *)malloc(n * sizeof(real_t));
    for (int i = 0; i < n; i++) {
        a[i] = i;
        b[i] = 0;
    }
    for (int s = 0; s < 5; s++)
        scale(a, b, n);
    printf("%f %f\\n", b[1], b[n - 1]);
    free(a);
    free(b);
    return 0;
}
"""

#: a second file of the program: the same header, where BLOCK selects other code
OTHER = """\
#define BLOCK 32
#define SCALE_TWICE
typedef double real_t;
#include "kern.h"
void twice(real_t *a, real_t *b, int n) { scale(a, b, n); scale(a, b, n); }
"""


@pytest.fixture
def program(tmp_path, monkeypatch):
    (tmp_path / "kern.h").write_text(KERN)
    (tmp_path / "main.c").write_text(MAIN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_header_does_not_parse_alone_but_is_modelled_in_its_includer(program):
    """The header's model comes from the includer's parse, spans into the header."""
    alone = load("kern.h", ParseOptions(language="c"), source=KERN.encode())
    assert alone.model is None
    loaded = load("main.c", ParseOptions(), source=MAIN.encode())
    [header] = loaded.headers
    assert header.path == "kern.h" and header.source == KERN.encode()
    [region] = [d for d in header.model.directives if d.is_target_region]
    assert region.span.file == "kern.h" and region.span.line == 5
    assert KERN.encode()[region.span.start:region.span.end].startswith(b"#pragma omp target")
    assert [f.name for f in header.model.functions] == ["scale"]
    assert "scale" not in [f.name for f in loaded.model.functions]   # the header's, not main's


def test_kernels_in_such_a_header_are_mapped_and_run_right(program, capsys):
    """Before: ``header-skipped``, the region used a and b unmapped, "0 left unmapped" and
    --strict exit 0. Now: one data region in main, same output, no unmapped pointer, and the
    bytes of one copy in of a and b and of the one element read back."""
    code = main(["omp", "--strict", "-o", "out", "main.c", "--", "-fopenmp"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "header-skipped" not in err and "0 left unmapped" in err
    assert "1 target regions mapped" in err
    rewritten = (program / "out" / "main.c").read_text()
    assert "#pragma omp target enter data map(to: a[0:n], b[0:n])" in rewritten
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    runs = []
    for name, source in (("orig", program / "main.c"), ("new", program / "out" / "main.c")):
        omp_harness.build(source, program / name, extra_flags=[f"-I{program}"])
        runs.append(omp_harness.run(program / name))
    original, new = runs
    assert original.unmapped            # the check can fail: the naive program has them
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    assert new.copies.h2d_bytes == 2 * 1000 * 8
    # b[1] and b[n - 1] read back, one element each
    assert new.copies.d2h_bytes == 2 * 8, new.copies


def _header_edit(text: str):
    """A pass that inserts ``text`` at the start of the header's function, in a group that
    asks for the compile check."""
    def run(loaded):
        function = loaded.model.function("scale")
        edit = Edit(loaded.path, function.span.start, 0, text)
        return PassOutput((edit,), (), (EditGroup("the header's function", (edit,),
                                                  function.span, "omp-rewrite-invalid"),),
                          check_compiles=True)
    return run


def test_an_edit_in_the_header_is_checked_in_its_includer(program):
    """The header's rewrite need not parse on its own: it is checked inside main.c. An edit
    that breaks it there is dropped with a warning; one that does not is applied once, in
    the header."""
    results = process_program(["main.c"], RunOptions(), _header_edit("/* planned */\n"))
    by_path = {r.path: r for r in results}
    assert set(by_path) == {"main.c", "kern.h"}
    header = by_path["kern.h"]
    assert isinstance(header, Success) and not header.incomplete
    assert header.change.after.count(b"/* planned */") == 1
    assert header.change.after.replace(b"/* planned */\n", b"") == KERN.encode()

    results = process_program(["main.c"], RunOptions(), _header_edit("real_t broken = ;\n"))
    header = {r.path: r for r in results}["kern.h"]
    assert not header.change.changed and header.incomplete
    assert any(d.id == "omp-rewrite-invalid" and "does not compile" in d.message
               for d in header.diagnostics)


def test_two_includers_check_the_header_edit_in_both(program):
    """other.c includes the same header; an edit valid in main.c's context but not in
    other.c's (``SCALE_TWICE`` is defined there) is dropped, never applied twice."""
    (program / "other.c").write_text(OTHER)
    guarded = "#ifdef SCALE_TWICE\nthis does not compile;\n#endif\n"
    results = process_program(["main.c", "other.c"], RunOptions(), _header_edit(guarded))
    header = {r.path: r for r in results}["kern.h"]
    assert [r.path for r in results].count("kern.h") == 1
    assert not header.change.changed and header.incomplete

    results = process_program(["main.c", "other.c"], RunOptions(), _header_edit("/* once */\n"))
    header = {r.path: r for r in results}["kern.h"]
    assert header.change.after.count(b"/* once */") == 1


def test_includers_that_read_the_header_differently_are_reported(program):
    """SCALE_TWICE selects other code of the header in other.c: the two models differ, and
    the header (analysed in main.c's context) says so. (A macro that only changes a value
    changes no model: the edits are text, read by the compiler in each includer.)"""
    (program / "kern.h").write_text(KERN.replace(
        "        b[i] += 2.0 * a[i];\n",
        "#ifdef SCALE_TWICE\n        b[i] += 4.0 * a[i];\n#else\n        b[i] += 2.0 * a[i];\n#endif\n"))
    (program / "other.c").write_text(OTHER)
    results = process_program(["main.c", "other.c"], RunOptions(), lambda loaded: PassOutput())
    header = {r.path: r for r in results}["kern.h"]
    [said] = [d for d in header.diagnostics if d.id == HEADER_CONTEXTS]
    assert "in the context of main.c" in said.message and "other.c" in said.message
    (program / "kern.h").write_text(KERN)
    results = process_program(["main.c", "other.c"], RunOptions(), lambda loaded: PassOutput())
    header = {r.path: r for r in results}["kern.h"]
    assert not [d for d in header.diagnostics if d.id == HEADER_CONTEXTS]
