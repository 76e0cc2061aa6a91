"""Device pointers inside by-value kernel arguments (``struct Matrix {int n; float *elements;}``
passed by value, as OLCF hw12 and the CUDA programming guide's MatMul do), and cudaDeviceReset:
the cpu devices run them as a GPU does."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from runtime.api import Runtime
from runtime.errors import AddressError

KERNELS = """
struct Span { int n; float *data; const float *from; };
__global__ void scale_span(Span s, float f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < s.n) s.data[i] = f * s.from[i];
}
__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
"""


def _span(n: int, data: int, source: int) -> bytes:
    """The bytes of ``Span`` (int, 4 bytes of padding, two pointers) as the host passes them."""
    return struct.pack("<iiQQ", n, 0, data, source)


@pytest.fixture(scope="module")
def kernel():
    rt = Runtime(backend="cpu", devices=2)
    k = rt.load_module(KERNELS, name="span.cu")["scale_span"]
    k.held = {0: (8, 16)}
    return rt, k


def test_pointers_in_a_struct_argument_reach_every_device_translated(kernel):
    rt, k = kernel
    n = 1000
    src, dst = rt.malloc(n * 4), rt.malloc(n * 4)
    host = np.arange(n, dtype=np.float32)
    rt.memcpy_htod(src, host)                       # linear: half of it on each device
    stats = rt.launch(k, (8, 1, 1), (128, 1, 1), [_span(n, dst.addr, src.addr), 2.0])
    assert not stats.partitioned and "by-value argument" in stats.reason
    out = np.zeros(n, dtype=np.float32)
    rt.memcpy_dtoh(out, dst)
    assert np.array_equal(out, 2 * host)
    offset = rt.launch(k, (4, 1, 1), (128, 1, 1), [_span(n - 500, dst.addr + 2000, src.addr), 3.0])
    assert offset.boxes and len(offset.boxes) == 1
    rt.memcpy_dtoh(out, dst)
    assert np.array_equal(out[500:], 3 * host[:500]) and np.array_equal(out[:500], 2 * host[:500])


def test_a_freed_buffer_in_a_struct_argument_is_a_use_after_free(kernel):
    rt, k = kernel
    src, dst = rt.malloc(64), rt.malloc(64)
    rt.free(dst)
    with pytest.raises(AddressError, match="use after free"):
        rt.launch(k, 1, 16, [_span(16, dst.addr, src.addr), 1.0])


def test_device_reset_frees_every_allocation():
    rt = Runtime(backend="cpu", devices=2)
    buf = rt.malloc(256)
    rt.memcpy_htod(buf, np.zeros(64, dtype=np.float32))
    rt.reset()
    assert rt.space.live_bytes == 0 and buf.freed
    with pytest.raises(AddressError, match="use after free"):
        rt.memcpy_dtoh(np.zeros(64, dtype=np.float32), buf)
    assert rt.malloc(256).addr != buf.addr          # a fresh allocation works after the reset


def test_a_staged_copy_read_through_a_struct_is_not_uploaded_again_later():
    """``launch`` distribution (the C interface's default): the copy waits for the launch that
    takes the buffer as a pointer; the launch through a struct reads the staged bytes from the
    host and writes the buffer, and the later placement uploads only what the host still holds
    alone (the tracker says device 0 holds the new bytes), not the stale staged copy."""
    rt = Runtime(backend="cpu", devices=2, distribute="launch")
    module = rt.load_module(KERNELS, name="span.cu")
    scale, add = module["scale_span"], module["add_one"]
    scale.held = {0: (8, 16)}
    n = 512
    x = rt.malloc(n * 4)
    host = np.arange(n, dtype=np.float32)
    rt.memcpy_htod(x, host)
    rt.launch(scale, 4, 128, [_span(n, x.addr, x.addr), 2.0])      # in place: x = 2x
    rt.launch(add, 4, 128, [x.addr, n])
    out = np.zeros(n, dtype=np.float32)
    rt.memcpy_dtoh(out, x)
    assert np.array_equal(out, 2 * host + 1)
