"""CUDA extraction: kernels and device functions (params, builtins, shared arrays, classified
calls), launch sites (config parts, dim3, macros, templates) and runtime API calls.

Parses are the slow part (about a second each with the real toolkit headers), so each source
below is parsed once per toolchain and shared by the tests that look at it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import sample_dirs, sample_meta

from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.parse import ParseOptions, parse_source
from s2s.frontend.core.toolchain import SHIM_DIR, Toolchain
from s2s.frontend.cuda.constructs import (
    api_category,
    device_call_category,
    extract_api_calls,
    extract_kernels,
    extract_launches,
)

KERNELS = r"""
#include <cuda_runtime.h>
#define TX threadIdx.x
#define FULL_MASK 0xffffffffu

__device__ float square(float v) { return v * v; }
__host__ __device__ float twice(float v) { return 2.0f * v; }
float host_only(float v) { return v; }
__device__ float declared_only(float v);

__global__ void params(const float *__restrict__ in, float *__restrict__ out,
                       const float *plain, float **pp, int n, float a[]) { }

__global__ void forward(int *p);
__global__ void forward(int *p) { p[0] = 1; }

__global__ void builtins(unsigned *out) {
    out[0] = threadIdx.x + threadIdx.y + threadIdx.z;
    out[1] = blockIdx.x * blockDim.y + gridDim.z;
    out[2] = warpSize + TX;
}

__global__ void shared_mem(float *out) {
    extern __shared__ float dyn[];
    __shared__ float tile[16][16];
    __shared__ int count;
    tile[threadIdx.y][threadIdx.x] = dyn[threadIdx.x];
    out[0] = tile[0][0] + count;
}

__global__ void calls(float *x, int *c, unsigned mask) {
    __syncthreads();
    __syncwarp();
    int k = __syncthreads_count(x[0] > 0);
    atomicAdd(c, 1);
    atomicCAS(c, 0, 1);
    atomicMax_block(c, k);
    float s = __shfl_down_sync(FULL_MASK, x[0], 1);
    unsigned b = __ballot_sync(mask, s > 0);
    __threadfence();
    x[0] = expf(s) + sqrtf(x[1]) + __expf(x[2]) + __fdividef(x[3], 2.0f) + fmaxf(x[4], 1.0f);
    x[1] = square(x[0]) + twice(x[1]) + (float)b;
}

template <typename T, int BS>
__global__ void tmpl(T *x) {
    __shared__ T buf[BS];
    buf[threadIdx.x] = x[0];
    x[0] = buf[BS - 1];
}
"""

LAUNCHES = r"""
#include <cuda_runtime.h>
#define LAUNCH(k, n, ...) k<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)
#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return; } while (0)
#define BLOCK 128

__global__ void k1(float *x, int n) { }
template <typename T, int B> __global__ void k2(T *x, int n) { }

template <typename T>
void run_tmpl(T *x, int n) {
    k2<T, 64><<<n / 64, 64>>>(x, n);
}

void host(float *x, int n, cudaStream_t s) {
    k1<<<n / 256, 256>>>(x, n);
    k1<<<dim3(n / 16, 1), dim3(16, 16), 64 * sizeof(float)>>>(x, n);
    k1<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, s>>>(x + 1, n - 1);
    dim3 grid(4), block(BLOCK);
    k1<<<grid, block>>>(x, n);
    LAUNCH(k1, n, x, n);
    k2<float, 256><<<1, 256>>>(x, n);
    run_tmpl(x, n);
}

static int cudaCheck(int v) { return v; }

