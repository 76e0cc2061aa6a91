"""``s2s fuse`` on the shapes public CUDA programs write (issue 29, cuda29g): launch wrappers
that compute their grid in locals (Rodinia cfd's ``dim3 Dg(nelr / BLOCK_SIZE_1), Db(...)``,
cuda-samples' ``iDivUp``), error checks and pure helpers defined in an included file (srad's
``device.c``, ``helper_cuda.h``; with device code or without), device pointers from an allocation
helper that are rotated, and a guard over a constant block stride that only large sizes
show to span blocks (srad's ``srad`` + ``srad2``: not fusible)."""

from __future__ import annotations

import os

from s2s.driver import RunOptions, process_file
from s2s.frontend.core.parse import clang_args
from s2s.frontend.core.toolchain import Toolchain
from s2s.transform.fuse import run_fuse

CHECKS = """\
#include <cstdio>
#include <cstdlib>
// a launch in a macro makes this a header with device code, modelled with its includer
#define LAUNCH_CHECKED(k, g, b, ...) do { k<<<g, b>>>(__VA_ARGS__); checkCUDAError(#k); } while (0)
static void checkCUDAError(const char *msg)
{
    cudaError_t err = cudaGetLastError();
    if (cudaSuccess != err) {
        printf("Cuda error: %s: %s.\\n", msg, cudaGetErrorString(err));
        fflush(NULL);
        exit(EXIT_FAILURE);
    }
}
"""
ROUNDING = "inline int iDivUp(int a, int b) { return (a % b != 0) ? (a / b + 1) : (a / b); }\n"
KERNELS = """\
#include "device.c"
#include "rounding.h"
#define BLOCK 64
__global__ void fill_k(int n, float *v, float x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = x * i;
}
__global__ void scale_k(int n, float *w, const float *v, float s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] = s * v[i];
}
"""
WRAPPERS = """\
static void fill(int n, float *v, float x)
{
    dim3 grid(iDivUp(n, BLOCK)), block(BLOCK);
    int len = n;
    fill_k<<<grid, block>>>(len, v, x);
    checkCUDAError("fill");
}
static void scale(int n, float *w, const float *v, float s)
{
    dim3 Dg(iDivUp(n, BLOCK)), Db(BLOCK);
    scale_k<<<Dg, Db>>>(n, w, v, s);
    checkCUDAError("scale");
}
int main()
{
    int n = 1000;
    float *a, *b;
    cudaMalloc((void **)&a, n * sizeof(float));
    cudaMalloc((void **)&b, n * sizeof(float));
    fill(n, a, 0.5f);
    scale(n, b, a, 2.0f);
    float h[1000];
    cudaMemcpy(h, b, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f\\n", h[n - 1]);
    return 0;
}
"""


def _program(tmp_path, main: str):
    (tmp_path / "device.c").write_text(CHECKS)
    (tmp_path / "rounding.h").write_text(ROUNDING)
    path = tmp_path / "main.cu"
    path.write_text(KERNELS + main)
    return process_file(str(path), RunOptions(), run_fuse)


def test_wrappers_with_grid_locals_are_fused_and_removed(tmp_path):
    """The locals become their values in the fused launch; the checks of an included .c
    file and the header's iDivUp end no run; both static wrappers, now uncalled, go."""
    result = _program(tmp_path, WRAPPERS)
    after = result.change.after.decode()
    # (``a`` lives in a register: its allocation goes; ``len`` is ``n`` as an int)
    assert ("    checkCUDAError(\"fill\");\n"
            "    s2s_fused_0<<<dim3(iDivUp(n, BLOCK)), dim3(BLOCK)>>>(((int)(n)), 0.5f, n, b, "
            "2.0f);\n    checkCUDAError(\"scale\");\n") in after, after
    assert "static void fill(" not in after and "static void scale(" not in after
    assert "dim3 grid" not in after and "dim3 Dg" not in after
    assert not [d for d in result.diagnostics if d.id == "fuse-unfused"]
    removed = [d for d in result.diagnostics if "is removed" in d.message]
    assert len(removed) == 2


def test_wrappers_whose_locals_are_no_plain_values_are_not_followed(tmp_path):
    """``fill``'s local changes after its declaration; ``scale``'s comes from a call given a
    pointer: neither can stand for its value at the calls."""
    main = WRAPPERS.replace("    int len = n;\n", "    int len = n;\n    len += 0;\n").replace(
        "static void fill(", "static int count(const float *p) { return p != 0; }\n"
                             "static void fill(").replace(
        "dim3 Dg(iDivUp(n, BLOCK)), Db(BLOCK);", "dim3 Dg(count(v)), Db(BLOCK);")
    result = _program(tmp_path, main)
    said = {name: [d.message for d in result.diagnostics if d.id == "fuse-unfused"
                   and f"'{name}'" in d.message] for name in ("fill", "scale")}
    assert said["fill"] and "is changed after its declaration" in said["fill"][0], said
    assert said["scale"] and "declares a local that is not a scalar or dim3" in \
        said["scale"][0], said
    after = result.change.after.decode() if result.change else main
    assert "static void fill(" in after and "s2s_fused" not in after


