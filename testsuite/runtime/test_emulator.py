"""The SIMT emulator's CUDA features, each checked against values computed in Python.

All kernels live in one source compiled once for the module (compile time dominates otherwise).
"""

from __future__ import annotations

import numpy as np
import pytest

from runtime.cpu import module as cpu_module
from runtime.cpu.source import prepare
from runtime.errors import CompileError, LaunchError, UnsupportedConstruct

SOURCE = r"""
#include <cuda_runtime.h>
#include <math_constants.h>

extern __shared__ int dyn_ints[];            /* namespace-scope dynamic shared memory */

__global__ void atomics(int *i, unsigned *u, float *f, double *d, unsigned long long *ull)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&i[0], 1);            atomicSub(&i[1], 2);
    atomicMin(&i[2], -t);           atomicMax(&i[3], t);
    atomicAdd(&u[0], 1);            atomicSub(&u[1], 1);
    atomicMin(&u[2], (unsigned)t);  atomicMax(&u[3], (unsigned)t);
    atomicAdd(&f[0], 0.5f);         atomicSub(&f[1], 0.25f);
    atomicMin(&f[2], -0.5f * t);    atomicMax(&f[3], 0.5f * t);
    atomicAdd(&d[0], 0.5);          atomicSub(&d[1], 0.25);
    atomicMin(&d[2], -1.0 * t);     atomicMax(&d[3], 1.0 * t);
    atomicAdd(&ull[0], 3ull);
    atomicOr(&u[4], 1u << (t % 32)); atomicAnd(&u[5], ~(1u << (t % 16)));
    atomicXor(&u[6], 1u);           atomicInc(&u[7], 9u);
    int old = i[4], assumed;                /* the classic CAS increment loop */
    do {
        assumed = old;
        old = atomicCAS(&i[4], assumed, assumed + 1);
    } while (old != assumed);
    atomicExch(&f[4], 7.0f);
    atomicExch(&i[5], 9);
    atomicCAS(&f[5], 0.0f, 2.5f);
    atomicCAS(&d[4], 0.0, 4.5);
    __threadfence();
}

__global__ void warps(const int *in, int *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = t < n ? in[t] : 0;
    int o = 8 * t;
    out[o + 0] = __shfl_sync(0xffffffffu, v, 3);
    out[o + 1] = __shfl_up_sync(0xffffffffu, v, 2);
    out[o + 2] = __shfl_down_sync(0xffffffffu, v, 5);
    out[o + 3] = __shfl_xor_sync(0xffffffffu, v, 6);
    out[o + 4] = (int)__ballot_sync(0xffffffffu, v % 3 == 0);
    out[o + 5] = __any_sync(0xffffffffu, v == 7) + 2 * __all_sync(0xffffffffu, v >= 0);
    out[o + 6] = __shfl_down_sync(0xffffffffu, v, 1, 8);     /* segments of 8 lanes */
    double dv = __shfl_xor_sync(0xffffffffu, (double)v + 0.5, 1);
    out[o + 7] = (int)(2 * dv) + 0 * lane;
}

__global__ void block_votes(const int *in, int *out)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int c = __syncthreads_count(v > 0);
    int a = __syncthreads_and(v > 0);
    int o = __syncthreads_or(v > 5);
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = c;
        out[3 * blockIdx.x + 1] = a;
        out[3 * blockIdx.x + 2] = o;
    }
}

/* threads that return early no longer take part in barriers (as in CUDA) */
__global__ void early_exit(int *out, int active)
{
    __shared__ int s[64];
    if ((int)threadIdx.x >= active)
        return;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[active - 1 - threadIdx.x];
}

__global__ void dyn_shared_reverse(int *data, int n)
{
    dyn_ints[threadIdx.x] = data[threadIdx.x];
    __syncthreads();
    data[threadIdx.x] = dyn_ints[n - 1 - threadIdx.x];
}

__global__ void divergent_barrier(int *out)
{
    if (threadIdx.x < 16) __syncthreads();
    else __syncwarp();
    out[threadIdx.x] = 1;
}

__global__ void traps(int *out)
{
    if (threadIdx.x == 3) __trap();
    out[threadIdx.x] = 1;
}

struct Pair { int a; float b; };

__global__ void math_and_vectors(float *f, int *i, const float4 *v4, Pair p, double *d)
{
    float4 q = v4[0];
    f[0] = rsqrtf(4.0f);            f[1] = __expf(0.0f) + sinpif(0.5f);
    f[2] = fminf(q.x, q.y) + fmaxf(q.z, q.w);
    f[3] = __saturatef(1.5f) + __fdividef(1.0f, 4.0f);
    f[4] = __int_as_float(__float_as_int(3.5f));
    f[5] = max(2, 3.5f) + min(1u, 4u);
    f[6] = p.b * p.a;
    f[7] = CUDART_PI_F;
    i[0] = __popc(0xF0F0u);         i[1] = __clz(1);   i[2] = __ffs(8);
    i[3] = (int)__brev(1u);         i[4] = __float2int_rn(2.5f); i[5] = __mulhi(1 << 30, 8);
    i[6] = sizeof(float4) + alignof(float4) + sizeof(float3) + alignof(double2);
    i[7] = blockDim.x + 10 * gridDim.x + 100 * warpSize;
    d[0] = rsqrt(16.0) + __longlong_as_double(__double_as_longlong(1.5));
}
"""


