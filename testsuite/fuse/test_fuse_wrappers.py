"""``s2s fuse`` through host wrapper functions (issue 29, item 4 (b)): a call of a void
function whose statements are launches and error checks is the launch at the call site, its
parameters bound to the call's arguments; the fused calls are replaced by the wrapper's
statements with the fused launch, other calls stay as written."""

from __future__ import annotations

import pytest

from s2s.driver import RunOptions, process_file
from s2s.transform.fuse import run_fuse

HEADER = """\
#pragma once
#include <cstdio>
#include <cstdlib>
static void check_kernel(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { fprintf(stderr, "%s: %s\\n", what, cudaGetErrorString(e)); exit(1); }
}
"""
SOURCE = """\
#include "util.h"
#define TPB 128
__global__ void axpy_k(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
__global__ void scale_k(float *z, const float *y, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = s * y[i];
}
static void axpy(float *d_y, const float *d_x, float a, int n)
{
    axpy_k<<<(n + TPB - 1) / TPB, TPB>>>(d_y, d_x, a, n);
    check_kernel("axpy");
}
static SCALE_SIGNATURE
{
    scale_k<<<(n + TPB - 1) / TPB, TPB>>>(d_z, d_y, s, n);
    check_kernel("scale");
}
int main()
{
    int n = 1000;
    float *x, *y, *z;
    cudaMalloc((void **)&x, n * sizeof(float));
    cudaMalloc((void **)&y, n * sizeof(float));
    cudaMalloc((void **)&z, n * sizeof(float));
    for (int t = 0; t < 4; t++) {
        axpy(y, x, 0.5f, n);
        scale(z, y, 2.0f, n);
    }
    scale(x, z, 0.5f, n / 2);
    return 0;
}
"""
PLAIN = "void scale(float *d_z, const float *d_y, float s, int n)"


def _fuse(tmp_path, signature: str = PLAIN):
    (tmp_path / "util.h").write_text(HEADER)
    path = tmp_path / "steps.cu"
    path.write_text(SOURCE.replace("SCALE_SIGNATURE", signature))
    return process_file(str(path), RunOptions(), run_fuse)


def test_two_wrapped_launches_are_fused_at_their_calls(tmp_path):
    result = _fuse(tmp_path)
    after = result.change.after.decode()
    assert ("        check_kernel(\"axpy\");\n"
            "        s2s_fused_0<<<(n + TPB - 1) / TPB, TPB>>>(y, x, 0.5f, n, z, 2.0f);\n"
            "        check_kernel(\"scale\");\n    }\n") in after
    assert "    scale(x, z, 0.5f, n / 2);\n" in after          # a lone call stays a call
    assert "static void axpy(" not in after     # every call fused: the static wrapper goes
    assert after.count("void scale(") == 1     # one call left as written
    warned = [d for d in result.diagnostics if d.id == "fuse-unfused"]
    # axpy's every call is fused; scale's last call is not (n / 2 in its grid is not bound)
    assert [d.location.line for d in warned] == [20]
    assert "fused at line 32; the call at line 34 is left as written" in warned[0].message
    assert dict(result.counts) == {"left unfused": 1}


@pytest.mark.parametrize("signature, why", [
    ("int scale(float *d_z, const float *d_y, float s, int n)", "it returns 'int'"),
    ("void scale(float *d_z, const float *d_y, const float &s, int n)",
     "a parameter is a reference"),
    ("void scale(float *d_z, const float *d_y, double s, int n)",
     "parameter 's' (double) is passed to the kernel's 'float' (a second conversion)"),
])
def test_a_wrapper_not_followed_says_why(tmp_path, signature, why):
    result = _fuse(tmp_path, signature)
    said = [d.message for d in result.diagnostics if d.id == "fuse-unfused"
            and "'scale'" in d.message]
    assert said and all("its calls are not followed" in m and why in m for m in said), said
    assert "scale_k" not in result.change.after.decode().split("int main")[1] \
        if result.change and result.change.changed else True


def test_wrappers_of_a_kernel_header_are_followed_too(tmp_path):
    """``launch_axpy`` defined next to its kernel in a .cuh: its calls are its launch."""
    (tmp_path / "ops.cuh").write_text(
        SOURCE.split("static SCALE_SIGNATURE")[0].replace('#include "util.h"\n', "")
        .replace('    check_kernel("axpy");\n', "")
        + "static void launch_scale(float *d_z, const float *d_y, float s, int n)\n"
          "{\n    scale_k<<<(n + TPB - 1) / TPB, TPB>>>(d_z, d_y, s, n);\n}\n")
    path = tmp_path / "main.cu"
    path.write_text('#include "ops.cuh"\nint main()\n{\n    int n = 64;\n    float *x, *y, *z;\n'
                    "    cudaMalloc((void **)&x, n * sizeof(float));\n"
                    "    cudaMalloc((void **)&y, n * sizeof(float));\n"
                    "    cudaMalloc((void **)&z, n * sizeof(float));\n"
                    "    axpy(y, x, 0.5f, n);\n    launch_scale(z, y, 2.0f, n);\n"
                    "    cudaMemcpy(x, y, n * sizeof(float), cudaMemcpyDeviceToDevice);\n"
                    "    launch_scale(y, x, 2.0f, n);\n"      # alone after a copy: unfused
                    "    return 0;\n}\n")
    result = process_file(str(path), RunOptions(), run_fuse)
    after = result.change.after.decode()
    assert "    s2s_fused_0<<<(n + TPB - 1) / TPB, TPB>>>(y, x, 0.5f, n, z, 2.0f);\n    cudaMemcpy" \
        in after
    assert "    launch_scale(y, x, 2.0f, n);\n" in after