void api(float *h, int n) {
    float *d, ms;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaMemset(d, 0, n * sizeof(float));
    cudaStreamCreate(&s);
    cudaEventCreate(&e0);
    cudaEventRecord(e0, s);
    cudaEventElapsedTime(&ms, e0, e1);
    cudaDeviceSynchronize();
    cudaStreamSynchronize(s);
    cudaSetDevice(cudaCheck(0));
    cudaGetLastError();
    cudaLaunchKernel((const void *)k1, dim3(1), dim3(1), nullptr, 0, s);
    cudaFuncSetCacheConfig((const void *)k1, cudaFuncCachePreferL1);
    cudaFree(d);
}
"""

SHIM = Toolchain(cuda_path=None, omp_include=None)
_LOADED: dict = {}


@pytest.fixture
def loaded(load_source):
    """``loaded(text, shim=False)``: the Loaded result, parsed once per source and toolchain."""

    def _loaded(text: str, shim: bool = False):
        key = (text, shim)
        if key not in _LOADED:
            options = {"toolchain": SHIM} if shim else {}
            result = load_source(text, "input.cu", **options)
            assert result.ok, [d.headline() for d in result.diagnostics if d.is_error]
            _LOADED[key] = result
        return _LOADED[key]

    return _loaded


@pytest.fixture
def kernels(loaded):
    model = loaded(KERNELS).model
    return {k.name: k for k in model.kernels + model.device_functions}


@pytest.fixture
def launch_model(loaded):
    return loaded(LAUNCHES)


def text(span, source: str) -> str:
    return source.encode()[span.start : span.end].decode()


# --- kernels and device functions ------------------------------------------------------------


def test_kernel_and_device_function_lists(loaded):
    model = loaded(KERNELS).model
    assert [k.name for k in model.kernels] == [
        "params", "forward", "builtins", "shared_mem", "calls", "tmpl"]
    assert all(k.is_global for k in model.kernels)
    assert [k.name for k in model.device_functions] == ["square", "twice", "declared_only"]
    assert not any(k.is_global for k in model.device_functions)
    assert {k.side for k in model.kernels + model.device_functions} == {"host"}


def test_definition_wins_over_declaration(kernels):
    forward = kernels["forward"]
    assert text(forward.span, KERNELS) == "__global__ void forward(int *p) { p[0] = 1; }"
    assert text(forward.body_span, KERNELS) == "{ p[0] = 1; }"
    declared = kernels["declared_only"]
    assert declared.body_span is None
    assert text(declared.span, KERNELS) == "__device__ float declared_only(float v)"


def test_params_and_qualifiers(kernels):
    params = {p.name: p for p in kernels["params"].params}
    assert list(params) == ["in", "out", "plain", "pp", "n", "a"]
    facts = {n: (p.type, p.is_pointer, p.pointee_const, p.restrict) for n, p in params.items()}
    assert facts == {
        "in": ("const float *__restrict", True, True, True),
        "out": ("float *__restrict", True, False, True),
        "plain": ("const float *", True, True, False),
        "pp": ("float **", True, False, False),
        "n": ("int", False, False, False),
        "a": ("float[]", True, False, False),
    }
    assert text(params["in"].span, KERNELS) == "const float *__restrict__ in"


def test_builtins_with_components(kernels):
    uses = kernels["builtins"].builtins
    assert [(b.var, b.component) for b in uses] == [
        ("threadIdx", "x"), ("threadIdx", "y"), ("threadIdx", "z"),
        ("blockIdx", "x"), ("blockDim", "y"), ("gridDim", "z"),
        ("warpSize", ""), ("threadIdx", "x")]
    assert [text(b.span, KERNELS) for b in uses[:7]] == [
        "threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockDim.y", "gridDim.z",
        "warpSize"]
    through_macro = uses[-1].span
    assert through_macro.macro == "TX" and text(through_macro, KERNELS) == "TX"
    assert all(b.span.macro is None for b in uses[:7])


def test_shared_arrays(kernels):
    arrays = kernels["shared_mem"].shared_arrays
    assert [(s.name, s.element_type, s.dims, s.extern) for s in arrays] == [
        ("dyn", "float", (), True), ("tile", "float", ("16", "16"), False),
        ("count", "int", (), False)]
    assert text(arrays[1].span, KERNELS) == "__shared__ float tile[16][16]"


def test_call_categories(kernels):
    calls = kernels["calls"].calls
    assert [(c.name, c.category) for c in calls] == [
        ("__syncthreads", "syncthreads"), ("__syncwarp", "syncthreads"),
        ("__syncthreads_count", "syncthreads"), ("atomicAdd", "atomic"),
        ("atomicCAS", "atomic"), ("atomicMax_block", "atomic"),
        ("__shfl_down_sync", "warp"), ("__ballot_sync", "warp"), ("__threadfence", "fence"),
        ("expf", "math"), ("sqrtf", "math"), ("__expf", "math"), ("__fdividef", "math"),
        ("fmaxf", "math"), ("square", "device_function"), ("twice", "device_function")]
    shfl = calls[6]
    assert [a.text for a in shfl.args] == ["FULL_MASK", "x[0]", "1"]
    assert shfl.args[0].span.macro == "FULL_MASK"
    assert text(shfl.span, KERNELS) == "__shfl_down_sync(FULL_MASK, x[0], 1)"
    assert [a.text for a in calls[2].args] == ["x[0] > 0"]
    kernel = kernels["calls"]
    assert len(kernel.syncthreads) == 3 and len(kernel.atomics) == 3
    assert len(kernel.warp_intrinsics) == 2
    assert kernel.device_functions_called == ("square", "twice")


def test_template_kernel(kernels):
    tmpl = kernels["tmpl"]
    assert tmpl.template_params == ("T", "BS") and tmpl.is_template
    assert tmpl.span.template == "tmpl" and not tmpl.span.editable
    [buf] = tmpl.shared_arrays
    assert (buf.name, buf.element_type, buf.dims, buf.extern) == ("buf", "T", ("BS",), False)
    assert [p.type for p in tmpl.params] == ["T *"]


def test_category_tables():
    assert device_call_category("atomicXor_system") == "atomic"
    assert device_call_category("__shfl_xor_sync") == "warp"
    assert device_call_category("__match_any_sync") == "warp"
    assert device_call_category("__reduce_add_sync") == "warp"
    assert device_call_category("__activemask") == "warp"
    assert device_call_category("__threadfence_block") == "fence"
    assert device_call_category("__fmaf_rn") == "math"
    assert device_call_category("__float2int_rz") == "math"
    assert device_call_category("rsqrtf") == "math"
    assert device_call_category("helper", user_device=True) == "device_function"
    assert device_call_category("printf") == "other"
    assert api_category("cudaStreamCreateWithFlags") == "stream"
    assert api_category("cudaEventCreateWithFlags") == "event"
    assert api_category("cudaEventSynchronize") == "sync"
    assert api_category("cudaDeviceSetLimit") == "device"
    assert api_category("cudaMemcpy2DAsync") == "memcpy"
    assert api_category("cudaMemPrefetchAsync") == "memcpy"
    assert api_category("cudaFuncGetAttributes") == "other"


# --- launches --------------------------------------------------------------------------------


def _launch_rows(loaded_result):
    out = []
    for launch in loaded_result.model.launches:
        parts = [launch.grid, launch.block, launch.shared_bytes, launch.stream]
        out.append((launch.kernel, launch.template_args,
                    tuple(None if p is None else p.text for p in parts),
                    tuple(a.text for a in launch.args), launch.function))
    return out


def test_launch_parts(launch_model):
    assert _launch_rows(launch_model) == [
        ("k2", "T, 64", ("n / 64", "64", None, None), ("x", "n"), "run_tmpl"),
        ("k1", None, ("n / 256", "256", None, None), ("x", "n"), "host"),
        ("k1", None, ("dim3(n / 16, 1)", "dim3(16, 16)", "64 * sizeof(float)", None),
         ("x", "n"), "host"),
        ("k1", None, ("(n + BLOCK - 1) / BLOCK", "BLOCK", "0", "s"), ("x + 1", "n - 1"), "host"),
        ("k1", None, ("grid", "block", None, None), ("x", "n"), "host"),
        ("k1", None, ("((n) + 255) / 256", "256", None, None), ("x", "n"), "host"),
        ("k2", "float, 256", ("1", "256", None, None), ("x", "n"), "host"),
    ]


def test_launch_spans(launch_model):
    launches = launch_model.model.launches
    plain = launches[1]
    assert text(plain.span, LAUNCHES) == "k1<<<n / 256, 256>>>(x, n)"
    assert text(plain.config_span, LAUNCHES) == "<<<n / 256, 256>>>"
    assert plain.span.editable and plain.config_span.editable
    assert text(plain.grid.span, LAUNCHES) == "n / 256"
    assert text(launches[2].config_span, LAUNCHES) == (
        "<<<dim3(n / 16, 1), dim3(16, 16), 64 * sizeof(float)>>>")
    four = launches[3]
    assert text(four.config_span, LAUNCHES) == "<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, s>>>"
    assert four.block.span.macro == "BLOCK" and four.grid.span.macro is None
    assert text(four.stream.span, LAUNCHES) == "s"
    instantiated = launches[6]
    assert text(instantiated.span, LAUNCHES) == "k2<float, 256><<<1, 256>>>(x, n)"


def test_launch_in_template_function(launch_model):
    launch = launch_model.model.launches[0]
    assert launch.span.template == "run_tmpl" and launch.config_span.template == "run_tmpl"
    assert not launch.span.editable
    assert text(launch.config_span, LAUNCHES) == "<<<n / 64, 64>>>"
    assert launch.grid.span.template == "run_tmpl"


def test_launch_through_macro(launch_model):
    launch = launch_model.model.launches[5]
    assert launch.span.macro == "LAUNCH" and launch.config_span.macro == "LAUNCH"
    assert text(launch.span, LAUNCHES) == "LAUNCH(k1, n, x, n)"
    assert all(e.span == launch.span for e in (launch.grid, launch.block, *launch.args))
    # LAUNCH's body is only the launch: the call is the launch (fuse replaces the call's text)
    assert launch.forwarded
    assert (launch.grid.text, launch.block.text) == ("((n) + 255) / 256", "256")
    assert [a.text for a in launch.args] == ["x", "n"]
    assert not [d for d in launch_model.diagnostics if d.id == "launch-in-macro"]


@pytest.mark.parametrize("body, forwarded", [
    ("k<<<g, b>>>(__VA_ARGS__)", True),
    ("k<<<g, b, 0, 0>>>(__VA_ARGS__)", True),
    ("do { k<<<g, b>>>(__VA_ARGS__); check(); } while (0)", False),
    ("k<<<g, b>>>(__VA_ARGS__); check()", False),
    ("(k<<<g, b>>>(__VA_ARGS__), check())", False),
    ("k<<<g, b>>>(__VA_ARGS__) , check()", False),
])
def test_forwarding_macro_is_only_a_launch(load_source, body, forwarded):
    source = (f"#define RUN(k, g, b, ...) {body}\n"
              "static int check() { return 0; }\n"
              "__global__ void k(float *x, int n) { }\n"
              "void f(float *x, int n) { RUN(k, n / 32, 32, x, n); }\n")
    [launch] = load_source(source).model.launches
    assert launch.forwarded is forwarded
    warned = [d.message for d in load_source(source).diagnostics if d.id == "launch-in-macro"]
    assert len(warned) == (0 if forwarded else 1)
    assert all("more than the launch" in m for m in warned)


def test_unrecoverable_macro_launch_keeps_macro_span(load_source):
    source = '#include "defs.cuh"\n__global__ void k(int n) { }\nvoid f() { GO(k, 3); }\n'
    header = "#define GO(k, n) k<<<(n) / 32 + 1, 32>>>(n)\n"
    result = _load_with_header(load_source, source, header)
    [launch] = result.model.launches
    assert launch.kernel == "k" and launch.span.macro == "GO"
    assert (launch.grid.text, launch.block.text) == ("", "")
    assert launch.grid.span == launch.span
    assert launch.args[0].text == "3"  # written in the call: exact
    assert [d.id for d in result.diagnostics if d.id == "launch-in-macro"] == ["launch-in-macro"]


def _load_with_header(load_source, source: str, header: str):
    """Macros defined in a user header: their bodies cannot be expanded from the main file."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "defs.cuh").write_text(header)
        return load_source(source, "input.cu", user_flags=(f"-I{tmp}",))