@pytest.fixture(scope="module")
def mod():
    return cpu_module.load(SOURCE, "features.cu")


def test_barrier_free_kernels_run_as_plain_loops(mod):
    assert not mod["atomics"].fibers and not mod["math_and_vectors"].fibers
    assert mod["warps"].fibers and mod["block_votes"].fibers and mod["early_exit"].fibers


def test_atomics(mod):
    threads = 4 * 64
    i = np.array([0, 0, 0, 0, 0, 0], np.int32)
    u = np.array([0, 1000, 0xFFFFFFFF, 0, 0, 0xFFFFFFFF, 0, 0], np.uint32)
    f = np.zeros(6, np.float32)
    d = np.zeros(5, np.float64)
    ull = np.zeros(1, np.uint64)
    mod["atomics"].launch(4, 64, [a.ctypes.data for a in (i, u, f, d, ull)], threads=2)
    assert list(i[:4]) == [threads, -2 * threads, -(threads - 1), threads - 1]
    assert i[4] == threads and i[5] == 9          # every CAS loop got its increment in
    assert list(u[:4]) == [threads, 1000 - threads, 0, threads - 1]
    assert u[4] == 0xFFFFFFFF and u[5] == 0xFFFF0000 and u[6] == 0 and u[7] == threads % 10
    assert list(f[:6]) == [0.5 * threads, -0.25 * threads, -0.5 * (threads - 1), 0.5 * (threads - 1), 7.0, 2.5]
    assert list(d) == [0.5 * threads, -0.25 * threads, -(threads - 1), threads - 1, 4.5]
    assert ull[0] == 3 * threads


def warp_reference(values: np.ndarray, block: int) -> np.ndarray:
    """Expected outputs for the lanes of full warps (blocks of ``block`` threads)."""
    out = np.zeros((len(values), 8), np.int64)
    for t, v in enumerate(values):
        base = t - t % block + (t % block) // 32 * 32
        warp = values[base:base + 32]
        lane = t - base
        if len(warp) < 32:
            continue
        out[t, 0] = warp[3]
        out[t, 1] = warp[lane - 2] if lane >= 2 else v
        out[t, 2] = warp[lane + 5] if lane + 5 < 32 else v
        out[t, 3] = warp[lane ^ 6]
        out[t, 4] = sum(1 << k for k, w in enumerate(warp) if w % 3 == 0)
        out[t, 5] = int(any(w == 7 for w in warp)) + 2 * int(all(w >= 0 for w in warp))
        out[t, 6] = warp[lane + 1] if lane % 8 + 1 < 8 else v
        out[t, 7] = 2 * warp[lane ^ 1] + 1
    return out.astype(np.int32)


def test_warp_intrinsics(mod):
    n = 96
    values = (np.arange(n) * 5 % 23).astype(np.int32)
    out = np.zeros(8 * n, np.int32)
    mod["warps"].launch(2, 48, [values.ctypes.data, out.ctypes.data, n])   # 48: a half-full second warp
    got = out.reshape(n, 8).copy()
    expected = warp_reference(values, 48)
    full = [t for t in range(n) if t % 48 < 32]          # lanes of full warps: exact CUDA semantics
    assert np.array_equal(got[full], expected[full])


