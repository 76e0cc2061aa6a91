"""omp.scope finds the function around an edit in a per-unit index (issue 30: a scan of every
function for each edit was a second of the 50,000-line program's run). The index must answer
as the scan did: the first function of ``model.functions`` with a body whose span holds the
offset, in the same file; nested definitions (a local class's method inside a function, a
lambda's body) and offsets between functions included. Parsed in memory."""

from __future__ import annotations

import os

from s2s.analysis.omp.scope import function_at

NESTED = """#include <stdlib.h>

static int twice(int v) { return 2 * v; }

struct Grid {
    int cells;
    double *t;
    void clear() { for (int i = 0; i < cells; i++) t[i] = 0.0; }
};

int run(int n)
{
    struct Local {
        int k;
        int step(int v) { return v + k; }
    };
    Local l{3};
    auto add = [&](int v) { return v + n; };
    return l.step(add(twice(n)));
}

int main(int argc, char **argv)
{
    Grid g{argc, (double *)malloc(sizeof(double) * argc)};
    g.clear();
    free(g.t);
    return run(argc);
}
"""


def _scanned(model, path: str, offset: int):
    """The linear scan the index replaced."""
    for function in model.functions:
        span = function.span
        if function.body is not None and span.start <= offset < span.end and (
                span.file == path or os.path.realpath(span.file) == os.path.realpath(path)):
            return function
    return None


def test_the_index_finds_the_function_the_scan_found_at_every_offset(load_source):
    model = load_source(NESTED, name="nested.cpp", user_flags=("-fopenmp",)).model
    bodies = [f for f in model.functions if f.body is not None]
    assert {"twice", "run", "main"} <= {f.name for f in bodies}, [f.name for f in bodies]
    # the local class's method lies inside run's span: the nesting the index must handle
    assert any(f is not g and g.span.start < f.span.start < f.span.end <= g.span.end
               for f in bodies for g in bodies), [(f.name, f.span) for f in bodies]
    found = set()
    for offset in range(len(NESTED.encode()) + 1):
        expected = _scanned(model, "nested.cpp", offset)
        assert function_at(model, "nested.cpp", offset) is expected, offset
        found.add(expected and expected.name)
    assert None in found and {"twice", "run", "main"} <= found, found
    # another file's offsets: nothing
    assert function_at(model, "other.cpp", NESTED.index("return run")) is None
