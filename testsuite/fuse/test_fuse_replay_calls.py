"""The fusion checker's replay follows what a program does (issue 29): launches inside the
file's wrapper functions (the call is replayed with its arguments bound), ``cudaMemcpyAsync``
and ``cudaMemsetAsync`` as the plain calls (the replay is serialized), and a device copy it
does not model stops it with the reason instead of being skipped (before, all three were
left out: a program whose launches sit in wrappers replayed to no output at all)."""

from __future__ import annotations

import pytest

from runtime.api import Runtime
from s2s.verify.fuse_replay import ReplayError, compare, replay

KERNEL = """\
#include <cuda_runtime.h>
__global__ void axpy(float *y, const float *x, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }
"""
WRAPPED = KERNEL + """\
static void step(float *out, const float *in, float a, int count)
{
    int blocks = (count + 127) / 128;
    axpy<<<blocks, 128>>>(out, in, a, count);
}
static void upload(float *d, const float *h, int count, cudaStream_t s)
{
    cudaMemcpyAsync(d, h, count * sizeof(float), cudaMemcpyHostToDevice, s);
}
int main()
{
    int n = 1000;
    float h_x[1000], h_y[1000];
    float *d_x, *d_y;
    cudaStream_t s = 0;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    upload(d_x, h_x, n, s);
    cudaMemsetAsync(d_y, 0, n * sizeof(float), s);
    step(d_y, d_x, 2.0f, n);
    step(d_x, d_y, 0.5f, n - 10);
    cudaMemcpyAsync(h_y, d_x, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    return 0;
}
"""
INLINE = KERNEL + """\
int main()
{
    int n = 1000;
    float h_x[1000], h_y[1000];
    float *d_x, *d_y;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_y, 0, n * sizeof(float));
    axpy<<<(n + 127) / 128, 128>>>(d_y, d_x, 2.0f, n);
    axpy<<<(n - 10 + 127) / 128, 128>>>(d_x, d_y, 0.5f, n - 10);
    cudaMemcpy(h_y, d_x, n * sizeof(float), cudaMemcpyDeviceToHost);
    return 0;
}
"""


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    """Replays of in-memory sources under one file name, their kernels compiled once from
    ``KERNEL`` (every source here defines just those): one cpu-device module for the module."""
    path = str(tmp_path_factory.mktemp("replay") / "prog.cu")
    runtime = Runtime("cpu", 1, threads=2)

    def run(text: str):
        return replay(path, source=text.encode(), runtime=runtime, traffic=False,
                      module_source=KERNEL.encode())
    return run


def test_wrapper_calls_and_async_copies_replay_as_written_inline(replayed):
    wrapped = replayed(WRAPPED)
    inline = replayed(INLINE)
    assert wrapped.launches == inline.launches == ["axpy", "axpy"]
    assert [name for name, _ in wrapped.outputs] == ["d_x"]
    assert compare(inline, wrapped) == []


def test_a_device_copy_not_modelled_stops_the_replay(replayed):
    pitched = INLINE.replace(
        "    cudaMemset(d_y, 0, n * sizeof(float));\n",
        "    cudaMemcpy2D(d_y, 4, d_x, 4, 4, n, cudaMemcpyDeviceToDevice);\n")
    assert pitched != INLINE
    with pytest.raises(ReplayError, match="cudaMemcpy2D at line 12 is not modelled"):
        replayed(pitched)
