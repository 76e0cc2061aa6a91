"""Pointers taken through a class's accessor (issue 28, 3c): ``int *rp = A.row_ptr();``
returning a private vector's ``.data()``, the vector resized in a member function other than
the constructor. The count is the class's invariant (``A.rows() + 1``) where the facts prove
it, and the program without any map clause is rewritten to map it (run on clang-16 host
offload: same output, no unmapped pointer); where a second member function may change the
vector's size, no count is made and the construct says so."""

from __future__ import annotations

from s2s.analysis.omp.accessor_counts import accessor_count
from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source, run_both

CLASS = """
#include <cstdio>
#include <vector>

class Table {
public:
    Table() : rows_(0), cols_(0) {}
    void shape(int rows, int cols)
    {
        rows_ = rows;
        cols_ = cols;
        offsets_.resize(rows + 1);
        cells_.resize(rows * cols);
    }
    int rows() const { return rows_; }
    int cols() const { return cols_; }
    int *offsets() { return offsets_.data(); }
    double *cells() { return cells_.data(); }
%EXTRA%
private:
    int rows_, cols_;
    std::vector<int> offsets_;
    std::vector<double> cells_;
};

int main()
{
    Table t;
    t.shape(300, 7);
    int *off = t.offsets();
    double *c = t.cells();
    const int n = t.rows(), m = t.cols();
    for (int r = 0; r <= n; r++) off[r] = r * m;
    for (int k = 0; k < n * m; k++) c[k] = (k % 11) * 0.5;
    for (int step = 0; step < 3; step++) {
        #pragma omp target teams distribute parallel for
        for (int r = 0; r < n; r++)
            for (int k = off[r]; k < off[r + 1]; k++)
                c[k] = c[k] * 0.5 + r;
    }
    double s = 0.0;
    for (int k = 0; k < n * m; k++) s += c[k];
    std::printf("%.6f\\n", s);
    return 0;
}
"""
GROWS = "    void add_row() { offsets_.push_back(offsets_.back()); }\n"


def test_an_accessor_value_is_counted_by_the_class_invariant(load_source):
    loaded = load_source(CLASS.replace("%EXTRA%", ""), name="prog.cpp")
    values = {f.names[0]: f.names[4] for f in loaded.model.classes
              if f.kind == "accessor_value"}
    assert values == {"off": "offsets_", "c": "cells_"}
    assert accessor_count(loaded.model, "Table", "offsets_") == \
        ("rows_ + 1", {"rows_": "rows"})
    assert accessor_count(loaded.model, "Table", "cells_") == \
        ("rows_ * cols_", {"rows_": "rows", "cols_": "cols"})


def test_a_second_method_changing_the_size_gives_no_count(load_source):
    loaded = load_source(CLASS.replace("%EXTRA%", GROWS), name="prog.cpp")
    assert accessor_count(loaded.model, "Table", "offsets_") is None
    assert accessor_count(loaded.model, "Table", "cells_") is not None
    rewritten, out = rewrite_source(load_source, CLASS.replace("%EXTRA%", GROWS))
    assert "off[0:t.rows() + 1]" not in rewritten
    assert any("'off'" in d.message for d in out.diagnostics), \
        [d.message for d in out.diagnostics]


def test_the_accessor_program_without_maps_runs_mapped(load_source, tmp_path):
    program = CLASS.replace("%EXTRA%", "")
    rewritten, out = rewrite_source(load_source, program)
    counts = dict(out.counts)
    assert counts["left unmapped"] == 0, [d.message for d in out.diagnostics]
    assert "off[0:t.rows() + 1]" in rewritten and "c[0:t.rows() * t.cols()]" in rewritten
    original, new = run_both(tmp_path, program, rewritten, suffix=".cpp")
    assert original.unmapped and new.unmapped == ()
    assert new.returncode == 0 and new.stdout == original.stdout
    assert omp_harness.unmapped_constructs(new) == 0
