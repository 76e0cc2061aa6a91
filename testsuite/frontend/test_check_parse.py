"""The check of an OpenMP C/C++ rewrite is one libclang parse (with -fopenmp), not two (issue 30).

The load parses a file twice (without -fopenmp for the loops, with it for the directives'
diagnostics); a rewrite's check needs only the second: what the rewrite breaks in the first,
it breaks in the second as well. These tests hold the single parse to the verdicts of the
two-parse check (parse_source) on rewrites of each kind the omp pass writes - clauses,
data regions around statements, braces - good and broken, and count the parses.
"""

from __future__ import annotations

import pytest

from s2s.frontend.core import parse
from s2s.frontend.core.parse import ParseOptions, check_parse, one_parse_checks, parse_source

ORIGINAL = b"""#include <stdlib.h>
#define N 64
void scale(float *a, int n) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) a[i] *= 2.0f;
}
int main(void) {
  float *a = malloc(N * sizeof *a);
  for (int it = 0; it < 3; ++it)
    scale(a, N);
  free(a);
  return 0;
}
"""

#: (what the rewrite does, old text, new text, whether it is broken)
REWRITES = [
    ("a clause", b"parallel for\n", b"parallel for map(tofrom: a[0:n])\n", False),
    ("a data region around a loop", b"  for (int it", b"#pragma omp target data map(tofrom: a[0:N])\n"
     b"  for (int it", False),
    ("a data region in braces", b"  for (int it = 0; it < 3; ++it)\n    scale(a, N);\n",
     b"  {\n#pragma omp target data map(tofrom: a[0:N])\n  for (int it = 0; it < 3; ++it)\n"
     b"    scale(a, N);\n  }\n", False),
    ("a clause naming no variable", b"parallel for\n", b"parallel for map(tofrom: b[0:n])\n", True),
    ("a clause that does not parse", b"parallel for\n", b"parallel for map(tofrom a[0:n]\n", True),
    ("a directive that binds nothing", b"  free(a);", b"#pragma omp target data map(to: a[0:N])\n"
     b"}\n  free(a);", True),
    ("a declaration moved into braces", b"  float *a = malloc(N * sizeof *a);\n",
     b"  {\n  float *a = malloc(N * sizeof *a);\n  }\n", True),
]


@pytest.mark.parametrize("what, old, new, broken", REWRITES, ids=[r[0] for r in REWRITES])
def test_one_parse_gives_the_verdict_of_two(what, old, new, broken, monkeypatch):
    rewrite = ORIGINAL.replace(old, new, 1)
    assert rewrite != ORIGINAL
    parses = []
    real = parse._parse
    monkeypatch.setattr(parse, "_parse", lambda *a, **k: parses.append(a[1]) or real(*a, **k))
    one = [d for d in check_parse(rewrite, "scale.c", ParseOptions()).diagnostics if d.is_error]
    assert len(parses) == 1 and "-fopenmp" in parses[0]
    two = [d for d in parse_source(rewrite, "scale.c", ParseOptions()).diagnostics if d.is_error]
    assert len(parses) == 3
    assert bool(one) == bool(two) == broken, (what, one, two)
    if broken:      # the same first error, where the old check saw it with -fopenmp too
        assert one[0].location.line in {d.location.line for d in two}


def test_the_original_parses_without_errors():
    assert not check_parse(ORIGINAL, "scale.c", ParseOptions()).has_errors


@pytest.mark.parametrize("name, text, options", [
    ("k.cu", b"__global__ void k(float *a) { a[0] = 1.0f; }\n", ParseOptions()),
    ("plain.c", b"int twice(int x) { return 2 * x; }\n", ParseOptions()),
    ("scale.c", ORIGINAL, ParseOptions(openmp_check=False)),
])
def test_other_files_are_checked_by_the_load_parse(name, text, options, monkeypatch):
    """CUDA, a file without OpenMP, or the -fopenmp parse turned off: parse_source itself."""
    assert not one_parse_checks(text, name, options)
    calls = []
    monkeypatch.setattr(parse, "parse_source", lambda *a, **k: calls.append(a) or "parsed")
    assert check_parse(text, name, options) == "parsed" and len(calls) == 1


HEADER = b"""static inline void twice(float *a, int n) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) a[i] *= 2.0f;
}
"""
INCLUDER = b'#include <omp.h>\n#include "twice.h"\nint main(void) { float a[8] = {0}; twice(a, 8); return 0; }\n'


@pytest.mark.parametrize("new, broken", [
    (b"parallel for map(tofrom: a[0:n])\n", False),
    (b"parallel for map(tofrom: b[0:n])\n", True),
    (b"parallel for\n{\n", True),
])
def test_a_header_s_rewrite_checked_in_its_includer(new, broken, tmp_path, monkeypatch):
    """A project header's rewrite is checked in each file that includes it (driver's
    _errors_in_context): the includer parsed once, the header's text from memory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "twice.h").write_bytes(HEADER)
    rewrite = ((str(tmp_path / "twice.h"), HEADER.replace(b"parallel for\n", new, 1)),)
    assert one_parse_checks(INCLUDER, "main.c", ParseOptions())
    one = check_parse(INCLUDER, "main.c", ParseOptions(), unsaved=rewrite)
    two = parse_source(INCLUDER, "main.c", ParseOptions(), unsaved=rewrite)
    assert one.has_errors == two.has_errors == broken