def test_launch_written_inside_macro_argument(load_source):
    source = ("#include <cuda_runtime.h>\n#define CHECK(...) (__VA_ARGS__)\n"
              "__global__ void k(int *p, int n) { }\n"
              "void f(int *p, int n) { CHECK(k<<<n, 64, 0>>>(p, n)); }\n")
    result = load_source(source)
    [launch] = result.model.launches
    assert launch.span.macro == "CHECK"
    assert (launch.grid.text, launch.block.text, launch.shared_bytes.text) == ("n", "64", "0")
    assert launch.stream is None
    assert [a.text for a in launch.args] == ["p", "n"]


# --- runtime API calls -----------------------------------------------------------------------


def test_api_calls_with_categories(launch_model):
    calls = [c for c in launch_model.model.api_calls if c.function == "api"]
    assert [(c.name, c.category) for c in calls] == [
        ("cudaMalloc", "alloc"), ("cudaMemcpy", "memcpy"), ("cudaMemcpyAsync", "memcpy"),
        ("cudaMemset", "memset"), ("cudaStreamCreate", "stream"), ("cudaEventCreate", "event"),
        ("cudaEventRecord", "event"), ("cudaEventElapsedTime", "event"),
        ("cudaDeviceSynchronize", "sync"), ("cudaStreamSynchronize", "sync"),
        ("cudaSetDevice", "device"), ("cudaGetLastError", "error"),
        ("cudaLaunchKernel", "launch"), ("cudaFuncSetCacheConfig", "other"),
        ("cudaFree", "free")]
    by_name = {c.name: c for c in calls}
    assert [a.text for a in by_name["cudaMemcpyAsync"].args] == [
        "h", "d", "n * sizeof(float)", "cudaMemcpyDeviceToHost", "s"]
    assert [a.text for a in by_name["cudaSetDevice"].args] == ["cudaCheck(0)"]
    assert text(by_name["cudaFree"].span, LAUNCHES) == "cudaFree(d)"
    assert by_name["cudaFree"].span.editable
    assert not any(c.function == "host" for c in launch_model.model.api_calls)


