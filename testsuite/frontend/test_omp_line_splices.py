"""Line splices (backslash-newline) right before a token inside ``#pragma omp`` clauses.

Found by the fuzzer (``s2s.verify.fuzz``, seed 1186 of the first 1000-case run): clang counts
a splice that directly precedes a token as part of that token, so in ::

    #pragma omp target teams distribute parallel for map( \\
    from: a[0:n])

the token ``from`` starts at the backslash. Its spelling was cleaned but the clause texts were
cut from the raw source, so the modifier read ``'\\<newline>from'``: a bogus warning "unknown
map modifier" with a newline inside its message (which broke the one-line diagnostic format),
the map type lost, and list items (``\\<newline>a[0:n]``) or section lengths (``n*\\<newline>m``)
that no longer matched the same names on one line, giving worse plans (``to`` instead of
``alloc``, extra updates) and a false "uses 'a' without a mapping" warning.
"""

from __future__ import annotations

import io

import pytest

from s2s.cli.main import main

ONE_LINE = "map(from: a[0:n*m])"
SPLICED = [
    "map( \\\nfrom: a[0:n*m])",
    "map(from: \\\na[0:n*m])",
    "map(from: a[0:\\\nn*m])",
    "map(from: a[0:n*\\\nm])",
    "map(from: a[0:n*\\\r\nm])",
    "map(from\\\n: a[0:n*m])",
]


def program(clause: str) -> str:
    return ("void f(int n, int m, double *a) {\n"
            f"#pragma omp target teams distribute parallel for {clause}\n"
            "  for (int i = 0; i < n*m; ++i) a[i] = i;\n"
            "  a[0] = 1;\n"
            "#pragma omp target teams distribute parallel for map(tofrom: a[0:n*m])\n"
            "  for (int i = 0; i < n*m; ++i) a[i] += i;\n"
            "}\n")


@pytest.mark.parametrize("clause", SPLICED)
def test_spliced_map_clause_reads_as_on_one_line(load_source, clause):
    loaded = load_source(program(clause), "x.c", openmp_check=False)
    warnings = [d.headline() for d in loaded.diagnostics if d.id.startswith("omp-")]
    assert warnings == []
    first = loaded.model.directives[0].maps[0]
    assert (first.map_type, first.implicit_type) == ("from", False)
    item = first.items[0]
    assert (item.text, item.base, item.root) == ("a[0:n*m]", "a", "a")
    assert (item.sections[0].lower.text, item.sections[0].length.text) == ("0", "n*m")


def _omp_plan_lines(tmp_path, clause: str) -> tuple[int, list[str], str]:
    path = tmp_path / "x.c"
    path.write_bytes(program(clause).encode())
    out, err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["omp", str(path)])
    added = [line[1:].strip() for line in out.getvalue().splitlines()
             if line.startswith("+") and not line.startswith("+++")]
    return code, added, err.getvalue()


@pytest.mark.parametrize("clause", SPLICED)
def test_spliced_map_clause_gets_the_one_line_plan(tmp_path, clause):
    expected = _omp_plan_lines(tmp_path, ONE_LINE)
    code, added, err = _omp_plan_lines(tmp_path, clause)
    assert (code, added) == expected[:2], err
    assert "warning" not in err
    # (the kernels' own map clauses are moot inside the region: removed, splices and all)
    assert added == ["#pragma omp target enter data map(alloc: a[0:n*m])",
                     "#pragma omp target teams distribute parallel for",
                     "#pragma omp target update to(a[0:1])",
                     "#pragma omp target teams distribute parallel for",
                     "#pragma omp target exit data map(from: a[0:n*m])"]
