"""``s2s transfers`` on the corpus patterns of issue 19 (programs of
``testsuite/fuse/data/patterns/``): sizes compared on the AST, kernels that clear what they
accumulate into, several malloc declarators in one declaration, rotated buffers around a loop."""

from __future__ import annotations

import pytest
from conftest import REPO

from s2s.analysis.host_eval import product_form, same_size
from s2s.driver import RunOptions, Success, process_file
from s2s.frontend.extract import load
from s2s.transform.transfers import run_transfers

PATTERNS = REPO / "testsuite" / "fuse" / "data" / "patterns"


def calls(text: bytes) -> tuple[int, int]:
    return text.count(b"cudaMemcpy("), text.count(b"cudaMalloc(")


@pytest.mark.parametrize("name, before, after", [
    ("commuted_sizes.cu", (3, 3), (2, 1)),     # uploads of d_m, d_w joined; one device pool
    ("multi_declarator.cu", (3, 3), (2, 1)),
    ("rotation_copies.cu", (4, 3), (3, 1)),    # the uploads before the rotating loop joined
    ("loop_launch.cu", (4, 2), (2, 1)),
])
def test_pattern_programs_merge_their_calls(name, before, after):
    path = str(PATTERNS / name)
    result = process_file(path, RunOptions(), run_transfers)
    assert isinstance(result, Success) and not result.incomplete
    assert [d.id for d in result.diagnostics if d.severity.name == "WARNING"] == []
    assert calls((PATTERNS / name).read_bytes()) == before
    assert calls(result.change.after) == after


def test_frees_sharing_a_line_leave_no_blanks():
    result = process_file(str(PATTERNS / "multi_declarator.cu"), RunOptions(), run_transfers)
    lines = result.change.after.decode().splitlines()
    assert "    cudaFree(s2s_device_pool);" in lines and "    free(s2s_host_pool);" in lines


def test_sizes_are_compared_as_products_from_the_ast():
    model = load(str(PATTERNS / "commuted_sizes.cu")).model
    size = {(a.call, a.span.line, a.position): a.value for a in model.host_args}
    lines = (PATTERNS / "commuted_sizes.cu").read_text().splitlines()
    line = {k: n for n, t in enumerate(lines, 1) for k in ("(void **)&d_m", "(d_m, m", "(void **)&d_w",
                                                          "(d_w, w", "&d_out", "malloc(ROWS * COLS")
            if k in t}
    alloc_m, copy_m = size[("cudaMalloc", line["(void **)&d_m"], 1)], size[("cudaMemcpy", line["(d_m, m"], 2)]
    assert same_size(alloc_m, copy_m)      # sizeof(float) * ROWS * COLS == sizeof(float) * COLS * ROWS
    assert same_size(size[("malloc", line["malloc(ROWS * COLS"], 0)], copy_m)
    assert same_size(size[("cudaMalloc", line["(void **)&d_w"], 1)], size[("cudaMemcpy", line["(d_w, w"], 2)])
    assert not same_size(alloc_m, size[("cudaMalloc", line["&d_out"], 1)])
    assert product_form(alloc_m) == (96 * 64 * 4, ())


def test_product_form_keeps_variables_and_refuses_other_operators():
    from s2s.model import kernel_ir as ir
    n, m = ir.Var("n"), ir.Var("m")
    four = ir.IntConst(4)
    assert same_size(ir.Binary("*", n, four), ir.Binary("*", four, ir.Cast("int", n)))
    assert same_size(ir.Binary("*", ir.Binary("*", n, m), four), ir.Binary("*", m, ir.Binary("*", four, n)))
    assert not same_size(ir.Binary("*", n, four), ir.Binary("*", m, four))
    assert not same_size(ir.Binary("*", n, four), ir.Binary("*", n, ir.IntConst(8)))
    assert product_form(ir.FloatConst(2.0)) is None
    assert not same_size(ir.Opaque("x"), ir.Opaque("x"))