def test_api_call_in_macro_argument(launch_model):
    call = launch_model.model.api_calls[0]
    assert (call.name, call.category, call.function) == ("cudaMalloc", "alloc", "api")
    assert [a.text for a in call.args] == ["&d", "n * sizeof(float)"]
    assert call.span.macro == "CUDA_CHECK"
    assert text(call.span, LAUNCHES) == "CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)))"
    assert all(a.span == call.span for a in call.args)


def test_default_arguments_are_not_arguments(load_source):
    source = ("#include <cuda_runtime.h>\n"
              "void f(float *d, cudaEvent_t e) { cudaMemcpyAsync(d, d, 4, "
              "cudaMemcpyDeviceToDevice); cudaEventRecord(e); }\n")
    calls = load_source(source).model.api_calls
    assert [len(c.args) for c in calls] == [4, 1]


def test_calls_in_macro_bodies_and_nested_macros(load_source):
    source = ("#include <cuda_runtime.h>\n#include <cstdio>\n"
              "#define BYTES (16 * sizeof(float))\n"
              "#define CHECK(x) do { cudaError_t e = (x); if (e) "
              'printf("%s: %s", #x, cudaGetErrorString(e)); } while (0)\n'
              "#define SYNC() CHECK(cudaDeviceSynchronize())\n"
              "void f(float *d) { CHECK(cudaMemset(d, 0, BYTES)); SYNC(); }\n")
    calls = load_source(source).model.api_calls
    assert [(c.name, [a.text for a in c.args], c.span.macro) for c in calls] == [
        ("cudaMemset", ["d", "0", "BYTES"], "CHECK"),
        ("cudaGetErrorString", ["e"], "CHECK"),
        ("cudaDeviceSynchronize", [], "SYNC"),
        ("cudaGetErrorString", ["e"], "SYNC"),
    ]


