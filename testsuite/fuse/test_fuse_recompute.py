"""Recomputation fusion: an elementwise producer evaluated inside consumers of another thread
mapping (GEMVER's rank-2 update in the transposed and the plain GEMV). Checked by running the
original and fused programs on the runtime's cpu devices; refusals name their reason."""

from __future__ import annotations

import pytest
from conftest import REPO

from runtime.api import Runtime
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse
from s2s.verify.fuse_replay import compare, replay
from testsuite.fuse.fuse_support import planned, refusals

GEMVER = "samples/cuda/gemver/gemver.cu"
SMALL = {"n": 45}
#: more than one block of 256 threads: the barrier on x crosses blocks
TWO_BLOCKS = {"n": 300}

GER = """
__global__ void ger(const float *A, float *B, const float *u, const float *v, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n)
        B[i * n + j] = A[i * n + j] + u[i] * v[j];
}
__global__ void gemv_t(const float *B, const float *y, float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j)
            acc += B[j * n + i] * y[j];
        x[i] = acc;
    }
}
__global__ void zero(float *p, int count)
{ int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < count) p[k] = 0.0f; }
"""


def _main(launches: str) -> str:
    return ("int main() { int n = 1000; float *A, *B, *u, *v, *y, *x;"
            " cudaMalloc(&A, n * n * sizeof(float)); cudaMalloc(&B, n * n * sizeof(float));"
            " cudaMalloc(&u, n * sizeof(float)); cudaMalloc(&v, n * sizeof(float));"
            " cudaMalloc(&y, n * sizeof(float)); cudaMalloc(&x, n * sizeof(float));"
            " dim3 blk(32, 8); dim3 grd((n + 31) / 32, (n + 7) / 8); int g = (n + 255) / 256;"
            f" {launches} cudaMemcpy(0, x, 4, cudaMemcpyDeviceToHost); cudaFree(B); return 0; }}\n")


@pytest.fixture(scope="module")
def runtime():
    return Runtime("cpu", 1, threads=2)


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch):
    monkeypatch.chdir(REPO)


def _fused(path: str, source: bytes | None = None) -> Success:
    if source is not None:
        target = REPO / "build" / "test_fuse_recompute" / path.rsplit("/", 1)[-1]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source)
        path = str(target)
    result = process_file(path, RunOptions(), run_fuse)
    assert isinstance(result, Success), [d.headline() for d in result.diagnostics]
    return result


def test_producer_recomputed_in_a_transposed_consumer():
    _, plans = planned(GER + _main("ger<<<grd, blk>>>(A, B, u, v, n);"
                                   " gemv_t<<<g, 256>>>(B, y, x, n);"))
    (run, groups, decisions), = plans
    (group,) = [g for g in groups if g.fused]
    assert [run.nodes[i].launch.kernel for i in group.nodes] == ["gemv_t"]
    (rec,) = group.recomputed.values()
    assert rec.producer.buffer == "B" and rec.producer.inputs == ("A", "u", "v")
    (site,) = rec.sites[1]
    assert [str(c) for c in site.coords] == ["s2sv_i", "s2sl_j"]   # j_P = i, i_P = j
    made = [d.reason for d in decisions if d.made]
    assert any("B recomputed from A, u, v in gemv_t#1 (j = i, i = j)" in r for r in made)


def test_neighbour_read_recomputed():
    """The same mapping shifted by one (a global barrier for ordinary fusion): the consumer
    computes 2 * a[i + 1] itself, and the dead temporary is not allocated."""
    source = GER + """
__global__ void twice(const float *a, float *b, int count)
{ int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < count) b[k] = 2.0f * a[k]; }
__global__ void shifted(const float *b, float *c, int count)
{ int k = blockIdx.x * blockDim.x + threadIdx.x; if (k + 1 < count) c[k] = b[k + 1]; }
""" + _main("twice<<<g, 256>>>(u, B, n); shifted<<<g, 256>>>(B, x, n);")
    _, plans = planned(source)
    (run, groups, _d), = plans
    (group,) = [g for g in groups if g.fused]
    (site,) = group.recomputed["B"].sites[1]
    assert [str(c) for c in site.coords] == ["1 + s2sv_k"]


def test_refused_when_an_input_is_overwritten_between():
    _, plans = planned(GER + _main("ger<<<grd, blk>>>(A, B, u, v, n); zero<<<g, 256>>>(u, n);"
                                   " gemv_t<<<g, 256>>>(B, y, x, n);"))
    assert any("zero#1 overwrites u, an input of ger#0, between the producer and a consumer"
               in r for r in refusals(plans))
    assert not any(g.recomputed for _r, groups, _d in plans for g in groups)


