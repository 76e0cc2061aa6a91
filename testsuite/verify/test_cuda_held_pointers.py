"""Device pointers held in by-value kernel arguments, and cudaDeviceReset, on the cpu devices.

The CUDA programming guide's MatMul (OLCF hw12) passes ``Matrix`` structs holding
``float *elements`` by value: the model gives each such parameter the byte offsets of the
pointers it holds (from libclang's layout), verify's shim and s2s mgpu's kernel table hand them
to the runtime, which translates the device pointers per device (the original crashed before).
``cudaDeviceReset`` frees every allocation as a GPU does, so a use after it is reported."""

from __future__ import annotations

import json
import shutil

import pytest

from s2s.cli.main import main

LAYOUTS = """
struct Inner { char tag; double *values; };
struct Base { int *counts; };
struct Derived : Base { short k; Inner pair[2]; union { long bits; float *maybe; } u; int n; };
template <class T> struct Boxed { T *p; };
__global__ void plain(int n, float *p) {}
__global__ void derived(Derived d) {}
template <class T> __global__ void boxed(Boxed<T> b) {}
__global__ void specialised(int n, const Boxed<float> b) {}
"""

PROGRAM = r"""#include <cstdio>
#define TILE 16
typedef struct {
    int width;
    int height;
    float *elements;
} Matrix;

struct Pair { Matrix in; Matrix out; float scale; };

__device__ float at(const Matrix m, int row, int col) { return m.elements[row * m.width + col]; }

__global__ void transpose_scaled(Pair p)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < p.in.height && col < p.in.width)
        p.out.elements[col * p.out.width + row] = p.scale * at(p.in, row, col);
}

static Matrix device_matrix(int width, int height)
{
    Matrix m;
    m.width = width;
    m.height = height;
    cudaMalloc(&m.elements, width * height * sizeof(float));
    return m;
}

int main()
{
    const int w = 64, h = 32;
    static float host[w * h], back[w * h];
    for (int i = 0; i < w * h; ++i) host[i] = 0.25f * i;
    Pair p;
    p.in = device_matrix(w, h);
    p.out = device_matrix(h, w);
    p.scale = 2.0f;
    cudaMemcpy(p.in.elements, host, sizeof(host), cudaMemcpyHostToDevice);
    dim3 block(TILE, TILE), grid(w / TILE, h / TILE);
    transpose_scaled<<<grid, block>>>(p);
    cudaMemcpy(back, p.out.elements, sizeof(back), cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int i = 0; i < w * h; ++i) sum += back[i];
    printf("transposed %.2f corner %.2f\n", sum, back[h * (w - 1)]);
    cudaFree(p.in.elements);
    cudaFree(p.out.elements);
    return 0;
}
"""

RESET = r"""#include <cstdio>
__global__ void fill(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] = i; }
int main()
{
    float *d, h[32];
    cudaMalloc(&d, sizeof(h));
    fill<<<1, 32>>>(d, 32);
    cudaDeviceReset();
    cudaError_t rc = cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
    printf("copy after reset: %s\n", rc == cudaSuccess ? "ok" : "failed");
    return 0;
}
"""


def test_the_model_gives_the_offsets_of_the_pointers_a_struct_holds(load_source):
    model = load_source(LAYOUTS).model
    params = {k.name: k.params for k in model.kernels}
    assert [p.held_pointers for p in params["plain"]] == [(), ()]     # a pointer parameter itself
    # Base::counts at 0; pair[k].values at 16 + 16k + 8; the union's pointer left out
    assert params["derived"][0].held_pointers == (0, 24, 40)
    assert params["boxed"][0].held_pointers == ()                       # dependent layout
    assert params["specialised"][1].held_pointers == (0,)               # a specialization's


def test_mgpu_warns_that_a_partitionable_kernel_taking_such_a_struct_runs_whole(load_source):
    """``gather(View v, float *out)`` writes only through ``out`` (partitionable), but the
    runtime runs every launch whole: the warning says so at rewrite time, not only the run."""
    from s2s.analysis.mgpu.plan import plan_file

    loaded = load_source(PROGRAM.replace("__global__ void transpose_scaled(Pair p)", """\
struct View { int n; const float *values; };
__global__ void gather(View v, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < v.n) out[i] = 2.0f * v.values[i];
}
__global__ void transpose_scaled(Pair p)""").replace("    cudaFree(p.in.elements);", """\
    View v;
    v.n = w * h;
    v.values = p.in.elements;
    gather<<<w * h / 256, 256>>>(v, p.out.elements);
    cudaFree(p.in.elements);"""))
    plan = plan_file(loaded.model, loaded.source)
    [gather] = [k for k in plan.kernels if k.name == "gather"]
    assert gather.access["partitionable"] and gather.access["held_pointers"] == {"0": [8]}
    [warning] = [w for w in plan.warnings if "'gather'" in w.message]
    assert warning.id == "mgpu-one-device"
    assert "by-value argument(s) hold device pointers" in warning.message


def test_mgpu_rewrites_and_verifies_a_kernel_taking_structs_of_device_pointers(
        capsys, tmp_path, monkeypatch):
    if shutil.which("g++") is None or shutil.which("nvcc") is None:
        pytest.skip("verify builds the original with g++ and the mgpu rewrite with nvcc")
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    program = tmp_path / "transpose_pair.cu"
    program.write_text(PROGRAM)
    code = main(["verify", "--format", "json", "--passes", "mgpu", "--devices", "2",
                 str(program)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    [verdict] = json.loads(out)["programs"]
    assert verdict["ok"], verdict
    assert verdict["original"]["devices"]["launches"] == 1
    assert verdict["rewritten"]["devices"]["split_launches"] == 0      # run whole, coherent


def test_the_shim_program_runs_with_its_struct_of_device_pointers(tmp_path, shim_ready):
    from s2s.verify.cuda_host import build, run

    path = tmp_path / "transpose_pair.cu"
    path.write_text(PROGRAM)
    result = run(build(str(path), tmp_path / "build"), devices=2)
    assert result.returncode == 0, result.stderr
    # sum of 2 * 0.25 * i over 2048 elements; out[h * (w - 1)] = 2 * in[w - 1] = 31.5
    assert result.stdout == "transposed 1048064.00 corner 31.50\n"


def test_a_buffer_used_after_cuda_device_reset_is_reported(tmp_path, shim_ready):
    from s2s.verify.cuda_host import build, run

    path = tmp_path / "after_reset.cu"
    path.write_text(RESET)
    result = run(build(str(path), tmp_path / "build"), devices=1)
    assert result.stdout == "copy after reset: failed\n"
    assert "use after free" in result.stderr