# --- toolchains, samples, speed --------------------------------------------------------------


def test_shim_toolchain_gives_the_same_model(loaded):
    if not (SHIM_DIR / "cuda_runtime.h").is_file():
        pytest.skip(f"no CUDA shim at {SHIM_DIR}/cuda_runtime.h yet")
    for source in (KERNELS, LAUNCHES):
        real, shim = loaded(source).model, loaded(source, shim=True).model
        assert shim.kernels == real.kernels
        assert shim.device_functions == real.device_functions
        assert shim.launches == real.launches
        assert shim.api_calls == real.api_calls


def test_device_side_parse_finds_the_same_kernels(loaded, load_source):
    host = loaded(KERNELS).model
    device = load_source(KERNELS, "input.cu", cuda_side="device").model
    assert device.sides == ("device",)
    strip = lambda ks: [(k.name, k.params, k.builtins, k.shared_arrays, k.calls) for k in ks]  # noqa: E731
    assert strip(device.kernels) == strip(host.kernels)
    assert {k.side for k in device.kernels} == {"device"}


CUDA_SAMPLES = sample_dirs("cuda")


@pytest.mark.parametrize("directory", CUDA_SAMPLES, ids=[d.name for d in CUDA_SAMPLES])
def test_samples_launch_known_kernels(directory):
    from s2s.frontend.extract import load

    meta = sample_meta(directory)
    results = {name: load(str(directory / name)) for name in meta.get("sources", [])}
    assert all(r.ok for r in results.values()), {n: r.diagnostics for n, r in results.items()}
    known = {k.name for r in results.values() for k in r.model.kernels}
    for name, result in results.items():
        if b"<<<" not in result.source:
            continue
        launches = result.model.launches
        assert any(launch.kernel in known for launch in launches), (name, launches)
        for launch in launches:
            assert launch.kernel and launch.function
            if launch.span.macro is None:
                assert text(launch.config_span, result.source.decode()).startswith("<<<")
                assert launch.grid.text and launch.block.text