def test_block_votes(mod):
    values = np.array([[1, 2, 3, 4] * 8, [0, 7, 1, 1] * 8], np.int32).ravel()
    out = np.zeros(6, np.int32)
    mod["block_votes"].launch(2, 32, [values.ctypes.data, out.ctypes.data])
    assert list(out) == [32, 1, 0, 24, 0, 1]


def test_exited_threads_leave_barriers(mod):
    out = np.full(64, -1, np.int32)
    mod["early_exit"].launch(1, 64, [out.ctypes.data, 40])
    assert list(out[:40]) == list(range(39, -1, -1)) and (out[40:] == -1).all()


def test_namespace_scope_dynamic_shared(mod):
    data = np.arange(50, dtype=np.int32)
    mod["dyn_shared_reverse"].launch(1, 50, [data.ctypes.data, 50], shared=50 * 4)
    assert list(data) == list(range(49, -1, -1))


def test_barrier_divergence_is_reported_not_hung(mod):
    out = np.zeros(32, np.int32)
    with pytest.raises(LaunchError, match="deadlock"):
        mod["divergent_barrier"].launch(1, 32, [out.ctypes.data])


def test_trap_fails_the_launch(mod):
    out = np.zeros(8, np.int32)
    with pytest.raises(LaunchError, match="__trap"):
        mod["traps"].launch(1, 8, [out.ctypes.data])


def test_math_vectors_and_struct_arguments(mod):
    f, i, d = np.zeros(8, np.float32), np.zeros(8, np.int32), np.zeros(1, np.float64)
    v4 = np.array([1.5, -2.0, 0.25, 3.0], np.float32)
    pair = np.array([(3, 0.5)], dtype=[("a", "<i4"), ("b", "<f4")])
    mod["math_and_vectors"].launch(1, 1, [f.ctypes.data, i.ctypes.data, v4.ctypes.data, pair.tobytes(),
                                          d.ctypes.data])
    assert list(f[:7]) == [0.5, 2.0, 1.0, 1.25, 3.5, 4.5, 1.5]
    assert f[7] == np.float32(np.pi)
    assert list(i) == [8, 31, 4, -(1 << 31), 2, 2, 16 + 16 + 12 + 16, 1 + 10 + 3200]
    assert d[0] == 1.75


def test_bad_launch_configurations(mod):
    out = np.zeros(4, np.int32)
    with pytest.raises(LaunchError, match="invalid configuration"):
        mod["traps"].launch(1, 2048, [out.ctypes.data])
    with pytest.raises(LaunchError, match="arguments"):
        mod["traps"].launch(1, 1, [])


@pytest.mark.parametrize("snippet,construct,line,col", [
    ("__global__ void k(int *p)\n{\n    asm(\"nop\");\n}\n", "inline assembly", 3, 5),
    ("#include <cuda_fp16.h>\n__global__ void k() {}\n", "half precision", 1, 11),
    ("__global__ void c() {}\n__global__ void k()\n{\n  c<<<1, 1>>>();\n}\n", "dynamic parallelism", 4, 4),
    ("__device__ float f(__half h) { return 0; }\n__global__ void k() {}\n", "__half", 1, 20),
    ("#include <cub/cub.cuh>\n__global__ void k() {}\n", "CUB", 1, 11),
])
def test_unsupported_constructs_are_named_with_location(snippet, construct, line, col):
    with pytest.raises(UnsupportedConstruct) as err:
        prepare(snippet, "bad.cu")
    assert construct in str(err.value)
    assert str(err.value).startswith(f"bad.cu:{line}:{col}: error:")


def test_host_code_is_blanked_and_lines_are_kept():
    text = "int helper(int x) { return x; }\n__global__ void k(int *p) { p[0] = 1; }\nint main() {\n k<<<1,1>>>(0);\n}\n"
    ks = prepare(text, "m.cu")
    assert ks.kernels == ["k"]
    assert ks.text.count("\n") == text.count("\n") and "main" not in ks.text and "helper" not in ks.text


def test_compile_errors_carry_the_original_location():
    with pytest.raises(CompileError) as err:
        cpu_module.load("__global__ void k(int *p)\n{\n    p[0] = undeclared_name;\n}\n", "broken.cu")
    assert "broken.cu:3:" in str(err.value) and "undeclared_name" in str(err.value)


def test_template_kernels_need_instantiations():
    with pytest.raises(CompileError, match="explicit instantiations"):
        cpu_module.load("template <class T> __global__ void k(T *p) { p[0] = T(1); }\n", "t.cu")
