"""Global storage that device routines read (issue 28, AMD device_routine_wdynglobaldata):
a ``declare target`` global pointer allocated and filled on the device in one function, read
by a routine that another function's kernels call. A data region of the allocating function
released the storage before those kernels ran (freed memory on a GPU; on the host device
the stripped program crashes); now one ``target enter data map(alloc: ...)`` follows the
allocation, never released, and the caller's region spans only its own storage. Where the
host touches the elements or frees the storage, no entry is made (the construct is counted
left with its reason, as before)."""

from __future__ import annotations

import pytest

from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source, run_both

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

#pragma omp declare target
double *table;
double lookup(int k) { return 0.5 * table[k % 16]; }
#pragma omp end declare target

static void build_table(int size)
{
    table = (double *)malloc(sizeof(double) * size);
#pragma omp target teams distribute parallel for
    for (int i = 0; i < size; i++)
        table[i] = i * 0.25;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    build_table(16);
    double *x = malloc(sizeof(double) * n);
#pragma omp target teams distribute parallel for
    for (int k = 0; k < n; k++)
        x[k] = 1.0 + lookup(k);
    double sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+:sum)
    for (int k = 0; k < n; k++)
        sum += x[k];
    printf("sum %.3f\\n", sum);
    free(x);
    return 0;
}
"""

#: 1000 * 1 + 0.5 * 0.25 * (62 rounds of 0..15 + 0..7) = 1000 + 0.125 * (62 * 120 + 28)
EXPECTED = "sum 1933.500\n"


def test_the_table_is_entered_once_and_never_released(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, PROGRAM, name="prog.c")
    lines = rewritten.splitlines()
    at = next(k for k, line in enumerate(lines) if "table = (double *)malloc" in line)
    assert lines[at + 1].strip() == \
        "#pragma omp target enter data map(alloc: table[0:size])", lines[at:at + 3]
    assert "release: table" not in rewritten and "from: table" not in rewritten
    counts = dict(out.counts)
    assert (counts["target regions mapped"], counts["mapped per construct"],
            counts["left unmapped"]) == (3, 0, 0), [d.message for d in out.diagnostics]
    # main's region holds x alone (before: none, each construct mapped x)
    assert "target enter data map(alloc: x[0:n])" in rewritten, rewritten
    _original, new = run_both(tmp_path, PROGRAM, rewritten)
    assert new.returncode == 0 and new.stdout == EXPECTED, new.stderr[-2000:]
    assert omp_harness.unmapped_constructs(new) == counts["left unmapped"] == 0
    # nothing of the table or of x is copied: the sum alone (and pointer attaches)
    assert new.copies.total_bytes < 100, new.copies


def test_a_second_run_changes_nothing(load_source):
    rewritten, _out = rewrite_source(load_source, PROGRAM, name="prog.c")
    again, out = rewrite_source(load_source, rewritten, name="prog.c")
    assert again == rewritten
    assert dict(out.counts)["left unmapped"] == 0


def _left(load_source, program: str) -> tuple[str, dict]:
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    return rewritten, dict(out.counts)


def test_no_entry_where_the_host_reads_the_table(load_source):
    program = PROGRAM.replace('printf("sum %.3f\\n", sum);',
                              'printf("sum %.3f %.3f\\n", sum, table[3]);')
    assert program != PROGRAM
    rewritten, counts = _left(load_source, program)
    assert "enter data map(alloc: table" not in rewritten
    assert counts["left unmapped"] == 1


def test_no_entry_where_the_table_is_freed(load_source):
    program = PROGRAM.replace("    free(x);\n", "    free(x);\n    free(table);\n")
    assert program != PROGRAM
    rewritten, counts = _left(load_source, program)
    assert "enter data map(alloc: table" not in rewritten
    assert counts["left unmapped"] == 1


def test_calloc_storage_is_entered_with_its_zeros(load_source, tmp_path):
    """``calloc``'s zeros are the table's first values (the kernel adds to them): the entry
    copies them in (``to``), where ``alloc`` would leave the device's garbage."""
    program = PROGRAM.replace("table = (double *)malloc(sizeof(double) * size);",
                              "table = (double *)calloc(size, sizeof(double));")
    program = program.replace("table[i] = i * 0.25;", "table[i] += i * 0.25;")
    assert program.count("calloc") == 1 and "+= i * 0.25" in program
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    assert "#pragma omp target enter data map(to: table[0:size])" in rewritten, rewritten
    _original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == EXPECTED
    assert omp_harness.unmapped_constructs(new) == dict(out.counts)["left unmapped"] == 0


def test_a_table_the_host_fills_is_entered_after_the_fill(load_source, tmp_path):
    """The host fills the table right after allocating it (issue 28, omp28p): before, no
    entry was made (the host touched its elements), the construct was counted left and the
    routine read a null device pointer (the run crashed). Now the entry goes after the fill
    loop and copies it in (``to``); nothing of the host's touches the table again."""
    program = PROGRAM.replace(
        "#pragma omp target teams distribute parallel for\n    for (int i = 0; i < size; i++)",
        "    for (int i = 0; i < size; i++)").replace(
        "        table[i] = i * 0.25;\n}", "        table[i] = i * 0.25;\n"
        "    printf(\"table: %d entries\\n\", size);\n}")
    assert "table: %d" in program and program.count("#pragma omp target teams") == 2
    rewritten, out = rewrite_source(load_source, program, name="prog.c")
    lines = rewritten.splitlines()
    at = next(k for k, line in enumerate(lines) if "table[i] = i * 0.25;" in line)
    assert lines[at + 1].strip() == "#pragma omp target enter data map(to: table[0:size])", \
        lines[at - 2:at + 3]
    assert dict(out.counts)["left unmapped"] == 0
    original, new = run_both(tmp_path, program, rewritten)
    assert original.returncode != 0 or original.stdout != new.stdout   # (null device pointer)
    assert new.returncode == 0 and new.stdout == "table: 16 entries\n" + EXPECTED, new.stderr
    assert new.unmapped == () and new.copies.total_bytes == 16 * 8 + 24, new.copies
    # the host reads the table after the kernels: the fill is no longer all it does
    later = program.replace('printf("sum %.3f\\n", sum);',
                            'printf("sum %.3f %.3f\\n", sum, table[3]);')
    assert later != program
    rewritten, counts = _left(load_source, later)
    assert "enter data map(to: table" not in rewritten and counts["left unmapped"] == 1


@pytest.mark.parametrize("calls", ["    build_table(16);\n    build_table(16);\n",
                                   "    for (int r = 0; r < 2; r++)\n        build_table(16);\n"],
                         ids=["twice", "in_a_loop"])
def test_no_entry_where_the_allocating_function_runs_more_than_once(load_source, calls):
    """Each run would enter new storage and never release the old: refused, reported as
    the construct left as it was (as where the table is freed)."""
    program = PROGRAM.replace("    build_table(16);\n", calls)
    assert program != PROGRAM
    rewritten, counts = _left(load_source, program)
    assert "enter data map(alloc: table" not in rewritten
    assert counts["left unmapped"] == 1
