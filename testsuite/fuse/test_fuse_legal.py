"""Kernel classes, legality verdicts and data plans of `s2s fuse` on small in-memory programs."""

from __future__ import annotations

import pytest

from testsuite.fuse.fuse_support import fused_sets, planned, refusals

MAP = """
__global__ void scale(const float *in, float *out, float s, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = s * in[i]; }
"""
SHIFTED = """
__global__ void shifted(const float *in, float *out, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i + 1 < n) out[i] = in[i + 1]; }
"""
ROWSUM = """
__global__ void rowsum(const float *in, float *out, int n)
{
    __shared__ float red[128];
    float acc = 0.0f;
    for (int c = threadIdx.x; c < n; c += blockDim.x) acc += in[blockIdx.x * n + c];
    red[threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.x == 0) { float s = 0.0f; for (int k = 0; k < 128; k++) s += red[k]; out[blockIdx.x] = s; }
}
__global__ void rowscale(const float *in, const float *sums, float *out, int n)
{
    float s = sums[blockIdx.x];
    for (int c = threadIdx.x; c < n; c += blockDim.x) out[blockIdx.x * n + c] = in[blockIdx.x * n + c] / s;
}
"""
ATOMIC = """
__global__ void total(const float *in, float *sum, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(sum, in[i]); }
"""


def main(body: str, decls: str = "float *a, *b, *c, *d; int n = 1000; int g = (n + 255) / 256;") -> str:
    allocs = "".join(f"cudaMalloc(&{v}, n * sizeof(float));" for v in "abcd")
    return f"int main() {{ {decls} {allocs} {body} cudaMemcpy(0, d, 4, cudaMemcpyDeviceToHost); return 0; }}\n"


def test_classes():
    facts, _ = planned(MAP + ROWSUM + ATOMIC + "int main() { return 0; }\n")
    assert facts["scale"].kind == "map"
    assert facts["rowsum"].kind == "nested" and "rows" in facts["rowsum"].detail
    assert facts["rowscale"].kind == "nested"
    assert facts["total"].kind == "reduce" and "atomicAdd" in facts["total"].detail


def test_same_thread_chain_uses_registers_and_drops_dead_temporary():
    _, plans = planned(MAP + main("scale<<<g, 256>>>(a, b, 2.0f, n); scale<<<g, 256>>>(b, d, 3.0f, n);"))
    (run, groups, _), = plans
    (group,) = [g for g in groups if g.fused]
    plan = group.segments[0].buffers["b"]
    assert plan.mode == "register" and plan.store_at is None
    assert group.dead == {"b"}


def test_live_intermediate_is_stored():
    text = MAP + main("scale<<<g, 256>>>(a, d, 2.0f, n); scale<<<g, 256>>>(d, c, 3.0f, n);"
                      "cudaMemcpy(0, c, 4, cudaMemcpyDeviceToHost);")
    _, plans = planned(text)
    (group,) = [g for _r, gs, _d in plans for g in gs if g.fused]
    plan = group.segments[0].buffers["d"]
    assert plan.mode == "register" and plan.store_at == 0 and not group.dead


def test_neighbour_read_needs_global_barrier():
    # b is copied back: not recomputed in shifted (test_fuse_recompute covers that)
    _, plans = planned(MAP + SHIFTED + main(
        "scale<<<g, 256>>>(a, b, 2.0f, n); shifted<<<g, 256>>>(b, d, n);"
        "cudaMemcpy(0, b, 4, cudaMemcpyDeviceToHost);"))
    assert fused_sets(plans) == []
    assert any("global barrier" in r for r in refusals(plans))
    assert any(r.startswith("recomputation: b is live on the host") for r in refusals(plans))


def test_war_across_blocks_is_refused():
    # shifted reads b[i + 1]; scale then overwrites b: the element read by thread i is
    # written by thread i + 1, which may sit in another block
    _, plans = planned(MAP + SHIFTED + main(
        "shifted<<<g, 256>>>(b, d, n); scale<<<g, 256>>>(a, b, 2.0f, n);"))
    assert fused_sets(plans) == []
    assert any("WAR" in r for r in refusals(plans))


def test_block_scope_gets_barrier_and_shared_scalar():
    _, plans = planned(ROWSUM + main("rowsum<<<n, 128>>>(a, b, n); rowscale<<<n, 128>>>(a, b, d, n);"))
    (group,) = [g for _r, gs, _d in plans for g in gs if g.fused]
    segment = group.segments[0]
    assert segment.buffers["b"].mode == "shared"
    assert segment.barriers_before == {1}


