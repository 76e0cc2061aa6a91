"""Access models of template kernel instantiations (s2s/analysis/mgpu/templates.py)."""

from __future__ import annotations

from s2s.analysis.mgpu.plan import plan_file
from s2s.analysis.mgpu.templates import instantiation_access, split_arguments
from s2s.frontend.extract import load

SOURCE = """\
template <typename T, int BLOCK>
__global__ void scale(T *x, T factor, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) x[i] = x[i] * factor;
}
struct Pair {
    float a, b;
    __host__ __device__ Pair operator*(Pair o) const { return {a * o.a, b * o.b}; }
};
int main()
{
    float *f; double *d; Pair *p;
    scale<float, 128><<<8, 128>>>(f, 2.0f, 1000);
    scale<double, 0x40><<<16, 64>>>(d, 0.5, 1000);
    scale<Pair, 32><<<1, 32>>>(p, Pair(), 1);
    return 0;
}
"""


def _model(tmp_path):
    path = tmp_path / "t.cu"
    path.write_bytes(SOURCE.encode())
    loaded = load(str(path))
    assert loaded.model is not None, loaded.diagnostics
    return loaded


def test_split_arguments_respects_brackets():
    assert split_arguments("float, 256") == ["float", "256"]
    assert split_arguments("Pair<int, 2>, (4, 5)") == ["Pair<int, 2>", "(4, 5)"]


def test_literal_and_arithmetic_arguments_give_a_partitionable_model(tmp_path):
    model = _model(tmp_path).model
    kernel, body = model.kernel("scale"), model.kernel_body("scale")
    generic = instantiation_access(kernel, body, "T, BLOCK", {})
    assert generic is None                             # not arguments it can put in
    for arguments, size in (("float, 128", 4), ("double, 0x40", 8)):
        data = instantiation_access(kernel, body, arguments, {}).to_dict()
        assert data["partitionable"], data["reason"]
        assert data["kernel"] == f"scale<{arguments}>"
        assert data["arrays"]["x"]["elem_size"] == size
        block = 128 if size == 4 else 64
        assert f"i = {block}bx + tx" in data["arrays"]["x"]["write"].replace("*", "")


def test_plan_table_has_one_entry_per_instantiation(tmp_path):
    loaded = _model(tmp_path)
    plan = plan_file(loaded.model, loaded.source)
    assert not plan.refusals
    table = {k.name: k for k in plan.kernels}
    assert plan.instantiations == ("scale<float, 128>", "scale<double, 0x40>", "scale<Pair, 32>")
    assert table["scale<float, 128>"].access["partitionable"]
    assert table["scale<Pair, 32>"].access is None         # a struct argument: no model
    warned = [w.message for w in plan.warnings]
    assert warned == ["kernel 'scale<Pair, 32>' runs on one device (not partitioned): template "
                      "kernel: its template arguments are not integer literals or arithmetic "
                      "types, so its instantiation has no access model"]


DEDUCED = """\
#include <cstdio>
#include <cuda_runtime.h>

template <typename T>
__global__ void axpy(T *y, const T *x, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

static void on_doubles(double *y, const double *x, int n)
{
    axpy<<<(n + 127) / 128, 128>>>(y, x, 0.5, n);
}

int main()
{
    const int n = 1000;
    float hf[n], hx[n];
    double hd[n], hdx[n];
    for (int i = 0; i < n; i++) { hf[i] = 1.0f; hx[i] = (float)i; hd[i] = 2.0; hdx[i] = 4.0 * i; }
    float *f, *x;
    double *d, *dx;
    cudaMalloc(&f, sizeof hf); cudaMalloc(&x, sizeof hx);
    cudaMalloc(&d, sizeof hd); cudaMalloc(&dx, sizeof hdx);
    cudaMemcpy(f, hf, sizeof hf, cudaMemcpyHostToDevice);
    cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
    cudaMemcpy(d, hd, sizeof hd, cudaMemcpyHostToDevice);
    cudaMemcpy(dx, hdx, sizeof hdx, cudaMemcpyHostToDevice);
    axpy<<<(n + 255) / 256, 256>>>(f, x, 2.0f, n);
    on_doubles(d, dx, n);
    cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    printf("%g %g %g %g\\n", hf[0], hf[999], hd[1], hd[999]);
    return 0;
}
"""