def test_refused_when_the_write_is_not_injective():
    """A 1-D store launched with 8 threads in y: eight threads of a block store each element
    (the kernel alone is a map; the launch makes it non-injective)."""
    source = GER + """
__global__ void twice(const float *a, float *b, int count)
{ int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < count) b[k] = 2.0f * a[k]; }
__global__ void copy(const float *b, float *c, int count)
{ int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < count) c[k] = b[k]; }
""" + _main("twice<<<g, blk>>>(u, B, n); copy<<<g, 256>>>(B, x, n);")
    _, plans = planned(source)
    reasons = refusals(plans)
    assert any("recomputation: twice#0 is not injective: two threads store one element of B"
               in r for r in reasons), reasons
    assert not any(g.recomputed for _r, groups, _d in plans for g in groups)


def test_refused_when_the_consumer_reads_outside_the_guard():
    source = GER.replace("if (i < n && j < n)", "if (i < n - 1 && j < n)") + \
        _main("ger<<<grd, blk>>>(A, B, u, v, n); gemv_t<<<g, 256>>>(B, y, x, n);")
    _, plans = planned(source)
    assert any("guard not implied: gemv_t#1 reads elements of B that ger#0 does not store"
               in r for r in refusals(plans)), refusals(plans)


def test_refused_when_the_row_length_is_not_the_guard_bound():
    source = GER.replace("if (i < n && j < n)", "if (i < n && j < n - 1)") + \
        _main("ger<<<grd, blk>>>(A, B, u, v, n); gemv_t<<<g, 256>>>(B, y, x, n);")
    _, plans = planned(source)
    assert any("not mixed radix" in r for r in refusals(plans)), refusals(plans)


def test_refused_when_recomputing_costs_more():
    """Three matrix inputs re-read by three consumers cost more than B written once."""
    source = GER.replace("A[i * n + j] + u[i] * v[j]", "A[i * n + j] + u[i * n + j] + v[i * n + j]")
    main = _main("ger<<<grd, blk>>>(A, B, u, v, n); gemv_t<<<g, 256>>>(B, y, x, n);"
                 " gemv_t<<<g, 256>>>(B, y, x, n); gemv_t<<<g, 256>>>(B, y, x, n);")
    main = main.replace("cudaMalloc(&u, n * sizeof", "cudaMalloc(&u, n * n * sizeof")
    main = main.replace("cudaMalloc(&v, n * sizeof", "cudaMalloc(&v, n * n * sizeof")
    _, plans = planned(source + main)
    assert any(r.startswith("recomputation costs more: cost model: 32.19 MB keeping ger#0")
               for r in refusals(plans)), refusals(plans)


def test_gemver_two_launches_equal_outputs_and_idempotent(runtime):
    fused = _fused(GEMVER).change.after
    text = fused.decode()
    assert "ger2_kernel<<<" not in text and "cudaMalloc(&d_B" not in text
    before = replay(GEMVER, overrides=TWO_BLOCKS, runtime=runtime)
    after = replay(GEMVER, source=fused, overrides=TWO_BLOCKS, runtime=runtime)
    assert after.launches == ["s2s_fused_0", "s2s_fused_1"]
    assert compare(before, after) == []
    assert after.bytes < before.bytes
    # A and B's vectors are needed before and after the barrier on x: the second minimum
    # counts them twice, and the fused program meets it exactly
    assert before.minimum < before.minimum_barriers == after.bytes
    assert before.minimum_barriers - before.minimum == 4 * (300 * 300 + 4 * 300 + 300)
    again = _fused(GEMVER, fused)
    assert again.change.after == again.change.before


def test_checker_catches_swapped_coordinates(runtime):
    """Recomputing B[i][j] where the consumer reads B[j][i] is caught by the replay."""
    fused = _fused(GEMVER).change.after.decode()
    broken = fused.replace("s2s_r0_v2, s2s_r0_n, i, j)", "s2s_r0_v2, s2s_r0_n, j, i)", 1)
    assert broken != fused
    before = replay(GEMVER, overrides=SMALL, runtime=runtime)
    after = replay(GEMVER, source=broken.encode(), overrides=SMALL, runtime=runtime)
    assert compare(before, after) != []
