"""``s2s fuse`` of launches queued on one explicit stream (issue 29, fuse on real programs):
launches of one stream run in order, as default-stream launches do, so consecutive launches
of ``s[0]`` fuse into one launch on ``s[0]``; a launch of another stream may run concurrently
with them and is never fused with them, nor is one after the stream is given another value."""

from __future__ import annotations

from runtime.api import Runtime
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse
from s2s.verify.fuse_replay import compare, replay

SOURCE = """\
#include <cstdio>
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
