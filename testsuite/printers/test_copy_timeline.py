"""The OpenMP page's picture: per array, its copy sites before and after on the file's lines."""

from __future__ import annotations

import re

from s2s.analysis.omp.traffic import Traffic, Transfer
from s2s.model.span import SourceSpan
from s2s.printers.figures import TIMELINE_ARRAYS, copy_timeline


def site(line: int, array: str, direction: str, path: str = "a.c") -> Transfer:
    return Transfer(SourceSpan(path, line * 10, line * 10 + 5, line, 1), "main", array,
                    direction, "")


def marks(svg: str) -> list[tuple[str, str]]:
    """(colour, direction) of each triangle."""
    return re.findall(r'<polygon points="[^"]+" fill="(#[0-9a-f]+)"><title>(\w+)</title>', svg)


def test_one_mark_per_site_before_and_after_coloured_by_direction():
    before = tuple(site(line, name, way) for line in (10, 20) for name in ("x", "y")
                   for way in ("to", "from"))
    after = (site(5, "x", "to"), site(5, "y", "to"), site(30, "x", "from"),
             site(7, "z", "to", path="other.c"))
    figure = copy_timeline(Traffic(before, after), "a.c")
    found = marks(figure.svg)
    # 8 before, 3 after in a.c, and the two legend marks
    assert len(found) == 8 + 3 + 2
    assert {colour for colour, way in found if way == "to"} == {"#4477aa"}
    assert {colour for colour, way in found if way == "from"} == {"#ee6677"}
    assert figure.caption.startswith("8 copy sites before, 3 after, in a.c")
    for label in (">x<", ">y<", ">5<", ">10<", ">20<", ">30<"):
        assert label in figure.svg
    assert ">z<" not in figure.svg and ">7<" not in figure.svg     # another file's site


def test_many_arrays_are_counted_not_drawn_and_no_sites_say_so():
    names = [f"a{i}" for i in range(TIMELINE_ARRAYS + 3)]
    before = tuple(site(10 + i, name, "to") for i, name in enumerate(names))
    figure = copy_timeline(Traffic(before, ()), "a.c")
    assert len(marks(figure.svg)) == TIMELINE_ARRAYS + 2
    assert figure.caption.endswith("3 more arrays not drawn: a12, a13, a14.")
    empty = copy_timeline(Traffic((), ()), "a.c")
    assert empty.svg == "" and "no target construct" in empty.caption


def test_names_in_the_picture_are_escaped():
    figure = copy_timeline(Traffic((site(3, "p<q>", "to"),), ()), "a.c")
    assert "p&lt;q&gt;" in figure.svg and "p<q>" not in figure.svg