def test_different_shapes_with_dependence_refused_but_independent_dispatched():
    _, plans = planned(MAP + main("scale<<<g, 256>>>(a, b, 2.0f, n); scale<<<g, 128>>>(b, d, 2.0f, n);"
                                  "cudaMemcpy(0, b, 4, cudaMemcpyDeviceToHost);"))
    assert fused_sets(plans) == [] and any("different shapes" in r for r in refusals(plans))
    _, plans = planned(MAP + main("scale<<<g, 256>>>(a, b, 2.0f, n); scale<<<2 * g, 128>>>(c, d, 2.0f, n);"))
    (group,) = [g for _r, gs, _d in plans for g in gs if g.fused]
    assert len(group.segments) == 2


def test_barrier_stage_with_other_block_size_refused():
    _, plans = planned(ROWSUM + MAP + main(
        "rowsum<<<n, 128>>>(a, b, n); scale<<<g, 256>>>(c, d, 2.0f, n);"))
    assert fused_sets(plans) == []
    assert any("fewer threads" in r for r in refusals(plans))


def test_reduction_with_atomics_fuses_behind_map():
    _, plans = planned(MAP + ATOMIC + main("scale<<<g, 256>>>(a, b, 2.0f, n); total<<<g, 256>>>(b, d, n);"))
    assert fused_sets(plans) == [["scale", "total"]]


def test_launches_of_two_streams_and_pointer_arithmetic_are_not_fused():
    _, plans = planned(MAP + main("cudaStream_t s; scale<<<g, 256, 0, s>>>(a, b, 2.0f, n);"
                                  "scale<<<g, 256>>>(c, d, 2.0f, n);"
                                  "scale<<<g, 256>>>(b + 1, d, 2.0f, n);"))
    reasons = refusals(plans)
    assert fused_sets(plans) == []
    assert any("launches on different streams (the default stream vs s)" in r for r in reasons)
    assert any("plain device pointer" in r for r in reasons)


def test_intervening_call_splits_runs():
    _, plans = planned(MAP + "void touch(float *p);\n" + main(
        "scale<<<g, 256>>>(a, b, 2.0f, n); touch(b); scale<<<g, 256>>>(b, d, 2.0f, n);"))
    assert fused_sets(plans) == []
    assert [run.after for run, _groups, _decisions in plans] == ["", "a call to touch at line 6"]


def test_default_stream_synchronization_does_not_split_runs():
    """issue 19, item 3: synchronizing the default stream orders the host, not the launches."""
    _, plans = planned(MAP + main("scale<<<g, 256>>>(a, b, 2.0f, n); cudaDeviceSynchronize();"
                                  "scale<<<g, 256>>>(b, d, 2.0f, n);"))
    assert fused_sets(plans) == [["scale", "scale"]]


@pytest.mark.parametrize("text, expected", [("(n + 255) / 256", 4), ("sizeof(float) * n", 4000),
                                            ("-7 / 2", -3), ("-7 % 2", -1), ("1 << 10", 1024)])
def test_host_evaluator_uses_c_semantics(text, expected):
    from s2s.analysis.host_eval import evaluate

    assert evaluate(text, {"n": 1000}) == expected


def test_a_write_through_a_member_of_a_member_is_named_not_called_no_write():
    """XSBench's ``sampling_kernel(Inputs in, SimulationData GSD)`` stores through
    ``GSD.p_energy_samples``: a pointer member of a by-value struct parameter is a buffer of
    its own (test_fuse_struct_members.py); one of a member struct is not followed, the
    kernel is not fusible, and the reason says which member."""
    facts, plans = planned("struct Grid { double *energy; };\n"
                           "struct State { Grid g; int n; };\n"
                           "__global__ void sample(State s)\n"
                           "{ int i = blockIdx.x * blockDim.x + threadIdx.x;"
                           " if (i < s.n) s.g.energy[i] = 0.5 * i; }\n" + MAP + main(
                               "State s; s.n = n; s.g.energy = 0; sample<<<g, 256>>>(s);"
                               "scale<<<g, 256>>>(a, b, 2.0f, n);"))
    assert facts["sample"].kind == "other" and facts["sample"].members == ()
    assert facts["sample"].detail.startswith("writes through 's.g.energy', a pointer member")
    assert fused_sets(plans) == []
