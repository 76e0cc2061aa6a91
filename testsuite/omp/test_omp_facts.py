"""Range facts from input checks and section containment under them (omp_facts).

``nonnegative`` is a sufficient condition: the Hypothesis test checks that whenever it says
yes, the polynomial is non-negative at every point allowed by the facts (C division)."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from s2s.analysis.omp.facts import (
    contains,
    drop_contained,
    guard_facts,
    never_returning,
    nonnegative,
)
from s2s.analysis.polynomial import poly


def test_interior_elements_lie_inside_the_interior_hull_once_n_is_checked():
    defs = {"ld": "n + 2"}
    hull = "[ld + 1:ld*n - ld + n]"
    assert contains(hull, "[(n / 4)*ld + (3 * n / 4):1]", {"n": 4}, defs)
    assert contains(hull, "[ld + 1:1]", {"n": 1}, defs)
    # n = 0: the interior is empty, nothing lies inside it; no fact, no claim.
    assert not contains(hull, "[ld + 1:1]", {}, defs)
    assert not contains(hull, "[ld + 1:1]", {"n": 0}, defs)
    # n = 1..3: n / 4 is row 0, the halo: outside.
    assert not contains(hull, "[(n / 4)*ld + (3 * n / 4):1]", {"n": 1}, defs)
    assert drop_contained([hull, "[ld + 1:1]", "[(n / 4)*ld + (3 * n / 4):1]"],
                          {"n": 4}, defs) == [hull]
    assert drop_contained(["[0:n]", "[0:n]"], {"n": 1}, {}) == ["[0:n]"]


def test_nonnegative_proves_what_it_should():
    assert nonnegative(poly("n*n - n"), {"n": 1})
    assert nonnegative(poly("(3 * n / 4) - (n / 4)"), {"n": 0})
    assert nonnegative(poly("n - 4*(n / 4)"), {"n": 0})  # the remainder
    assert nonnegative(poly("(n % 8)"), {"n": 0})
    assert not nonnegative(poly("n - 5"), {"n": 4})
    assert not nonnegative(poly("(n / 4) - 1"), {"n": 3})
    assert not nonnegative(poly("n"), {})  # no fact about n
    assert not nonnegative(poly("(n / 2)"), {"n": -4})  # truncation is not the floor there


def test_guard_facts_from_early_returns(load_source):
    loaded = load_source("""
#include <stdio.h>
#include <stdlib.h>
int g = 5;
int main(int argc, char **argv) {
    int n = 64, m = 3, k = 2, s = 1, w = 8, q = 1;
    if (argc > 1) n = atoi(argv[1]);
    if (n < 4 || m <= 0 || (16 > k)) { fprintf(stderr, "usage\\n"); return 1; }
    if (s < 9 && argc > 5) return 2;
    if (argc > 2) { m = 7; }
    if (w <= 2 || (q < 1 && argc > 3) || g < 1) exit(3);
    int *pq = &q;
    int start = 0;
    double *a = malloc(n * sizeof(double));
    free(a);
    return n + m + k + s + start + w + *pq;
}
""", name="facts.c")
    function = loaded.model.function("main")
    start = loaded.source.index(b"int start")
    # n >= 4, k >= 16 (``16 > k`` in parentheses), w >= 3 (``||`` binds looser than ``&&``:
    # the operand ``q < 1 && argc > 3`` proves nothing, the others still do); m is assigned
    # after its check; a conjunction proves nothing; g is a global (any call may change it)
    assert guard_facts(loaded.model, function, start) == {"n": 4, "k": 16, "w": 3}


EXIT_FORMS = """
#include <stdio.h>
#include <stdlib.h>
#define DIE(msg) do { fprintf(stderr, "%s\\n", msg); exit(2); } while (0)
#define SOFT(msg) do { if (msg[0]) break; exit(2); } while (0)
static void serve(void) { for (;;) { fprintf(stderr, "waiting\\n"); } }
static void spin(int k) { while (1) { switch (k) { case 1: break; } } }
static void not_forever(int k) { while (1) { if (k > 3) break; } }
static void not_forever_either(int k) { for (;;) { if (k > 3) return; } }
int main(int argc, char **argv) {
    int a = 9, b = 9, c = 9, d = 9, e = 9, f = 9, g = 9, h = 9, x = 9;
    if (argc > 1) a = b = c = d = e = f = g = h = x = atoi(argv[1]);
    if (a < 3) fprintf(stderr, "too small\\n"), exit(1);
    if (b < 4) DIE("four");
    if (c < 5) serve();
    if (d < 6) spin(d);
    if (e < 7) not_forever(e);
    if (f < 8) f > 2 ? exit(1) : (void)0;
    if (g < 9) argc > 4 && (exit(1), 1);
    if (h < 2) SOFT("h");
    if (x < 2) not_forever_either(x);
    double s = 0;
    #pragma omp target teams distribute parallel for reduction(+: s)
    for (int i = 0; i < a; i++) s += i;
    printf("%f %d\\n", s, a + b + c + d + e + f + g + h + x);
    return 0;
}
"""


def test_exit_forms_give_facts(load_source):
    loaded = load_source(EXIT_FORMS, name="exits.c", user_flags=("-fopenmp",))
    model = loaded.model
    assert never_returning(model) >= {"serve", "spin"}
    assert not never_returning(model) & {"not_forever", "not_forever_either", "main"}
    # a comma's last operand, a do-while(0) macro, a function ending in an infinite loop (a
    # break of an inner switch does not leave it); not: a loop a break or return leaves, a
    # branch of ?:, an operand after &&, a do-while(0) a break leaves
    facts = guard_facts(model, model.function("main"), EXIT_FORMS.index("    double s"))
    assert facts == {"a": 3, "b": 4, "c": 5, "d": 6}, facts


def _c_value(text: str, env: dict[str, int]) -> int:
    def ev(node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.UnaryOp):
            return -ev(node.operand)
        left, right = ev(node.left), ev(node.right)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        quotient = abs(left) // abs(right) * (1 if (left >= 0) == (right > 0) else -1)
        return quotient if isinstance(node.op, ast.Div) else left - right * quotient
    return ev(ast.parse(text, mode="eval").body)


_terms = st.sampled_from(["n", "m", "n*m", "n*n", "(n / 4)", "(3 * n / 4)", "(n % 3)",
                          "(m / 2)*n", "(2 * m + 1) / 3", "1"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), _terms), min_size=1, max_size=4),
       st.integers(-3, 6), st.integers(-3, 6))
def test_nonnegative_is_sound(terms, low_n, low_m):
    text = " + ".join(f"({c}) * ({t})" for c, t in terms)
    facts = {"n": low_n, "m": low_m}
    if not nonnegative(poly(text), facts):
        return
    for n in range(low_n, low_n + 40):
        for m in range(low_m, low_m + 12):
            assert _c_value(text, {"n": n, "m": m}) >= 0, (text, n, m)