def test_samples_missing_is_not_an_error():
    if not CUDA_SAMPLES:
        pytest.skip("no CUDA samples under samples/cuda yet")
    assert all(d.is_dir() for d in CUDA_SAMPLES)


def _big_source(copies: int) -> str:
    unit = r"""
__device__ float dev{i}(float v) {{ return sqrtf(v) + 1.0f; }}
__global__ void kern{i}(const float *__restrict__ x, float *y, int n) {{
    __shared__ float tile[TILE];
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    tile[t] = g < n ? x[g] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {{
        if (t < s) tile[t] += tile[t + s];
        __syncthreads();
    }}
    if (t == 0) atomicAdd(&y[0], dev{i}(tile[0]));
}}
void host{i}(const float *h, float *out, int n) {{
    float *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, sizeof(float)));
    CHECK(cudaMemcpy(dx, h, n * sizeof(float), cudaMemcpyHostToDevice));
    kern{i}<<<(n + TILE - 1) / TILE, TILE>>>(dx, dy, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dy, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
}}
"""
    head = ("#include <cuda_runtime.h>\n#include <cstdio>\n#define TILE 256\n"
            "#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) "
            'fprintf(stderr, "%s\\n", cudaGetErrorString(e)); } while (0)\n')
    return head + "".join(unit.format(i=i) for i in range(copies))


