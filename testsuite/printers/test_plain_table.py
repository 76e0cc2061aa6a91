"""The plain-text table printer gives rich's own text (issue 30: inspect's tables of a big file).

Random tables - words, long tokens that must fold, empty cells, spaces, slashes, colons - at
random console widths, printed by rich (as ``s2s inspect`` builds them) and by
:func:`s2s.printers.plain_table.render`: the same text, or None where rich must lay it out.
"""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table

from s2s.printers.plain_table import plain, render

_WORD = st.text(alphabet="abcdefghij_/:,.*()<>0123456789-[]\\", min_size=0, max_size=30)
_CELL = st.lists(_WORD, min_size=0, max_size=6).map(" ".join) | \
    st.sampled_from(["", " ", "a  b", " lead", "trail ", "x" * 90, "sync/atomic/warp"])


def rich_text(title: str, headers: list[str], rows: list[list[str]], width: int) -> str:
    out = io.StringIO()
    console = Console(file=out, highlight=False, soft_wrap=False, width=width, color_system=None)
    table = Table(title=title, title_justify="left", expand=False)
    for header in headers:
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    return out.getvalue()


@st.composite
def tables(draw):
    columns = draw(st.integers(1, 9))
    rows = draw(st.lists(st.lists(_CELL, min_size=columns, max_size=columns), min_size=1,
                         max_size=6))
    headers = draw(st.lists(_CELL, min_size=columns, max_size=columns))
    title = draw(st.sampled_from(["f.cu: kernels", "a/very/long/path/" * 6 + "x.cu: launches"]))
    return title, headers, rows, draw(st.integers(10, 220))


@settings(max_examples=300, deadline=None)
@given(tables())
def test_the_plain_printer_prints_what_rich_prints(table):
    text = render(*table)
    if text is not None:
        assert text == rich_text(*table)


def test_it_leaves_markup_emoji_and_wide_text_to_rich():
    assert not plain("a[i]") and not plain(":smile:") and not plain("é") and not plain("a\tb")
    assert plain("12:5 (macro M)") and plain("a::b") and plain("x:1:y")
    assert plain("tile[16][16]") and plain("a[0:n]") and not plain("x[b]") and plain("d_a[2 * i]")
    assert render("t", ["a"], [["a[i]"]], 80) is None
    assert render("t", ["a", "b"], [["x", "y"]], 80) == rich_text("t", ["a", "b"], [["x", "y"]], 80)


def test_inspect_sized_tables_come_out_of_the_plain_printer():
    """The common case is the fast one: the layout of an inspect table at 80 columns."""
    headers = ["kernel", "params", "uses", "shared", "sync/atomic/warp", "calls", "at"]
    rows = [[f"kernel_{i}", "n, const a, b, c", "blockDim.x blockIdx.x threadIdx.x", "", "0/0/0",
             "helper_0, helper_1", f"{i}:1"] for i in range(50)]
    text = render("big.cu: kernels", headers, rows, 80)
    assert text is not None and text == rich_text("big.cu: kernels", headers, rows, 80)
