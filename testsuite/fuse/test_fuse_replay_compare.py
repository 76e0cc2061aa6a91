"""The replay of host code (``s2s verify``'s fuse checker, :mod:`s2s.verify.fuse_replay`)
evaluates comparisons and the logical operators ``&&``, ``||`` and ``!`` with C's semantics
(issue 29: the replay evaluator had neither, so a branch on ``n > 0`` or
``mode == 2 && n >= 0`` was left out with every launch in it). ``&&`` and ``||`` short-circuit
as C does: an operand C never evaluates may be unknown."""

from __future__ import annotations

import pytest

from runtime.api import Runtime
from s2s.analysis.host_eval import EvalError, evaluate, evaluate_tree
from s2s.model import kernel_ir as ir
from s2s.verify.fuse_replay import replay

#: one launch per branch, chosen by a comparison of known values: the replay runs the
#: branch the original takes (``scale`` twice, ``shift`` once)
BRANCHED = """#include <cstdio>
#include <cuda_runtime.h>
#define LIMIT 500
__global__ void scale(float *a, float w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] * w;
}
__global__ void shift(float *a, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] + s;
}
int main(int argc, char **argv)
{
    const int n = 1000;
    int mode = 2;
    static float h[1000];
    for (int i = 0; i < n; ++i) h[i] = 0.25f * i;
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    if (n > LIMIT)
        scale<<<(n + 127) / 128, 128>>>(d, 2.0f, n);
    else
        shift<<<(n + 127) / 128, 128>>>(d, 9.0f, n);
    if (mode == 2 && n >= 0) {
        shift<<<(n + 127) / 128, 128>>>(d, 7.0f, n);
    }
    if (mode != 2) {
        shift<<<(n + 127) / 128, 128>>>(d, 5.0f, n);
    } else if (n * 2 <= 2000) {
        scale<<<(n + 127) / 128, 128>>>(d, 0.5f, n);
    }
    if (n > LIMIT || argc > 5)      /* argc is unknown: C never reads it here */
        shift<<<(n + 127) / 128, 128>>>(d, 1.0f, n);
    if (!(n > LIMIT) && argc > 5)   /* 0 && unknown: not taken, the else is */
        shift<<<(n + 127) / 128, 128>>>(d, 3.0f, n);
    else
        scale<<<(n + 127) / 128, 128>>>(d, 4.0f, n);
    if (argc > 5 && n > 0)          /* unknown && 1: unknown, left out */
        scale<<<(n + 127) / 128, 128>>>(d, 6.0f, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h[7], h[n - 1]);
    cudaFree(d);
    return 0;
}
"""


@pytest.mark.parametrize(("text", "value"), [
    ("n > 500", 1), ("n < 500", 0), ("n >= 1000", 1), ("n <= 999", 0), ("n == 1000", 1),
    ("n != 1000", 0), ("(n > 1) + (n > 2)", 2), ("3 > 2 > 1", 0),     # C: (3 > 2) > 1
    ("1 < 2 == 1", 1), ("n - 1 < n", 1), ("x < 0.5", 1)])
def test_comparisons_give_c_truth_values(text, value):
    result = evaluate(text, {"n": 1000, "x": 0.25})
    assert result == value and isinstance(result, int)


@pytest.mark.parametrize(("text", "value"), [
    ("n > 1 && n < 2000", 1), ("n > 1 && n < 5", 0), ("n < 5 || n == 1000", 1), ("0 || 0", 0),
    ("!n", 0), ("!0", 1), ("!(n > 5)", 0), ("!!n", 1), ("!n == 0", 1),      # C: (!n) == 0
    ("n != 1000 || !x", 0), ("2 && 3", 1), ("x && 0.5", 1), ("0.0 || 0", 0),
    ("1 || 0 && 0", 1),                                                         # && binds tighter
    ("(1 || 0) && 0", 0), ("-!0", -1), ("!n + 1", 1), ("n && x == 0.25", 1),
    ("0 == 1 < 0", 1), ("1 < 2 != 0 > 1", 1)])                 # relational binds tighter than ==
def test_logical_operators_give_c_truth_values(text, value):
    result = evaluate(text, {"n": 1000, "x": 0.25})
    assert result == value and isinstance(result, int)


@pytest.mark.parametrize(("text", "value"), [
    ("0 && m", 0), ("1 || m", 1), ("n < 5 && m > 0", 0), ("n > 5 || m", 1),
    ("!n && m", 0), ("0 && m || 1", 1), ("(n || m) && n > 999", 1)])
def test_an_operand_c_never_evaluates_may_be_unknown(text, value):
    """Short-circuit: ``m`` has no value, and C never reads it in these."""
    assert evaluate(text, {"n": 1000}) == value


@pytest.mark.parametrize("text", ["m && 0", "m || 1", "1 && m", "0 || m", "!m", "~n", "n & 1",
                                  "n | 0"])
def test_a_logical_operand_c_evaluates_must_be_known(text):
    """C evaluates the left operand first; bitwise operators stay unmodelled."""
    with pytest.raises(EvalError):
        evaluate(text, {"n": 1000})


def test_a_comparison_with_an_unknown_name_still_fails():
    with pytest.raises(EvalError):
        evaluate("m > 0", {"n": 1})


def test_replay_takes_the_branch_a_comparison_selects(tmp_path):
    path = tmp_path / "branched.cu"
    path.write_text(BRANCHED)
    run = replay(str(path), runtime=Runtime("cpu", 1, threads=2), traffic=False)
    # n > LIMIT: scale; mode == 2 && n >= 0: shift; mode != 2 is 0: the else if (scale);
    # 1 || argc: shift; 0 && argc: the else (scale); argc && 1 cannot be known: left out
    assert run.launches == ["scale", "shift", "scale", "shift", "scale"], run.launches
    assert [name for name, _data in run.outputs] == ["d"]


@pytest.mark.parametrize(("op", "value"), [("<", 0), ("<=", 1), (">", 0), (">=", 1), ("==", 1),
                                           ("!=", 0)])
def test_the_tree_evaluator_compares_too(op, value):
    """The AST side (``HostDecl`` values: ``int big = n > LIMIT;``) has the same operators."""
    tree = ir.Binary(op, ir.Var("n"), ir.Binary("*", ir.IntConst(2), ir.IntConst(500)))
    assert evaluate_tree(tree, {"n": 1000}) == value


@pytest.mark.parametrize(("tree", "value"), [
    (ir.Binary("&&", ir.Var("n"), ir.Binary(">", ir.Var("n"), ir.IntConst(5))), 1),
    (ir.Binary("&&", ir.IntConst(0), ir.Var("unknown")), 0),
    (ir.Binary("||", ir.IntConst(7), ir.Var("unknown")), 1),
    (ir.Binary("||", ir.IntConst(0), ir.FloatConst(0.0)), 0),
    (ir.Unary("!", ir.Var("n")), 0), (ir.Unary("!", ir.IntConst(0)), 1)])
def test_the_tree_evaluator_has_the_logical_operators(tree, value):
    result = evaluate_tree(tree, {"n": 1000})
    assert result == value and isinstance(result, int)


def test_the_tree_evaluator_needs_the_operand_c_evaluates():
    with pytest.raises(EvalError):
        evaluate_tree(ir.Binary("&&", ir.Var("unknown"), ir.IntConst(0)), {})