def test_extraction_of_a_thousand_lines():
    """Every repeated unit is found; the speed of this is measured by scripts/bench_frontend.py."""
    source = _big_source(42)
    assert source.count("\n") >= 1000
    parsed = parse_source(source, "big.cu", ParseOptions())
    assert not parsed.has_errors
    ctx = ExtractContext("big.cu", parsed.source, parsed.primary)
    kernels, device_functions = extract_kernels(ctx)
    launches = extract_launches(ctx)
    api_calls = extract_api_calls(ctx)
    assert (len(kernels), len(device_functions), len(launches)) == (42, 42, 42)
    assert [k.name for k in kernels] == [f"kern{i}" for i in range(42)]
    assert len(api_calls) == 42 * 7 * 2  # each CHECK also calls cudaGetErrorString


def test_model_does_not_keep_the_translation_unit_alive():
    """A process that handles many files (the nvcc wrapper, a test run) must not accumulate
    translation units: the model is plain data, the per-unit extractor indexes die with it."""
    import gc
    import weakref

    from s2s.frontend.extract import extract

    parsed = parse_source(_big_source(2), "small.cu", ParseOptions())
    unit = weakref.ref(parsed.primary)
    model, _ = extract(parsed)
    del parsed
    gc.collect()
    assert unit() is None
    assert [k.name for k in model.kernels] == ["kern0", "kern1"]


CHAIN = r"""
template <typename T> __global__ void axpy_kernel(T a, const T *x, T *y, int n) { }
template <typename T> __global__ void square_kernel(T *y, int n) { }
template <typename T> void axpy(T a, const T *x, T *y, int n) {
    axpy_kernel<T><<<(n + 63) / 64, 64>>>(a, x, y, n);
}
template <typename T> void square(T *y, int n) { square_kernel<<<(n + 63) / 64, 64>>>(y, n); }
template <typename T> void twice(T *x, T *y, int n) { square(y, n); square(y, n); }
template <typename T> double run(T *x, T *y, int n) {
    axpy<T>((T)0.5, x, y, n);
    twice(x, y, n);
    return 0.0;
}
void f(float *xf, float *yf, double *xd, double *yd, int n) {
    run<float>(xf, yf, n);
    run(xd, yd, n);
}
"""


def test_launch_in_template_follows_the_call_chain_to_concrete_calls(load_source):
    """axpy<T> and square<T> are instantiated only by other templates (run<T>, twice<T>),
    which main-like code calls with float (written out) and double (deduced): the chain gives
    each launch its kernel instantiations (issue 29 item 4)."""
    launches = {one.kernel: one for one in load_source(CHAIN).model.launches}
    assert launches["axpy_kernel"].instances == ("float", "double")
    assert launches["square_kernel"].deduced_args == "T"
    assert launches["square_kernel"].instances == ("float", "double")


def test_an_if_whose_branch_is_a_declaration_keeps_its_branch(load_source):
    """``if (c) int unused;`` (a fuzz case: a preprocessor nest left a declaration as the
    branch) is an if with a declaration for its branch; ``if (int k = f())`` keeps its
    condition variable out of the branches. Both used to end in an IndexError."""
    from s2s.model import kernel_ir as ir

    loaded = load_source(
        "__device__ int f(int i) { return i; }\n"
        "__global__ void k(int *p) {\n"
        "    if (threadIdx.x == 0)\n        int unused;\n"
        "    if (int v = f(threadIdx.x)) p[0] = v; else p[1] = 0;\n"
        "}\n")
    body = next(b for b in loaded.model.kernel_bodies if b.name == "k")
    first, second = [s for s in body.body.stmts if isinstance(s, ir.If)]
    assert isinstance(first.then, ir.Decl) and first.other is None
    assert isinstance(second.then, ir.ExprStmt) and isinstance(second.other, ir.ExprStmt)
