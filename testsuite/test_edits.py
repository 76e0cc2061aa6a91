"""Properties of the edit model (s2s/edits.py), checked against a small independent reference.

The reference applies edits by sorting on (offset, replacement after insertions, order added)
and splicing; EditSet must agree with it whatever order the edits are added in.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from s2s.diagnostics import EditConflict
from s2s.edits import Edit, EditSet, line_col
from s2s.model.span import SourceSpan

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

# Bytes with plenty of line structure: LF, CRLF, tabs, UTF-8, invalid UTF-8, NUL.
CHUNKS = [b"a", b"bc", b"\n", b"\r\n", b"\t", b"  ", "é".encode(), "€".encode(), b"\xff", b"\xc3", b"\0",
          b"int x;", b"{", b"}"]
sources = st.lists(st.sampled_from(CHUNKS), max_size=40).map(b"".join)
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from(["\udc80", "\udcff"]),
                max_size=8)


def ref_line_col(source: bytes, offset: int) -> tuple[int, int]:
    """1-based line and byte column, computed differently from s2s.edits.line_col."""
    lines = source[:offset].split(b"\n")
    return len(lines), len(lines[-1]) + 1


def ref_apply(source: bytes, edits: list[Edit]) -> bytes:
    order = sorted(range(len(edits)), key=lambda i: (edits[i].offset, not edits[i].is_insertion, i))
    out, pos = b"", 0
    lines = source.split(b"\n")[:-1]
    crlf = sum(line.endswith(b"\r") for line in lines) * 2 > len(lines)
    for i in order:
        edit = edits[i]
        text = edit.text.encode("utf-8", "surrogateescape")
        if crlf:  # new lines take the file's line ending
            text = text.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        out += source[pos:edit.offset] + text
        pos = edit.end
    return out + source[pos:]


def test_insertions_take_the_files_line_ending():
    crlf, lf = b"int a;\r\nint b;\r\n", b"int a;\nint b;\n"
    edits = [Edit(PATH, 8, 0, "#pragma x\n"), Edit(PATH, 0, 0, "// one\r\n// two\n")]
    assert EditSet(edits).apply(PATH, crlf) == \
        b"// one\r\n// two\r\nint a;\r\n#pragma x\r\nint b;\r\n"
    assert EditSet([Edit(PATH, 7, 0, "#pragma x\n")]).apply(PATH, lf) == \
        b"int a;\n#pragma x\nint b;\n"
    mixed = b"a\r\nb\nc\n"  # mostly LF: inserted lines stay LF
    assert EditSet([Edit(PATH, 0, 0, "x\n")]).apply(PATH, mixed) == b"x\na\r\nb\nc\n"


def ref_overlaps(a: Edit, b: Edit) -> bool:
    """Byte sets intersect, or an insertion lies strictly inside a replacement."""
    if a.length and b.length:
        return bool(set(range(a.offset, a.end)) & set(range(b.offset, b.end)))
    ins, other = (a, b) if not a.length else (b, a)
    return other.offset < ins.offset < other.end


@st.composite
def disjoint_edits(draw, path: str, unique_insertions: bool = True):
    """(source, edits): edits cut from sorted points, so they never overlap (adjacent allowed)."""
    source = draw(sources)
    n = draw(st.integers(0, 6))
    points = sorted(draw(st.lists(st.integers(0, len(source)), min_size=2 * n, max_size=2 * n)))
    edits, seen = [], set()
    for start, end in zip(points[::2], points[1::2], strict=True):
        if start == end and unique_insertions and start in seen:
            continue
        seen.add(start) if start == end else None
        edits.append(Edit(path, start, end - start, draw(texts)))
    return source, edits


def write(tmp_path, source: bytes, name: str = "f.cu") -> str:
    path = tmp_path / name
    path.write_bytes(source)
    return str(path)


PATH = "/virtual/f.cu"


@SETTINGS
@given(data=disjoint_edits(PATH), perm=st.randoms(use_true_random=False))
def test_disjoint_edits_commute(data, perm):
    source, edits = data
    shuffled = list(edits)
    perm.shuffle(shuffled)
    forward, backward = EditSet(edits), EditSet(shuffled)
    expected = ref_apply(source, edits)
    assert forward.apply(PATH, source) == expected
    assert backward.apply(PATH, source) == expected
    assert list(forward) == list(backward)
    assert list(forward.for_path(PATH)) == [e for e in forward]
    assert len(forward) == len(edits)


@SETTINGS
@given(data=disjoint_edits(PATH, unique_insertions=False), perm=st.randoms(use_true_random=False))
def test_same_offset_insertions_keep_relative_order(data, perm):
    """Any permutation that keeps same-offset insertions in order gives the same result."""
    source, edits = data
    shuffled = list(edits)
    perm.shuffle(shuffled)
    # Restore the relative order of insertions at each offset (stable: by original index).
    by_offset: dict[int, list[Edit]] = {}
    for e in edits:
        if e.is_insertion:
            by_offset.setdefault(e.offset, []).append(e)
    queues = {k: iter(v) for k, v in by_offset.items()}
    shuffled = [next(queues[e.offset]) if e.is_insertion else e for e in shuffled]
    result = EditSet()
    for e in shuffled:
        result.add(e)
    unique = list(dict.fromkeys(edits))  # exact duplicates are dropped, first one wins
    assert result.apply(PATH, source) == ref_apply(source, unique)


@SETTINGS
@given(data=disjoint_edits(PATH))
def test_length_arithmetic(data):
    source, edits = data
    after = EditSet(edits).apply(PATH, source)
    delta = sum(len(e.text.encode("utf-8", "surrogateescape")) - e.length for e in edits)
    assert len(after) == len(source) + delta


@SETTINGS
@given(data=disjoint_edits(PATH))
def test_exact_duplicates_are_dropped(data):
    source, edits = data
    edit_set = EditSet(edits)
    before = edit_set.apply(PATH, source)
    for e in edits:
        assert edit_set.add(e) is False
    assert len(edit_set) == len(edits)
    assert edit_set.apply(PATH, source) == before


@SETTINGS
@given(source=sources)
def test_empty_set_is_identity(source):
    assert EditSet().apply(PATH, source) == source
    assert EditSet().apply(PATH, source) is not None
    assert not EditSet() and len(EditSet()) == 0 and EditSet().paths == ()


@pytest.mark.parametrize("source", [b"", b"a\r\nb\r\n", b"\xff\xfe\x00bad\r\n\xc3", "é\t€\n".encode()])
def test_empty_set_is_identity_examples(source):
    assert EditSet().apply(PATH, source) == source


@settings(SETTINGS, max_examples=120)
@given(source=sources.filter(lambda s: len(s) >= 1), data=st.data())
def test_overlap_raises_with_line_col(tmp_path, source, data):
    path = write(tmp_path, source)
    n = len(source)
    o1 = data.draw(st.integers(0, n))
    a = Edit(path, o1, data.draw(st.integers(0, n - o1)), data.draw(texts))
    o2 = data.draw(st.integers(max(0, a.offset - 3), min(n, a.end + 3)))  # near a: overlaps often
    b = Edit(path, o2, data.draw(st.integers(0, min(4, n - o2))), data.draw(texts))
    if a == b:
        return
    edit_set = EditSet([a])
    snapshot = list(edit_set)
    if not ref_overlaps(a, b):
        assert edit_set.add(b) is True
        return
    with pytest.raises(EditConflict) as info:
        edit_set.add(b)
    diag = info.value.diagnostic
    assert diag.id == "edit-conflict" and diag.is_error
    assert diag.location is not None
    assert (diag.location.file, diag.location.line, diag.location.column) == (path, *ref_line_col(source, b.offset))
    old_line, old_col = ref_line_col(source, a.offset)
    assert f"{path}:{old_line}:{old_col}" in diag.message
    assert re.search(r":\d+:\d+", diag.message)
    assert list(edit_set) == snapshot  # a rejected edit leaves the set unchanged


def test_conflict_message_example(tmp_path):
    source = b"int a;\r\nint b = 1;\n\tint c;\n"
    path = write(tmp_path, source)
    edits = EditSet([Edit(path, source.index(b"b ="), 5, "bb =")])
    with pytest.raises(EditConflict) as info:
        edits.add(Edit(path, source.index(b"= 1"), 1, ":="))
    diag = info.value.diagnostic
    assert (diag.location.line, diag.location.column) == (2, 7)
    assert f"{path}:2:5" in diag.message
    assert diag.headline().startswith(f"{path}:2:7: error: conflicting edits")


@given(before=st.booleans())
@settings(max_examples=10, deadline=None)
def test_insertions_before_replacement_in_order(before):
    source = b"0123456789"
    repl = Edit(PATH, 3, 2, "R")
    ins = [Edit(PATH, 3, 0, "i1"), Edit(PATH, 3, 0, "i2"), Edit(PATH, 5, 0, "after")]
    edits = [repl, *ins] if before else [*ins, repl]
    edit_set = EditSet(edits)
    assert edit_set.apply(PATH, source) == b"012i1i2Rafter56789"
    assert [e.text for e in edit_set] == ["i1", "i2", "R", "after"]


def test_insertion_inside_replacement_conflicts_ends_do_not():
    repl = Edit(PATH, 2, 4, "X")
    for offset in (3, 4, 5):
        for order in ((repl, Edit(PATH, offset, 0, "i")), (Edit(PATH, offset, 0, "i"), repl)):
            with pytest.raises(EditConflict):
                EditSet(order)
    for offset in (2, 6):
        for order in ((repl, Edit(PATH, offset, 0, "i")), (Edit(PATH, offset, 0, "i"), repl)):
            assert len(EditSet(order)) == 2


def test_adjacent_replacements_do_not_conflict():
    edit_set = EditSet([Edit(PATH, 4, 2, "B"), Edit(PATH, 0, 4, "A"), Edit(PATH, 6, 0, "C")])
    assert edit_set.apply(PATH, b"aaaabbcc") == b"ABCcc"


def test_edits_in_several_files_are_independent():
    edit_set = EditSet([Edit("b.cu", 0, 1, "B"), Edit("a.cu", 0, 1, "A"), Edit("b.cu", 0, 0, "<")])
    assert edit_set.paths == ("a.cu", "b.cu")
    assert edit_set.apply("a.cu", b"xy") == b"Ay"
    assert edit_set.apply("b.cu", b"xy") == b"<By"
    assert edit_set.apply("c.cu", b"xy") == b"xy"
    assert [e.path for e in edit_set] == ["a.cu", "b.cu", "b.cu"]


def span(tmp_path=None, **kw) -> SourceSpan:
    base = dict(file=PATH, start=4, end=9, line=2, column=3, end_line=2, end_column=8)
    base.update(kw)
    return SourceSpan(**base)


def test_factories_use_span_offsets():
    s = span()
    assert Edit.replace(s, "t") == Edit(PATH, 4, 5, "t")
    assert Edit.insert_before(s, "t") == Edit(PATH, 4, 0, "t")
    assert Edit.insert_after(s, "t") == Edit(PATH, 9, 0, "t")


@pytest.mark.parametrize("factory", [Edit.replace, Edit.insert_before, Edit.insert_after])
@pytest.mark.parametrize("kw,ident,name", [({"macro": "MAX"}, "edit-in-macro", "MAX"),
                                           ({"template": "scale<T>"}, "edit-in-template", "scale<T>"),
                                           ({"macro": "M", "template": "T"}, "edit-in-macro", "M")])
def test_factories_refuse_macro_and_template(factory, kw, ident, name):
    with pytest.raises(EditConflict) as info:
        factory(span(**kw), "x")
    diag = info.value.diagnostic
    assert diag.id == ident and name in diag.message
    assert (diag.location.file, diag.location.line, diag.location.column) == (PATH, 2, 3)


@pytest.mark.parametrize("offset,length", [(10, 1), (11, 0), (8, 5), (0, 11)])
def test_edit_past_end_raises(tmp_path, offset, length):
    source = b"abc\ndef\nxy"  # 10 bytes
    path = write(tmp_path, source)
    with pytest.raises(EditConflict) as info:
        EditSet([Edit(path, offset, length, "z")]).apply(path, source)
    assert info.value.diagnostic.location.file == path


def test_edit_at_end_is_fine():
    assert EditSet([Edit(PATH, 3, 0, "!")]).apply(PATH, b"abc") == b"abc!"
    assert EditSet([Edit(PATH, 0, 3, "")]).apply(PATH, b"abc") == b""


def test_negative_offset_or_length_rejected():
    with pytest.raises(ValueError):
        Edit(PATH, -1, 0, "")
    with pytest.raises(ValueError):
        Edit(PATH, 0, -1, "")


@SETTINGS
@given(source=sources, data=st.data())
def test_line_col_matches_reference(source, data):
    offset = data.draw(st.integers(0, len(source)))
    assert line_col(source, offset) == ref_line_col(source, offset)
