"""Host probes after the last kernel (s2s/analysis/omp/probe.py): element copies inside the
extended data region where they move fewer bytes, the whole read-back where they may not.

Each program is rewritten, checked for the directives a careful person would write, and
run before and after (clang-16 host offload) to compare outputs and unmapped pointers.
"""

from __future__ import annotations

import pytest

from s2s.edits import EditSet
from s2s.transform.omp import run_omp
from s2s.verify import omp_harness

HEAD = "#include <stdio.h>\n#include <stdlib.h>\n"

# Kernels update x and y; afterwards the host prints elements at data-dependent indices.
PROGRAM = """
int main(int argc, char **argv) {
    int n = 1000;
    int m = argc > 5 ? 2 : 4;
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { x[i] = i; y[i] = 2 * i; }
    for (int t = 0; t < 3; t++) {
        #pragma omp target teams distribute parallel for map(tofrom: x[0:n], y[0:n])
        for (int i = 0; i < n; i++) { x[i] = 0.5 * x[i] + y[i]; y[i] += 1; }
    }
    const int probe[4] = {3, n / 3, n / 2 + 7, n - 1};
    %s
    free(x); free(y);
    return 0;
}
"""

CONSTANT_TRIPS = """for (int k = 0; k < 4; ++k) {
        int i = probe[k] < n ? probe[k] : n - 1;
        printf("%d %g %g\\n", i, x[i], y[i]);
    }"""

UNKNOWN_TRIPS = """for (int k = 0; k < m; ++k) {
        int i = probe[k];
        printf("%d %g %g\\n", i, x[i], y[i]);
    }"""

HOST_WRITE = """for (int k = 0; k < 4; ++k) {
        int i = probe[k];
        x[i] = x[i] + 1;
        printf("%d %g %g\\n", i, x[i], y[i]);
    }"""

REASSIGNED = """for (int k = 0; k < 4; ++k) {
        int i = probe[k];
        double first;
        double v = (first = y[i], i = (i + 1) % n, first + y[i]);
        printf("%d %g %g\\n", i, x[i], v);
    }"""


def _rewrite(load_source, tail: str, tmp_path) -> str:
    source = HEAD + PROGRAM.replace("%s", tail, 1)
    loaded = load_source(source, name="prog.c")
    output = run_omp(loaded)
    rewritten = EditSet(output.edits).apply("prog.c", loaded.source).decode()
    again = run_omp(load_source(rewritten, name="prog.c"))
    assert not again.edits  # s2s on its own output changes nothing
    _same_output(source, rewritten, tmp_path)
    return rewritten


def _same_output(original: str, rewritten: str, tmp_path) -> None:
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    results = []
    for name, text in (("orig", original), ("new", rewritten)):
        (tmp_path / f"{name}.c").write_text(text)
        omp_harness.build(tmp_path / f"{name}.c", tmp_path / name)
        results.append(omp_harness.run(tmp_path / name))
    assert results[1].returncode == 0 and results[1].unmapped == ()
    assert results[0].stdout == results[1].stdout


def _updates(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "target update" in line]


def test_probes_in_a_constant_trip_loop_get_element_copies(load_source, tmp_path):
    text = _rewrite(load_source, CONSTANT_TRIPS, tmp_path)
    # 4 trips x 1 element beats x[0:n]: the region extends over the probe loop and each
    # read gets its element; the exit only releases.
    assert _updates(text) == ["#pragma omp target update from(x[i:1], y[i:1])"]
    assert "#pragma omp target exit data map(release: x[0:n], y[0:n])\n    free(x)" in text
    loop = text.index("for (int k = 0")
    assert loop < text.index("update from(x[i:1], y[i:1])") < text.index("printf(\"%d %g %g")


def test_probes_in_a_loop_of_unknown_trip_count_keep_the_whole_read_back(load_source,
                                                                        tmp_path):
    text = _rewrite(load_source, UNKNOWN_TRIPS, tmp_path)
    # m copies of one element could exceed one copy of n: the rule takes only known numbers.
    assert _updates(text) == []
    assert "#pragma omp target data map(tofrom: x[0:n], y[0:n])\n    for (int t = 0" in text


def test_probe_loop_that_writes_the_array_on_the_host_falls_back(load_source, tmp_path):
    text = _rewrite(load_source, HOST_WRITE, tmp_path)
    # Element copies of x inside a loop that writes x on the host would bring stale device
    # elements over fresh host ones on a later trip: x comes back whole, before the loop;
    # y (only read) still gets its elements.
    assert "#pragma omp target update from(y[i:1])" in text
    assert "#pragma omp target update from(x[0:n])" in text
    assert "update from(x[i:1])" not in text
    assert text.index("update from(x[0:n])") < text.index("for (int k = 0")


def test_index_reassigned_inside_the_reading_statement_is_not_an_element_copy(load_source,
                                                                            tmp_path):
    text = _rewrite(load_source, REASSIGNED, tmp_path)
    # The statement reads y[i] before and after changing i: a copy of y[i:1] in front of
    # it would not cover the second read; y comes back whole.
    assert "update from(y[i:1])" not in text
    assert "#pragma omp target update from(y[0:n])" in text
    assert "#pragma omp target update from(x[i:1])" in text


def _planned_updates(load_source, tail: str) -> list[tuple[str, str]]:
    from s2s.analysis.omp.plan import plan_file

    loaded = load_source(HEAD + PROGRAM.replace("%s", tail, 1), name="prog.c")
    [region] = plan_file(loaded.model, loaded.source).regions
    return [(u.item, u.anchor.kind) for u in region.updates] + \
        [(item, "exit") for item in region.exit_updates]


def test_equal_bytes_keep_the_single_hoisted_copy(load_source):
    # x[0..2] read one by one or as x[0:3]: the same bytes, one copy instead of three.
    tail = "for (int k = 0; k < 3; ++k)\n        printf(\"%g\\n\", x[k]);"
    assert _planned_updates(load_source, tail) == [("x[0:3]", "exit")]


def test_sparse_elements_beat_their_hull(load_source):
    # x[0], x[100], x[200], x[300]: four elements, where the hull x[0:301] is 301.
    tail = "for (int k = 0; k < 4; ++k)\n        printf(\"%g\\n\", x[100 * k]);"
    assert _planned_updates(load_source, tail) == [("x[100*k:1]", "expr")]


def test_copies_in_nested_loops_count_every_trip(load_source):
    # One element per read, but 2 x 3 reads: 6 elements, where x[1:3] once moves 3.
    tail = """for (int a = 0; a < 4; a += 2)
        for (int b = 1; b <= 3; b++)
            printf("%g\\n", x[b]);"""
    assert _planned_updates(load_source, tail) == [("x[1:3]", "exit")]