ROTATE = """\
static float *device_alloc(int n)
{
    float *p = 0;
    cudaMalloc((void **)&p, n * sizeof(float));
    return p;
}
int main()
{
    int n = 1000;
    float *a = device_alloc(n), *b = device_alloc(n), *w = device_alloc(n);
    for (int t = 0; t < 4; t++) {
        fill_k<<<iDivUp(n, BLOCK), BLOCK>>>(n, a, 0.5f);
        checkCUDAError("fill");
        scale_k<<<iDivUp(n, BLOCK), BLOCK>>>(n, b, a, 2.0f);
        float *tmp = a;
        a = b;
        b = tmp;
    }
    scale_k<<<iDivUp(n, BLOCK), BLOCK>>>(n, w, a, 1.0f);
    cudaFree(a);
    cudaFree(b);
    cudaFree(w);
    return 0;
}
"""


def test_rotated_buffers_of_an_allocation_helper_are_fused(tmp_path):
    """``float *a = device_alloc(n)``: a pointer of its own (the helper is given none), not a
    reassigned alias; the rotation keeps the buffers distinct."""
    result = _program(tmp_path, ROTATE)
    assert result.change is not None and result.change.changed
    assert "s2s_fused_0<<<iDivUp(n, BLOCK), BLOCK>>>(n, a, 0.5f, b, 2.0f);" in \
        result.change.after.decode()
    assert not any("reassigned" in d.message for d in result.diagnostics)


def test_a_helpers_value_assigned_after_the_declaration_is_a_buffer_of_its_own(tmp_path):
    """``float *a, *b; a = device_alloc(n);`` (check_alloc_advect's ``d_flux``): the first
    value of a local declared without one is no alias (it was blamed "pointer 'a' is
    reassigned"); the rotation after it keeps the buffers distinct."""
    main = ROTATE.replace("    float *a = device_alloc(n), *b = device_alloc(n), *w",
                          "    float *a, *b;\n    a = device_alloc(n);\n"
                          "    b = device_alloc(n);\n    float *w")
    result = _program(tmp_path, main)
    assert not any("reassigned" in d.message for d in result.diagnostics), result.diagnostics
    assert "s2s_fused_0<<<iDivUp(n, BLOCK), BLOCK>>>(n, a, 0.5f, b, 2.0f);" in \
        result.change.after.decode()


def test_a_helpers_value_given_to_a_pointer_used_before_is_no_first_value(tmp_path):
    """``b`` names a buffer of its own before the helper's value replaces it: judged as any
    other reassignment (the loop's rotation of ``a`` and ``b`` is no longer provably one of
    distinct buffers)."""
    main = ROTATE.replace("    float *a = device_alloc(n), *b = device_alloc(n), *w",
                          "    float *a = device_alloc(n), *b;\n"
                          "    cudaMalloc((void **)&b, n * sizeof(float));\n"
                          "    fill_k<<<iDivUp(n, BLOCK), BLOCK>>>(n, b, 0.5f);\n"
                          "    b = device_alloc(n);\n    float *w")
    result = _program(tmp_path, main)
    said = " ".join(d.message for d in result.diagnostics if d.id == "fuse-unfused")
    assert "left unfused (fill_k#0, scale_k#1): pointer 'a' is reassigned in 'main' " \
        "(aliasing)" in said, said
    assert result.change is None or b"s2s_fused" not in result.change.after


def test_a_helper_given_a_pointer_may_return_an_alias(tmp_path):
    main = ROTATE.replace("static float *device_alloc(int n)\n{",
                          "static float *same(float *p) { return p; }\n"
                          "static float *device_alloc(int n)\n{").replace(
        "*w = device_alloc(n);", "*w = device_alloc(n);\n    float *c = same(b);").replace(
        "(n, b, a, 2.0f);\n        float", "(n, c, a, 2.0f);\n        float")
    result = _program(tmp_path, main)
    said = " ".join(d.message for d in result.diagnostics if d.id == "fuse-unfused")
    assert "pointer 'c' is reassigned in 'main' (aliasing)" in said, said


