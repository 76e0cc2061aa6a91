"""rich's table layout, for plain text only, at the speed of a formatted string.

``s2s inspect`` prints its facts as rich tables (``Table(title=..., title_justify="left")``,
every column ``overflow="fold"``). On a big file (issue 30: a 1 MB CUDA file has tens of
thousands of rows) rich's layout is most of a warm run: it builds a styled ``Text``, a
``Padding`` and lists of ``Segment``s for every cell. When the console prints no colour and
no cell needs rich's markup, emoji codes or wide characters, the same text comes out of the
arithmetic below: rich's measurement of each column (the longest word and line of each
cell), its width choice (``Table._collapse_widths`` and ``ratio_reduce`` themselves, so the
rare narrow case is rich's own), its word wrap (``rich._wrap.divide_line``), its padding and
its box (``box.HEAVY_HEAD``). :func:`render` returns None whenever a cell or the title falls
outside that case, and the caller lets rich lay that table out: the output is the same text
either way (``testsuite/printers/test_plain_table.py`` compares both on random tables).
"""

from __future__ import annotations

import re

#: characters rich prints one cell wide (printable ASCII)
_PLAIN = re.compile(r"[ -~]*")
_EMOJI = re.compile(r":(\S*?):")
#: columns' padding (rich's default ``(0, 1)``) and the borders between and around them
PAD = 2


def plain(text: str) -> bool:
    """Whether rich renders ``text`` as it is: printable ASCII with no markup tag (a ``[``
    that rich's own pattern reads as one: ``a[i]`` is, ``tile[16]`` is not) and no ``:name:``
    emoji code (a pair of colons is checked against rich's table of names)."""
    if not _PLAIN.fullmatch(text):
        return False
    if "[" in text:
        from rich.markup import RE_TAGS

        if "\\" in text or RE_TAGS.search(text):     # (a backslash may escape a bracket)
            return False
    if text.count(":") >= 2:
        from rich._emoji_codes import EMOJI

        return not any(match.group(1).lower() in EMOJI or "-" in match.group(1)
                       for match in _EMOJI.finditer(text))
    return True


def render(title: str, headers: list[str], rows: list[list[str]], width: int) -> str | None:
    """The text rich prints for the table on a console ``width`` columns wide without
    colour; None when rich must lay it out (see the module's docstring)."""
    cells = [headers, *rows]
    if not headers or width < 1 or not plain(title) or \
            not all(plain(cell) for row in cells for cell in row):
        return None
    widths = _column_widths(cells, width)
    if widths is None:
        return None
    return _title(title, sum(widths) + len(widths) + 1) + _body(cells, widths)


def _measure(cell: str) -> tuple[int, int]:
    """(longest word, longest line) of a cell, as ``Text.__rich_measure__``."""
    words = cell.split()
    longest = len(cell)
    return (max(map(len, words)) if words else longest), longest


def _clamped(measure: tuple[int, int], limit: int) -> tuple[int, int]:
    """A padded cell's measurement under a width ``limit`` (``Measurement.get`` of a
    ``Padding`` around the cell's ``Text``)."""
    if limit < 1:
        return 0, 0
    if limit - PAD < 1:
        low, high = limit, limit
    else:
        low, high = _normal(*measure, limit)
        if high < 1:
            low, high = 0, 0
        low, high = min(low + PAD, limit), min(high + PAD, limit)
    low, high = _normal(low, high, limit)
    return (0, 0) if high < 1 else (low, high)


def _normal(low: int, high: int, limit: int) -> tuple[int, int]:
    low = min(max(0, low), high)
    low, high = max(0, low), max(0, max(low, high))
    return min(low, limit), min(high, limit)


def _column_widths(cells: list[list[str]], width: int) -> list[int] | None:
    """Each column's width with its padding (``Table._calculate_column_widths``)."""
    from rich._ratio import ratio_reduce
    from rich.table import Table

    count = len(cells[0])
    # (each distinct measurement once: the widths are maxima over them)
    measures = [{_measure(cell) for cell in {row[i] for row in cells}} for i in range(count)]
    limit = width - (count + 1)

    def column(i: int, limit: int) -> tuple[int, int]:
        if limit < 1:
            return 0, 0
        found = [_clamped(m, limit) for m in measures[i]]
        return min(max(f[0] for f in found), limit), min(max(f[1] for f in found), limit)

    widths = [column(i, limit)[1] or 1 for i in range(count)]
    if sum(widths) > limit:
        widths = Table._collapse_widths(widths, [True] * count, limit)
        if sum(widths) > limit:
            widths = ratio_reduce(sum(widths) - limit, [1] * count, widths, widths)
        widths = [column(i, w)[1] or 0 for i, w in enumerate(widths)]
    if any(w <= PAD for w in widths) or sum(widths) + count + 1 > width:
        return None                         # (too narrow for a cell: rich's corner cases)
    return widths


def _wrap(text: str, width: int) -> list[str]:
    """``Text.wrap(width, justify="left", overflow="fold")`` of a one-line text, each line
    padded to ``width``."""
    if len(text) <= width:                  # (most cells: divide_line breaks nothing)
        return [text.ljust(width)]
    from rich._wrap import divide_line

    offsets = [0, *divide_line(text, width, fold=True), len(text)]
    lines = []
    for start, end in zip(offsets, offsets[1:], strict=False):
        line = text[start:end]
        if len(line) > width:               # (rstrip_end: spaces past the width go first)
            spaces = len(line) - len(line.rstrip())
            line = line[:len(line) - min(spaces, len(line) - width)]
        lines.append(line[:width].ljust(width))
    return lines


def _title(title: str, width: int) -> str:
    return "".join(line + "\n" for line in _wrap(title, width))


def _body(cells: list[list[str]], widths: list[int]) -> str:
    from rich import box

    frame = box.HEAVY_HEAD
    out = [frame.get_top(widths), "\n"]
    last = len(cells) - 1
    for number, row in enumerate(cells):
        if number == 0:
            left, right, divider = frame.head_left, frame.head_right, frame.head_vertical
        elif number == last:
            left, right, divider = frame.foot_left, frame.foot_right, frame.foot_vertical
        else:
            left, right, divider = frame.mid_left, frame.mid_right, frame.mid_vertical
        wrapped = [_wrap(cell, w - PAD) for cell, w in zip(row, widths, strict=True)]
        height = max(map(len, wrapped))
        for i, lines in enumerate(wrapped):
            blank = [" " * (widths[i] - PAD)] * (height - len(lines))
            wrapped[i] = blank + lines if number == 0 else lines + blank   # header: bottom
        for line in range(height):
            out += [left, divider.join(f" {lines[line]} " for lines in wrapped), right, "\n"]
        if number == 0:
            out += [frame.get_row(widths, "head", edge=True), "\n"]
    out += [frame.get_bottom(widths), "\n"]
    return "".join(out)
