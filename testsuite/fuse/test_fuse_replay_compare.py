"""The replay of host code (``s2s verify``'s fuse checker, :mod:`s2s.verify.fuse_replay`)
evaluates comparisons with C's semantics (issue 29: the replay evaluator had none, so a
branch on ``n > 0`` or ``mode == 2`` was left out with every launch in it)."""

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
int main()
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


def test_a_comparison_with_an_unknown_name_still_fails():
    with pytest.raises(EvalError):
        evaluate("m > 0", {"n": 1})


def test_replay_takes_the_branch_a_comparison_selects(tmp_path):
    path = tmp_path / "branched.cu"
    path.write_text(BRANCHED)
    run = replay(str(path), runtime=Runtime("cpu", 1, threads=2), traffic=False)
    # n > LIMIT: scale; `&&` is not modelled: that if is left out; mode != 2 is 0: the else if
    assert run.launches == ["scale", "scale"], run.launches
    assert [name for name, _data in run.outputs] == ["d"]


@pytest.mark.parametrize(("op", "value"), [("<", 0), ("<=", 1), (">", 0), (">=", 1), ("==", 1),
                                           ("!=", 0)])
def test_the_tree_evaluator_compares_too(op, value):
    """The AST side (``HostDecl`` values: ``int big = n > LIMIT;``) has the same operators."""
    tree = ir.Binary(op, ir.Var("n"), ir.Binary("*", ir.IntConst(2), ir.IntConst(500)))
    assert evaluate_tree(tree, {"n": 1000}) == value
