"""Comparisons and counting-loop headers from the AST (``Stmt.tests``, ``Stmt.header``):
what the OpenMP analyses read where they once matched the statement's text with regular
expressions (issue 28)."""

from __future__ import annotations

import pytest

from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load
from s2s.model.host import Comparison, LoopHeader

PROGRAM = r"""
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#define N 10
template <class T> void fill(T *a, T n)
{
    for (T i = 0; i < n; i++) a[i] = 0;
    for (std::size_t k = 2; (k) <= n; k += 3) a[k] = 1;
}
int main(int argc, char **argv)
{
    int n = 64, m = 3, k = 2, s = 1, i, j;
    if (argc > 1) n = atoi(argv[1]);
    if (n < 4 || m <= 0 || (16 > k)) { std::fprintf(stderr, "usage\n"); return 1; }
    if (s < 9 && argc > 5) return 2;
    if (n < 4 || s < 1 && argc > 2) return 3;
    for (i = 0, j = 0; i < n; ++i) {}
    for (i = 1; i <= N; i += 2) {}
    for (int a = 0, b = 0; a < n; a++) {}
    for (unsigned long long q = n / 2; q < n * 2 + 1; q++) {}
    for (int q = 0; n > q; q++) {}
    for (int q = 0; q < n && q < m; q++) {}
    for (int q = 0; q < n; q += 010) {}
    for (int q = n; q > 0; q--) {}
    double *x = (double *)std::malloc(n * sizeof(double));
    std::free(x);
    return n + m + k + s + j;
}
"""


@pytest.fixture(scope="module")
def model():
    loaded = load("conds.cpp", ParseOptions(), source=PROGRAM.encode())
    assert loaded.model is not None
    return loaded.model


def _statements(model, kind):
    return [s for f in ("fill", "main") for s in model.function(f).body.walk() if s.kind == kind]


def test_the_comparisons_of_a_conditions_top_level_or(model):
    tests = [s.tests for s in _statements(model, "if")]
    assert tests == [
        (Comparison("argc", ">", "1"),),
        (Comparison("n", "<", "4"), Comparison("m", "<=", "0"), Comparison("16", ">", "k")),
        (),  # a conjunction: failing it proves nothing of its operands
        (Comparison("n", "<", "4"),),  # ``||`` binds looser than ``&&``
    ]


def test_counting_loop_headers(model):
    headers = [s.header for s in _statements(model, "for")]
    assert headers == [
        LoopHeader("i", "0", "<", "n", 1),  # a template's dependent counter
        LoopHeader("k", "2", "<=", "n", 3),  # a qualified type, the counter in parentheses
        None,  # two counters set
        LoopHeader("i", "1", "<=", "N", 2),  # an assignment, a macro bound
        None,  # two declarators
        LoopHeader("q", "n / 2", "<", "n * 2 + 1", 1),
        None,  # the counter on the right
        None,  # a conjunction
        None,  # an octal step
        None,  # counting down
    ]