def test_deduced_arguments_get_their_instantiation_and_are_split(tmp_path):
    """``axpy<<<...>>>(f, x, 2.0f, n)`` deduces T = float, the launch in on_doubles T = double:
    one table entry each (element sizes 4 and 8), the rewrite names them, both launches split."""
    import pytest
    from mgpu_support import NVCC, build, rewrite, run

    path = tmp_path / "axpy.cu"
    path.write_text(DEDUCED)
    loaded = load(str(path))
    assert [la.deduced_args for la in loaded.model.launches] == ["double", "float"]
    plan = plan_file(loaded.model, loaded.source)
    assert not plan.refusals and not plan.warnings
    table = {k.name: k.access for k in plan.kernels}
    assert table["axpy<float>"]["arrays"]["y"]["elem_size"] == 4
    assert table["axpy<double>"]["arrays"]["x"]["elem_size"] == 8
    if NVCC is None:
        pytest.skip("nvcc is not installed: the rewrite is not built")
    (tmp_path / "out").mkdir()
    out, _ = rewrite(path, tmp_path / "out")
    assert b"s2s_mgpu_launch(axpy<float>, " in out.read_bytes()
    exe = build(out, tmp_path / "axpy")
    stdout, stats = run(exe, 2, stats=tmp_path / "stats.json")
    assert stdout == "1 1999 4 2000\n"    # 2 * i + 1 and 0.5 * 4i + 2
    assert [(s["kernel"], s["partitioned"], s["boxes"]) for s in stats["launches"]] == \
        [("axpy<float>", True, 2), ("axpy<double>", True, 2)]


def test_verify_shim_runs_deduced_launches(tmp_path):
    """verify's host shim (the original program on one cpu device) names the deduced
    instantiations too."""
    from s2s.verify import cuda_host

    path = tmp_path / "axpy.cu"
    path.write_text(DEDUCED)
    text, instantiate, _own = cuda_host._host_unit(str(path), None, None)
    assert instantiate == ["axpy<double>", "axpy<float>"]
    assert b'launcher<decltype(axpy<float>)>::launch("axpy<float>", ' in text


IN_TEMPLATE = """\
#include <cstdio>
#include <cuda_runtime.h>

template <typename T>
__global__ void twice(T *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] + x[i];
}

template <typename T>
T run(int n)
{
    T host[1024], *x;
    for (int i = 0; i < n; i++) host[i] = (T)i;
    cudaMalloc(&x, n * sizeof(T));
    cudaMemcpy(x, host, n * sizeof(T), cudaMemcpyHostToDevice);
    twice<<<(n + 127) / 128, 128>>>(x, n);
    cudaMemcpy(host, x, n * sizeof(T), cudaMemcpyDeviceToHost);
    cudaFree(x);
    return host[n - 1];
}

int main()
{
    printf("%g %d\\n", (double)run<float>(1000), run<int>(1000));
    return 0;
}
"""


def test_launch_inside_a_function_template_runs_each_instantiation_split(tmp_path):
    """``twice<<<...>>>(x, n)`` in ``run<T>``: the file instantiates run<float> and run<int>, so
    the launch runs twice<float> and twice<int>, each with its model; the rewrite names
    ``twice<T>`` and both launches are split."""
    import pytest
    from mgpu_support import NVCC, build, rewrite, run

    path = tmp_path / "twice.cu"
    path.write_text(IN_TEMPLATE)
    loaded = load(str(path))
    (launch,) = loaded.model.launches
    assert (launch.deduced_args, launch.instances) == ("T", ("float", "int"))
    plan = plan_file(loaded.model, loaded.source)
    assert not plan.refusals and not plan.warnings
    assert plan.instantiations == ("twice<float>", "twice<int>")
    if NVCC is None:
        pytest.skip("nvcc is not installed: the rewrite is not built")
    (tmp_path / "out").mkdir()
    out, _ = rewrite(path, tmp_path / "out")
    assert b"s2s_mgpu_launch(twice<T>, (n + 127) / 128, 128)(x, n);" in out.read_bytes()
    exe = build(out, tmp_path / "twice")
    stdout, stats = run(exe, 2, stats=tmp_path / "stats.json")
    assert stdout == "1998 1998\n"
    assert sorted((s["kernel"], s["partitioned"], s["boxes"]) for s in stats["launches"]) == \
        [("twice<float>", True, 2), ("twice<int>", True, 2)]     # printf's arguments: any order


TILED = """\
template <int TILE>
__global__ void tiled_copy(float *out, const float *in, int width)
{
    int c = width * TILE * blockIdx.y + TILE * blockIdx.x;
    out[c + width * threadIdx.y + threadIdx.x] = in[c + width * threadIdx.y + threadIdx.x];
}
int main()
{
    float *out, *in;
    tiled_copy<16><<<dim3(4, 4), dim3(16, 16)>>>(out, in, 64);
    return 0;
}
"""


def test_instantiation_whose_sizes_decide_is_checked_at_each_launch(tmp_path):
    """cuda-samples' matrixMul: ``C[wB * BLOCK * by + BLOCK * bx + wB * ty + tx]`` is injective
    only when ``wB`` covers the grid's columns. A plain kernel of that form was split where the
    launch's sizes allow (the runtime checks each launch); its template instantiation ran on
    one device ("threads of different blocks write C[16]")."""
    path = tmp_path / "tiled.cu"
    path.write_bytes(TILED.encode())
    loaded = load(str(path))
    plan = plan_file(loaded.model, loaded.source)
    entry = {k.name: k for k in plan.kernels}["tiled_copy<16>"]
    assert entry.access["partitionable"] and entry.checked_at_launch
    assert [w.id for w in plan.warnings] == ["mgpu-run-time-check"]
