"""Index polynomials of s2s/analysis/omp_sections.py: parsing, printing, arithmetic."""

from hypothesis import given
from hypothesis import strategies as st

from s2s.analysis.polynomial import NotPoly, add, mul, poly, render, scale

ATOMS = st.sampled_from(["n", "m", "rows", "cols", "k"])
MONOMIALS = st.lists(ATOMS, max_size=2).map(lambda a: tuple(sorted(a)))
POLYS = st.dictionaries(MONOMIALS, st.integers(-5, 5).filter(bool), max_size=4)


def test_parse_and_print():
    assert poly("2*n - 1") == {("n",): 2, (): -1}
    assert poly("(n - 1) * cols + j") == {("cols", "n"): 1, ("cols",): -1, ("j",): 1}
    assert render(poly("0 + n*1")) == "n"
    assert render(poly("(n-1)*cols + cols - 1 - ((n-1)*cols)")) == "cols - 1"
    assert poly("n / 2") == {("(n / 2)",): 1}


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