SRAD = """\
#define THREADS 512
__global__ void coeff(int nr, long ne, const int *is, float *c, const float *img)
{
    int ei = blockIdx.x * THREADS + threadIdx.x;
    int row = ei % nr, col = ei / nr;
    if (ei < ne) c[ei] = img[is[row] + nr * col] - img[ei];
}
__global__ void update(int nr, long ne, const int *is, const float *c, float *img)
{
    int ei = blockIdx.x * THREADS + threadIdx.x;
    int row = ei % nr, col = ei / nr;
    if (ei < ne) img[ei] += 0.25f * (c[ei] + c[is[row] + nr * col]);
}
static int sweep(int nr, long ne, const int *is, float *c, float *img)
{
    coeff<<<ne / THREADS, THREADS>>>(nr, ne, is, c, img);
    update<<<ne / THREADS, THREADS>>>(nr, ne, is, c, img);
    return 0;
}
int main()
{
    int nr = 64;
    long ne = 64 * 64;
    int *is;
    float *c, *img;
    cudaMalloc((void **)&is, nr * sizeof(int));
    cudaMalloc((void **)&c, ne * sizeof(float));
    cudaMalloc((void **)&img, ne * sizeof(float));
    for (int it = 0; it < 2; it++)
        sweep(nr, ne, is, c, img);
    return 0;
}
"""


def test_neighbours_read_through_an_index_array_span_blocks(tmp_path):
    """``ei = blockIdx.x * 512 + threadIdx.x`` under ``ei < ne``: on the small sample sizes
    only block 0 runs, so the reads of other threads' ``c`` looked like one block's; the
    large-size panel shows them across blocks (a global barrier). The run's warning keeps
    that reason although ``sweep`` is a function whose calls are not followed (it returns
    ``int``; cuda-samples' mergeSort got the refusal instead of the planner's reason)."""
    path = tmp_path / "srad.cu"
    path.write_text(SRAD)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert result.change is None or not result.change.changed
    said = [d.message for d in result.diagnostics if d.id == "fuse-unfused"]
    assert len(said) == 1 and said[0].startswith("2 of 2 launches of a run in 'sweep'"), said
    assert "needs a global barrier" in said[0] and "not followed" not in said[0], said


def test_the_toolkits_cccl_headers_are_on_the_parse_path(tmp_path):
    """nvcc 13 puts ``targets/<arch>/include/cccl`` on every compile's system path
    (``<cooperative_groups.h>`` needs ``cuda/std/type_traits`` from it); the parse does too."""
    cccl = tmp_path / "targets" / "x86_64-linux" / "include" / "cccl"
    cccl.mkdir(parents=True)
    args = clang_args("cuda", Toolchain(cuda_path=str(tmp_path), omp_include=None))
    assert args[args.index(str(cccl)) - 1] == "-idirafter"
    bare = tmp_path / "bare"
    bare.mkdir()
    assert not any(a.endswith(os.sep + "cccl") for a in clang_args("cuda", Toolchain(str(bare), None)))
    assert os.path.isdir(cccl)


INIT = """\
#define NVAR 3
__global__ void init_k(int n, float *v)
{
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    for (int j = 0; j < NVAR; j++)
        v[i + j * n] = 0.5f * j;
}
static void init_vars(int n, float *v)
{
    dim3 Dg(n / 64), Db(64);
    init_k<<<Dg, Db>>>(n, v);
}
int main()
{
    int n = 1024;
    float *a, *b;
    cudaMalloc((void **)&a, NVAR * n * sizeof(float));
    cudaMalloc((void **)&b, NVAR * n * sizeof(float));
    init_vars(n, a);
    init_vars(n, b);
    return 0;
}
"""


def test_a_files_only_launch_followed_to_two_calls_is_not_silent(tmp_path):
    """Rodinia cfd's ``initialize_variables``: the file's one launch runs twice through its
    wrapper; left unfused (the kernel writes ``v[i + j * n]`` with no guard), the warning
    names why and the summary counts both launches."""
    path = tmp_path / "init.cu"
    path.write_text(INIT)
    result = process_file(str(path), RunOptions(), run_fuse)
    said = [d for d in result.diagnostics if d.id == "fuse-unfused"]
    assert len(said) == 1 and "followed to its calls, not fused there" in said[0].message
    assert "kernel 'init_k' is not fusible" in said[0].message
    assert dict(result.counts) == {"left unfused": 2}


BRANCHES = """\
__global__ void even_k(float *v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] = 0.0f; }
__global__ void odd_k(float *v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] = 1.0f; }
void step(float *v, int n, int k)
{
    if (k % 2 == 0) {
        even_k<<<(n + 63) / 64, 64>>>(v, n);
    } else {
        odd_k<<<(n + 63) / 64, 64>>>(v, n);
    }
}
"""


def test_a_launch_alone_in_its_branch_says_so(tmp_path):
    """cuda-samples jacobiCudaGraphs: a launch alone in an if/else branch of a function this
    file does not call is unfused because of its branch, not because of the missing call
    (the "only launch of its block" warning kept its own reason)."""
    path = tmp_path / "branches.cu"
    path.write_text(BRANCHES)
    result = process_file(str(path), RunOptions(), run_fuse)
    said = [d.message for d in result.diagnostics if d.id == "fuse-unfused"]
    assert len(said) == 2 and all("it is the only launch of its block" in m for m in said), said
