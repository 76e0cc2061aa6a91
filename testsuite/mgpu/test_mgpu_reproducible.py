"""``s2s mgpu`` output is reproducible (issue 20, item 7): the same file rewritten in two
directories gives the same bytes, naming neither directory; the runtime finds the file's quoted
includes in the directory it is compiled from (``__FILE__``)."""

from __future__ import annotations

import shutil

import pytest
from mgpu_support import NVCC, build, run

from s2s.cli.main import main

HEADER = """#ifndef SCALE_H
#define SCALE_H
/* the kernel's helper lives in a header of the project: the runtime compiles the kernel from
   the original source, so it must find this file too */
__device__ inline float twice_plus(float v, float bias) { return 2.0f * v + bias; }
#endif
"""

SOURCE = """#include <cstdio>
#include <cuda_runtime.h>
#include "scale.h"

__global__ void scale(const float *in, float *out, float bias, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = twice_plus(in[i], bias);
}

int main()
{
    const int n = 1000;
    float host[n];
    for (int i = 0; i < n; ++i)
        host[i] = (float)i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, host, n * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<(n + 127) / 128, 128>>>(d_in, d_out, 0.5f, n);
    cudaMemcpy(host, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("out[0]=%.1f out[999]=%.1f\\n", host[0], host[999]);
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
"""


def rewrite_in(directory, capsys) -> bytes:
    """The rewritten source and its generated kernel table, as one text."""
    directory.mkdir()
    (directory / "scale.h").write_text(HEADER)
    (directory / "scale.cu").write_text(SOURCE)
    assert main(["mgpu", "-q", "--in-place", str(directory / "scale.cu")]) == 0
    capsys.readouterr()
    return (directory / "scale.cu").read_bytes() + (directory / "scale.cu.s2s_mgpu.h").read_bytes()


def test_same_bytes_from_any_directory(tmp_path, capsys):
    first = rewrite_in(tmp_path / "one", capsys)
    second = rewrite_in(tmp_path / "two", capsys)
    assert first == second
    assert str(tmp_path).encode() not in first
    # the directory is the source's __FILE__ where it is compiled, read in the source itself
    assert b"static const char s2s_mgpu_source_file[] = __FILE__;" in first
    assert b"s2s_mgpu_file_directory(s2s_mgpu_source_file)" in first


@pytest.mark.skipif(NVCC is None, reason="nvcc not found on PATH")
def test_runtime_finds_quoted_includes_beside_the_compiled_file(tmp_path, capsys):
    rewrite_in(tmp_path / "project", capsys)
    exe = build(tmp_path / "project" / "scale.cu", tmp_path / "scale")
    moved = tmp_path / "run"
    moved.mkdir()
    shutil.move(str(exe), moved / "scale")        # the binary runs from another directory
    out, _stats = run(moved / "scale", devices=2)
    assert "out[0]=0.5 out[999]=1998.5" in out
