"""Index polynomials of s2s/analysis/omp/sections.py: parsing, printing, arithmetic."""

from hypothesis import given
from hypothesis import strategies as st

from s2s.analysis.polynomial import NotPoly, add, hull, intersection, mul, poly, render, scale

ATOMS = st.sampled_from(["n", "m", "rows", "cols", "k"])
MONOMIALS = st.lists(ATOMS, max_size=2).map(lambda a: tuple(sorted(a)))
POLYS = st.dictionaries(MONOMIALS, st.integers(-5, 5).filter(bool), max_size=4)


def test_parse_and_print():
    assert poly("2*n - 1") == {("n",): 2, (): -1}
    assert poly("(n - 1) * cols + j") == {("cols", "n"): 1, ("cols",): -1, ("j",): 1}
    assert render(poly("0 + n*1")) == "n"
    assert render(poly("(n-1)*cols + cols - 1 - ((n-1)*cols)")) == "cols - 1"
    assert poly("n / 2") == {("(n / 2)",): 1}


def test_c_names_that_are_python_keywords_are_variables():
    # backprop's ``in`` (input layer size): its sections were not polynomials before
    assert poly("in + 1") == {("in",): 1, (): 1}
    assert render(poly("(in + 1) * (hid + 1)")) == "hid*in + hid + in + 1"
    assert poly("is - lambda") == {("is",): 1, ("lambda",): -1}
    assert poly("net->in + 1") == {("net->in",): 1, (): 1}
    assert poly("n / in") == {("(n / in)",): 1}


def test_not_polynomials():
    for text in ("f(n)", "a[i]", "x ? 1 : 2", "n << 1", "1.5"):
        try:
            poly(text)
        except NotPoly:
            continue
        raise AssertionError(text)


@given(POLYS)
def test_render_round_trips(p):
    assert poly(render(p)) == p


@given(POLYS, POLYS, POLYS)
def test_ring_laws(a, b, c):
    assert add(a, b) == add(b, a)
    assert mul(a, add(b, c)) == add(mul(a, b), mul(a, c))
    assert add(a, scale(a, -1)) == {}


def test_disjoint_sections_are_proved_by_constant_gaps():
    from s2s.analysis.polynomial import disjoint

    assert disjoint("[0:1]", "[1:n - 2]")
    assert disjoint("[n - 1:1]", "[1:n - 2]")
    assert disjoint("[1:n - 2]", "[n - 1:1]")
    assert not disjoint("[n / 2:1]", "[1:n - 2]")  # inside for n >= 4, unknown in general
    assert not disjoint("[0:2]", "[1:n - 2]")
    assert not disjoint("[k:1]", "[1:n - 2]")


def test_trim_drops_an_end_element_only():
    from s2s.analysis.polynomial import same_value, trim

    low, length = trim("[0:n]", "[0:1]")[1:-1].split(":")
    assert same_value(low, "1") and same_value(length, "n - 1")
    low, length = trim("[1:n - 1]", "[n - 1:1]")[1:-1].split(":")
    assert same_value(low, "1") and same_value(length, "n - 2")
    assert trim("[0:n]", "[3:1]") == "[0:n]"
    assert trim("[0:1]", "[0:1]") is None and trim("[n - 1:1]", "[n - 1:1]") is None


def test_adjacent_sections_are_one_copy():
    """Kernels that write ``[1:n - 2]`` and the two edges leave three dirty pieces; the host
    reading all of it afterwards needs one copy of ``[0:n]``, not three updates."""
    from s2s.analysis.polynomial import merge_adjacent

    assert merge_adjacent(["[0:1]", "[n - 1:1]", "[1:n - 2]"]) == ["[0:n]"]
    assert merge_adjacent(["[2 * k:k]", "[3 * k:k + 1]"]) == ["[2*k:2*k + 1]"]
    assert sorted(merge_adjacent(["[0:4]", "[8:4]"])) == ["[0:4]", "[8:4]"]   # a gap stays
    assert sorted(merge_adjacent(["[a[i]:1]", "[0:1]"])) == ["[0:1]", "[a[i]:1]"]


def test_intersection_and_hull_need_constant_margins():
    assert intersection("[0:hid + 1]", "[1:hid]") == "[1:hid]"
    assert intersection("[0:n + 8]", "[0:n]") == "[0:n]"
    assert intersection("[0:n]", "[0:n]") is None  # nothing to cut
    assert intersection("[0:n]", "[0:m]") is None  # not comparable
    assert hull(["[1:n - 2]", "[0:n]", "[2:n]"]) == "[0:n + 2]"
    assert hull(["[1:hid]", "[0:1]"]) is None  # hid + 1 against 1
    assert hull([]) is None and hull(["f(n)"]) is None
