"""Helpers of the fusion tests: plan a source held in memory."""

from __future__ import annotations

from s2s.analysis.fuse import plan as fuse_plan
from s2s.analysis.fuse.graph import find_runs
from s2s.analysis.fuse.kernels import kernel_facts
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load
from s2s.transform.fuse import context

HEAD = "#include <cuda_runtime.h>\n"
#: two element-wise kernels, the second reading what the first writes (run-checked tests)
SCALE_SHIFT = """\
__global__ void scale_k(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
__global__ void shift_k(float *z, const float *y, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = y[i] + b;
}
"""


def planned(text: str, name: str = "input.cu"):
    """(facts, [(run, groups, decisions)]) of an in-memory CUDA source."""
    loaded = load(name, ParseOptions(), source=(HEAD + text).encode())
    assert loaded.model is not None, [d.headline() for d in loaded.diagnostics]
    facts = kernel_facts(loaded.model)
    out = []
    for run in find_runs(loaded.model, loaded.source, facts):
        ctx = context(loaded.model, loaded.source, run, facts, None)
        groups, decisions = fuse_plan.plan_run(ctx)
        out.append((run, groups, decisions))
    return facts, out


def fused_sets(plans) -> list[list[str]]:
    return [[run.nodes[i].launch.kernel for i in g.nodes] for run, groups, _ in plans
            for g in groups if g.fused]


def refusals(plans) -> list[str]:
    return [d.reason for _run, _groups, decisions in plans for d in decisions if not d.made]
