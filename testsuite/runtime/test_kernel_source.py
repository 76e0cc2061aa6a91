"""The runtime compiles a program's kernels from its source (issue 18, item 5): whatever comes
first in the file, the kernels keep the preprocessor lines and macros they need; the program's
-D/-U/-I/-std reach the kernel compiler; __constant__ tables are filled by symbol copies."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from runtime.api import Runtime
from runtime.cpu.compiler import kernel_flags
from runtime.cpu.source import prepare
from runtime.errors import CompileError, LaunchError

HOST_FIRST = """\
#include <stdio.h>
#define SCALE 3
static int helper(int x) { return x + 1; }
#define OFFSET 2
int run_it(void) {
#define INNER 5
#pragma omp parallel for
    for (int i = 0; i < 4; ++i) helper(i);
    return 0;
}
__global__ void k(int *p) { p[threadIdx.x] = SCALE * threadIdx.x + OFFSET + INNER; }
int main() { return run_it(); }
"""


def test_host_function_before_the_first_kernel_keeps_the_preprocessor_lines():
    ks = prepare(HOST_FIRST, "hostfirst.cu")
    lines = ks.text.splitlines()
    for kept in ("#include <stdio.h>", "#define SCALE 3", "#define OFFSET 2", "#define INNER 5"):
        assert kept in lines
    assert "run_it" not in ks.text and "#pragma" not in ks.text and "return x + 1" not in ks.text
    assert ks.text.count("\n") == HOST_FIRST.count("\n")


def test_kernels_after_host_code_run_with_their_macros():
    rt = Runtime("cpu", 1)
    module = rt.load_module(source=HOST_FIRST, name="hostfirst.cu")
    buf = rt.malloc(4 * 4)
    rt.launch(module["k"], 1, 4, [buf])
    out = np.empty(4, dtype=np.int32)
    rt.memcpy_dtoh(out, buf)
    assert out.tolist() == [7, 10, 13, 16]


def test_program_flags_reach_the_kernel_compiler(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "params.h").write_text("#define STEP 4\n")
    source = ('#include "params.h"\n__global__ void k(int *p) { p[threadIdx.x] = STEP * BASE; }\n'
              "#if __cplusplus < 202002L\n#error needs C++20\n#endif\n")
    rt = Runtime("cpu", 1)
    with pytest.raises(CompileError, match="params.h"):
        rt.load_module(source=source, name="flags.cu")
    flags = ["-I", str(tmp_path / "inc"), "-DBASE=3", "-std=c++20", "-O3", "-lm"]
    module = rt.load_module(source=source, name="flags.cu", flags=flags)
    buf = rt.malloc(8)
    rt.launch(module["k"], 1, 2, [buf])
    out = np.empty(2, dtype=np.int32)
    rt.memcpy_dtoh(out, buf)
    assert out.tolist() == [12, 12]


def test_kernel_flags_keep_what_changes_the_kernels():
    assert kernel_flags(["-D", "N=4", "-UX", "-Iinc", "-std=c++14", "-O2", "-x", "cu",
                         "-std=gnu++20"])[:2] == ("-DN=4", "-UX")
    got = kernel_flags(["-Iinc", "-std=c++14", "-std=gnu++20", "-DBAD=a\nb"])
    assert got[0].startswith("-I/") and got[0].endswith("/inc")
    assert got[1:] == ("-std=c++17", "-std=gnu++20")        # below C++17 counts as C++17


CONSTANT = """\
__constant__ float coef[4];
__device__ int bias;
__global__ void apply(float *x) { x[threadIdx.x] = coef[threadIdx.x] * 2 + bias; }
"""


def test_symbol_copies_fill_constant_tables():
    rt = Runtime("cpu", 2)
    module = rt.load_module(source=CONSTANT, name="const.cu")
    table = np.array([1, 2, 3, 4], dtype=np.float32)
    bias = np.array([10], dtype=np.int32)
    module.copy_symbol("coef", table.ctypes.data, table.nbytes, 0, True)
    module.copy_symbol("bias", bias.ctypes.data, 4, 0, True)
    back = np.zeros(2, dtype=np.float32)
    module.copy_symbol("coef", back.ctypes.data, 8, 8, False)
    assert back.tolist() == [3, 4]
    buf = rt.malloc(16)
    rt.launch(module["apply"], 1, 4, [buf])
    out = np.empty(4, dtype=np.float32)
    rt.memcpy_dtoh(out, buf)
    assert out.tolist() == [12, 14, 16, 18]
    with pytest.raises(LaunchError, match="overruns 'coef'"):
        module.copy_symbol("coef", table.ctypes.data, 16, 4, True)
    with pytest.raises(LaunchError, match="no variable 'missing'"):
        module.copy_symbol("missing", ctypes.addressof(ctypes.c_int()), 4, 0, True)


@pytest.mark.gpu
def test_symbol_copies_and_flags_on_the_cuda_backend():
    """Every GPU device's copy of a __constant__ table is written; -D reaches nvcc as #define."""
    from runtime.errors import BackendUnavailable
    try:
        rt = Runtime("cuda")
    except BackendUnavailable as err:
        pytest.skip(f"no GPU: {err}")
    source = CONSTANT.replace("* 2", "* SCALE")
    module = rt.load_module(source=source, name="const.cu", flags=["-DSCALE=3"])
    table = np.array([1, 2, 3, 4], dtype=np.float32)
    bias = np.array([10], dtype=np.int32)
    module.copy_symbol("coef", table.ctypes.data, table.nbytes, 0, True)
    module.copy_symbol("bias", bias.ctypes.data, 4, 0, True)
    buf = rt.malloc(16)
    rt.launch(module["apply"], 1, 4, [buf])
    out = np.empty(4, dtype=np.float32)
    rt.memcpy_dtoh(out, buf)
    assert out.tolist() == [13, 16, 19, 22]


def test_member_functions_of_host_classes_are_host_code():
    text = ("#define N 8\nclass Runner {\npublic:\n    explicit Runner(int n) : n_(n) {}\n"
            "    void go(int *p) { k<<<1, N>>>(p); }\nprivate:\n    int n_;\n};\n"
            "struct Pod { int a; __device__ int twice() const { return 2 * a; } };\n"
            "__global__ void k(int *p) { p[threadIdx.x] = N; }\n")
    ks = prepare(text, "cls.cu")
    assert ks.kernels == ["k"]
    assert "<<<" not in ks.text and "n_(n)" not in ks.text
    assert "return 2 * a;" in ks.text and "#define N 8" in ks.text       # device member kept
    assert ks.text.count("\n") == text.count("\n")
