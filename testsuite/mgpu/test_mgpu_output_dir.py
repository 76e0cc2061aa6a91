"""``s2s mgpu -o DIR`` on a program whose kernels are in a project header (issue 31): the header
is copied beside the rewritten copy, so the runtime's kernel compile (which looks beside the
compiled file, ``__FILE__``) finds it without the user adding ``-- -I.``; the program builds
without -I and runs split over two cpu devices."""

from __future__ import annotations

import pytest
from mgpu_support import NVCC, build, run

from s2s.cli.main import main

MAIN = """\
#include <cstdio>
#include "kernels.cuh"
int main()
{
    const int n = 1000;
    float h[n];
    for (int i = 0; i < n; ++i) h[i] = (float)i;
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    triple<<<(n + 127) / 128, 128>>>(d, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += h[i];
    printf("sum=%.1f\\n", sum);
    cudaFree(d);
    return 0;
}
"""
KERNELS = """\
#pragma once
__global__ void triple(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 3.0f * x[i];
}
"""


@pytest.mark.skipif(NVCC is None, reason="needs nvcc to build the rewritten program")
def test_output_dir_copy_finds_the_header_kernels_at_run_time(tmp_path, monkeypatch, capsys):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.cu").write_text(MAIN)
    (tmp_path / "src" / "kernels.cuh").write_text(KERNELS)
    monkeypatch.chdir(tmp_path)
    assert main(["mgpu", "-o", "out", "src/main.cu"]) == 0, capsys.readouterr().err
    copy = tmp_path / "out" / "src" / "main.cu"
    # the header is copied beside the copy, unchanged; the rewrite names no directory
    assert (tmp_path / "out" / "src" / "kernels.cuh").read_text() == KERNELS
    assert str(tmp_path) not in copy.read_text()
    assert main(["mgpu", "-o", "out", "src/main.cu"]) == 0     # a second run: same copies
    assert (tmp_path / "out" / "src" / "kernels.cuh").read_text() == KERNELS
    exe = build(copy, tmp_path / "prog")                        # no -I: the header is beside it
    out, stats = run(exe, 2, stats=tmp_path / "stats.json")
    assert out == "sum=1498500.0\n"
    assert [launch["partitioned"] for launch in stats["launches"]] == [True]
