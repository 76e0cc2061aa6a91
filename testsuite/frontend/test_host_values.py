"""Host values from the libclang AST (issue 19, item 4): call and launch arguments and scalar /
``dim3`` declarations lowered to the kernel IR, evaluated without reading C text."""

from __future__ import annotations

import pytest

from s2s.analysis.host_eval import Dim3, EvalError, declare_facts, evaluate_tree, host_trees

SOURCE = """#include <cuda_runtime.h>
#define THREADS 128
#define ELEM float
#define CHECK(x) do { if ((x) != cudaSuccess) return 1; } while (0)
__global__ void k(float *a, int n) { int i = threadIdx.x; if (i < n) a[i] = 1; }
int main(int argc, char **argv)
{
    int n = 1000, half = -7 / 2, rem = -7 % 2;
    size_t bytes = sizeof(ELEM) * n;
    const int blocks = (n + THREADS - 1) / THREADS;
    dim3 grid(blocks, 2), block(THREADS);
    float scale = 0.5f * n;
    int unknown = argc;
    float *d;
    CHECK(cudaMalloc((void **)&d, bytes));
    k<<<grid, block>>>(d, n / 2);
    k<<<dim3(blocks * 2), THREADS, 64>>>(d, (int)(scale) + 1);
    for (int i = 0; i < 3; i++) { int inner = 5; (void)inner; }
    return 0;
}
"""


@pytest.fixture(scope="module")
def model():
    from s2s.frontend.core.parse import ParseOptions
    from s2s.frontend.extract import load

    return load("values.cu", ParseOptions(), source=SOURCE.encode()).model


def test_declarations_evaluate_with_c_semantics(model):
    trees = host_trees(model)
    env: dict = {}
    bound = declare_facts(trees.declarations("main", len(SOURCE)), env)
    assert bound == ["n", "half", "rem", "bytes", "blocks", "grid", "block", "scale"]
    assert env["half"] == -3 and env["rem"] == -1          # C truncation, not Python's floor
    assert env["bytes"] == 4000                            # sizeof of a macro type, folded by clang
    assert env["blocks"] == 8 and env["grid"] == Dim3(8, 2) and env["block"] == Dim3(128)
    assert env["scale"] == 500.0
    assert "inner" not in env and "unknown" not in env     # inner scopes left out; argc has no value


def test_launch_configuration_and_arguments(model):
    trees = host_trees(model)
    env: dict = {}
    declare_facts(trees.declarations("main", len(SOURCE)), env)
    first, second = model.launches
    assert evaluate_tree(trees.config(first, 0), env) == Dim3(8, 2)
    assert evaluate_tree(trees.config(first, 1), env).count == 128
    assert evaluate_tree(trees.argument(first.span, "k", 1), env) == 500
    assert evaluate_tree(trees.config(second, 0), env) == Dim3(16)
    assert evaluate_tree(trees.config(second, 2), env) == 64
    assert evaluate_tree(trees.argument(second.span, "k", 1), env) == 501


def test_arguments_inside_a_macro_are_told_apart(model):
    trees = host_trees(model)
    call = next(c for c in model.api_calls if c.name == "cudaMalloc")
    env = {"n": 1000}
    assert evaluate_tree(trees.argument(call.span, "cudaMalloc", 1), {**env, "bytes": 4000}) == 4000
    with pytest.raises(EvalError):
        evaluate_tree(trees.argument(call.span, "cudaMalloc", 0), env)  # &d is no number
