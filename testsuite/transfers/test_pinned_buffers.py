"""Page-locked host buffers (``cudaMallocHost``, ``cudaHostAlloc``) in a region (issue 29,
item 3).

Before, ``cudaMallocHost((void **)&h_x, bytes);`` refused the whole function ("'cudaMallocHost'
on a region buffer is not supported"). Such a buffer is a host buffer of the region whose
storage is not the host pool's: its allocation and ``cudaFreeHost`` stay where they are (the
explanation says why it is not pooled), its copies are planned, and the device buffers go
into the device pool. What the plan cannot follow is still refused with the reason: a
page-locked buffer handed to a kernel (under unified addressing the kernel may read host
memory directly) or to ``cudaHostGetDevicePointer``, or allocated under a loop or branch.
"""

from __future__ import annotations

import json

import pytest

from s2s.cli.main import main

PROGRAM = r"""// y = a*x + y over page-locked host vectors (the usual setup for asynchronous copies)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                       \
    do {                                                                  \
        cudaError_t err_ = (call);                                        \
        if (err_ != cudaSuccess) {                                        \
            fprintf(stderr, "%s\n", cudaGetErrorString(err_));            \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

__global__ void axpy(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 12;
    size_t bytes = n * sizeof(float);
    float *h_x, *h_y;
    CHECK(cudaMallocHost((void **)&h_x, bytes));
    CHECK(cudaHostAlloc((void **)&h_y, bytes, cudaHostAllocDefault));
    for (int i = 0; i < n; i++) {
        h_x[i] = (float)(i % 7);
        h_y[i] = 1.0f;
    }
    float *d_x, *d_y;
    CHECK(cudaMalloc((void **)&d_x, bytes));
    CHECK(cudaMalloc((void **)&d_y, bytes));
    CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, h_y, bytes, cudaMemcpyHostToDevice));
    axpy<<<(n + 255) / 256, 256>>>(d_y, d_x, 2.0f, n);
    CHECK(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    printf("%.1f %.1f\n", h_y[0], h_y[n - 1]);
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFreeHost(h_x));
    CHECK(cudaFreeHost(h_y));
    return 0;
}
"""

#: the second upload of x: the device copy holds it already (nothing wrote either side)
AGAIN = "    CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));\n    printf"


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "axpy_pinned.cu"
    path.write_text(PROGRAM)
    return path


def test_page_locked_buffers_are_region_buffers_outside_the_host_pool(capsys, program):
    code = main(["transfers", "--in-place", "--explain", str(program)])
    _out, err = capsys.readouterr()
    assert code == 0, err
    text = program.read_text()
    assert "s2s_device_pool" in text and text.count("cudaMalloc(") == 1
    assert AGAIN not in text                                   # the dead re-upload is gone
    for kept in ("CHECK(cudaMallocHost((void **)&h_x, bytes));", "CHECK(cudaFreeHost(h_y));",
                 "CHECK(cudaHostAlloc((void **)&h_y, bytes, cudaHostAllocDefault));"):
        assert kept in text
    assert "'h_x' stays out of the host pool (page-locked storage of its 'cudaMallocHost', not the " \
           "pool's malloc)" in err, err
    assert "not supported" not in err


@pytest.mark.parametrize("old, new, reason", [
    ("axpy<<<(n + 255) / 256, 256>>>(d_y, d_x, 2.0f, n);",
     "axpy<<<(n + 255) / 256, 256>>>(d_y, h_x, 2.0f, n);",
     "host buffer 'h_x' is passed to kernel 'axpy'"),
    ("    float *d_x, *d_y;\n",
     "    float *d_x, *d_y;\n    float *mapped;\n    CHECK(cudaHostGetDevicePointer((void **)&mapped, h_x, 0));\n",
     "'cudaHostGetDevicePointer' on a region buffer is not supported"),
    ("    CHECK(cudaMallocHost((void **)&h_x, bytes));\n",
     "    for (int k = 0; k < 1; k++)\n        CHECK(cudaMallocHost((void **)&h_x, bytes));\n",
     "'cudaMallocHost' on a region buffer is not supported"),
])
def test_what_the_plan_cannot_follow_is_refused_with_the_reason(capsys, program, old, new, reason):
    assert old in PROGRAM
    program.write_text(PROGRAM.replace(old, new))
    code = main(["transfers", "--in-place", str(program)])
    _out, err = capsys.readouterr()
    assert code == 0 and program.read_text() == PROGRAM.replace(old, new), err
    assert reason in err, err


def test_the_rewrite_runs_the_same(capsys, program, monkeypatch, shim_ready):
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    monkeypatch.chdir(program.parent)
    code = main(["verify", "--format", "json", "--passes", "transfers", "axpy_pinned.cu"])
    out, err = capsys.readouterr()
    [verdict] = json.loads(out)["programs"]
    assert code == 0 and verdict["ok"] and verdict["differences"] == [], err
    assert verdict["original"]["copies"]["h2d_count"] == 3
    assert verdict["rewritten"]["copies"]["h2d_count"] == 2
    assert (verdict["original"]["devices"]["cuda_malloc"], verdict["rewritten"]["devices"]["cuda_malloc"]) == (2, 1)
