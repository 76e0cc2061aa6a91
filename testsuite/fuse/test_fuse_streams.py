"""``s2s fuse`` of launches queued on one explicit stream (issue 29, fuse on real programs):
launches of one stream run in order, as default-stream launches do, so consecutive launches
of ``s[0]`` fuse into one launch on ``s[0]``; a launch of another stream may run concurrently
with them and is never fused with them, nor is one after the stream is given another value."""

from __future__ import annotations

from runtime.api import Runtime
from s2s.cli.main import main as cli_main
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse
from s2s.verify.fuse_replay import compare, replay
from testsuite.fuse.fuse_support import SCALE_SHIFT

SOURCE = """\
#include <cstdio>
""" + SCALE_SHIFT + """\
int main()
{
    int n = 1000;
    float h[1000];
    for (int i = 0; i < n; i++) h[i] = 0.5f * i;
    float *x, *y, *z, *w;
    cudaMalloc((void **)&x, n * sizeof(float));
    cudaMalloc((void **)&y, n * sizeof(float));
    cudaMalloc((void **)&z, n * sizeof(float));
    cudaMalloc((void **)&w, n * sizeof(float));
    cudaStream_t s[2], t;
    cudaStreamCreate(&s[0]);
    cudaStreamCreate(&s[1]);
    cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
    scale_k<<<(n + 127) / 128, 128, 0, s[0]>>>(y, x, 2.0f, n);
    shift_k<<<(n + 127) / 128, 128, 0, s[0]>>>(z, y, 1.0f, n);
    shift_k<<<(n + 127) / 128, 128, 0, s[1]>>>(w, x, 3.0f, n);
    cudaStreamSynchronize(s[0]);
    cudaStreamSynchronize(s[1]);
    t = s[0];
    scale_k<<<(n + 127) / 128, 128, 0, t>>>(y, z, 0.5f, n);
    t = s[1];
    shift_k<<<(n + 127) / 128, 128, 0, t>>>(x, w, 1.0f, n);
    cudaDeviceSynchronize();
    cudaMemcpy(h, z, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h[1], h[n - 1]);
    cudaMemcpy(h, y, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h[1], h[n - 1]);
    cudaMemcpy(h, x, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h[1], h[n - 1]);
    return 0;
}
"""


def test_launches_of_one_stream_fuse_on_it_and_no_other(tmp_path):
    path = tmp_path / "streams.cu"
    path.write_text(SOURCE)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success) and result.change.changed
    after = result.change.after.decode()
    assert "    s2s_fused_0<<<(n + 127) / 128, 128, 0, s[0]>>>(y, x, 2.0f, n, z, 1.0f);\n" \
        "    shift_k<<<(n + 127) / 128, 128, 0, s[1]>>>(w, x, 3.0f, n);\n" in after
    assert "s2s_fused_1" not in after and after.count("s2s_fused_0<<<") == 1
    notes = [d.message for d in result.diagnostics if d.id == "fuse-explain"]
    assert any("launches on different streams (s[0] vs s[1])" in m for m in notes), notes
    warned = [d.message for d in result.diagnostics if d.id == "fuse-unfused"]
    assert any("'t' assigned at line" in m for m in warned), warned   # t = s[1] ends the run
    runtime = Runtime("cpu", 1, threads=2)
    before = replay(str(path), runtime=runtime, module_source=result.change.after,
                    traffic=False)
    fused = replay(str(path), source=result.change.after, runtime=runtime, traffic=False)
    assert len(before.launches) == 5 and len(fused.launches) == 4
    assert compare(before, fused) == []


def test_a_stream_in_parentheses_is_the_same_stream(tmp_path):
    """``s[0]`` and ``(s[0])`` queue on one stream: the two launches fuse as before."""
    path = tmp_path / "paren.cu"
    path.write_text(SOURCE.replace("128, 0, s[0]>>>(z, y", "128, 0, ( s[0] )>>>(z, y"))
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success) and result.change.changed
    after = result.change.after.decode()
    assert "    s2s_fused_0<<<(n + 127) / 128, 128, 0, s[0]>>>(y, x, 2.0f, n, z, 1.0f);\n" in after
    notes = [d.message for d in result.diagnostics if d.id == "fuse-explain"]
    assert not any("s[0] vs ( s[0] )" in m or "(s[0])" in m for m in notes), notes


WRAPPED = """\
#include <cstdio>
#define B 128
__global__ void lift_k(float *c, const float *l, float a, int n)
{
    int i = blockIdx.x * B + threadIdx.x;
    if (i < n) c[i] = c[i] * (1.0f - a) + l[i] * a;
}
__global__ void clamp_k(float *c, float lo, float hi, int n)
{
    int i = blockIdx.x * B + threadIdx.x;
    if (i < n) c[i] = c[i] < lo ? lo : (c[i] > hi ? hi : c[i]);
}
static void lift(float *c, const float *l, float a, int n, cudaStream_t s)
{
    lift_k<<<(n + B - 1) / B, B, 0, s>>>(c, l, a, n);
}
static void clamp(float *c, float lo, float hi, int n, cudaStream_t s)
{
    clamp_k<<<(n + B - 1) / B, B, 0, s>>>(c, lo, hi, n);
}
int main()
{
    int n = 1000;
    float h[1000];
    for (int i = 0; i < n; i++) h[i] = 0.001f * i;
    float *r, *g, *l;
    cudaMalloc((void **)&r, n * sizeof(float));
    cudaMalloc((void **)&g, n * sizeof(float));
    cudaMalloc((void **)&l, n * sizeof(float));
    cudaMemcpy(r, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(g, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(l, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaStream_t lanes[2];
    cudaStreamCreate(&lanes[0]);
    cudaStreamCreate(&lanes[1]);
    lift(r, l, 0.25f, n, lanes[0]);
    clamp(r, 0.1f, 0.9f, n, lanes[0]);
    lift(g, l, 0.5f, n, lanes[1]);
    clamp(g, 0.2f, 0.8f, n, lanes[1]);
    cudaDeviceSynchronize();
    cudaMemcpy(h, r, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h[10], h[900]);
    cudaMemcpy(h, g, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h[10], h[900]);
    return 0;
}
"""


def test_wrappers_given_a_stream_are_followed_and_fused_on_it(tmp_path, capsys):
    """``lift(r, l, 0.25f, n, lanes[0]); clamp(r, 0.1f, 0.9f, n, lanes[0]);``: each wrapper
    launches on its ``cudaStream_t`` parameter; the calls are the launches on ``lanes[0]``."""
    path = tmp_path / "wrapped.cu"
    path.write_text(WRAPPED)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success) and result.change.changed
    after = result.change.after.decode()
    assert "    s2s_fused_0<<<(n + B - 1) / B, B, 0, (lanes[0])>>>(r, l, 0.25f, n, 0.1f, 0.9f);\n" \
        "    s2s_fused_1<<<(n + B - 1) / B, B, 0, (lanes[1])>>>(g, l, 0.5f, n, 0.2f, 0.8f);\n" \
        in after
    assert "static void lift(" not in after       # every call fused: the static wrapper goes
    # (the replay follows main's own launches only: the built programs are compared)
    assert cli_main(["verify", "--passes", "fuse", str(path)]) == 0
    out = capsys.readouterr().out
    assert "outputs: identical; verdict: OK" in out
