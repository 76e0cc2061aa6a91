"""Global buffers in reach of a function whose body transfers cannot see (issue 29, item 1).

``float *dev_src;`` at file scope, allocated and uploaded by ``main``; ``main`` then calls a
function of the program that reads ``dev_src`` through ``extern float *dev_src;`` in another
translation unit, or directly in a header of host code only. transfers' walk saw neither
body: the call looked like one touching no buffer, the upload looked dead and was dropped
(the rewrite read an uninitialised buffer). Now:

* a header of host code only that the file includes is read in the file's context when the
  file's host code allocates or copies a global and calls a function it does not define:
  its functions are followed like the file's (the upload stays, the buffers are pooled);
* a call that may run a function defined nowhere in sight (another translation unit's)
  reads and writes every global buffer of the region: copies stay on their side of it, and
  the buffers stay out of the pools (the function may free or re-point them), with a
  warning naming the call;
* a library's function (declared in a system header, a fact from the AST:
  ``CallSite.system``) names no variable of the program: calls of ``printf`` or ``atoi``
  change nothing.
"""

from __future__ import annotations

import json

import pytest

from s2s.cli.main import main
from s2s.frontend.extract import load

MAIN = r"""// Smoothing benchmark: main sets up the device buffers, globals of the program, and
// hands the work to a runner compiled in runner.cu.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "runner.h"

float *dev_src, *dev_dst;
float *host_src, *host_dst;

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 4096;
    size_t bytes = count * sizeof(float);
    host_src = (float *)malloc(bytes);
    host_dst = (float *)malloc(bytes);
    cudaMalloc((void **)&dev_src, bytes);
    cudaMalloc((void **)&dev_dst, bytes);
    for (int i = 0; i < count; i++)
        host_src[i] = (float)(i % 17);
    cudaMemcpy(dev_src, host_src, bytes, cudaMemcpyHostToDevice);
    double total = runSmooth(count);
    printf("checksum %.3f\n", total);
    cudaFree(dev_src);
    cudaFree(dev_dst);
    free(host_src);
    free(host_dst);
    return 0;
}
"""

RUNNER_H = "#pragma once\ndouble runSmooth(int count);\n"

RUNNER = r"""#include <cuda_runtime.h>
#include "runner.h"
extern float *dev_src, *dev_dst;
extern float *host_dst;

__global__ void smooth(float *out, const float *in, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i + 1 < count)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
}

double runSmooth(int count)
{
    cudaMemset(dev_dst, 0, count * sizeof(float));
    smooth<<<(count + 63) / 64, 64>>>(dev_dst, dev_src, count);
    cudaMemcpy(host_dst, dev_dst, count * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0.0;
    for (int i = 0; i < count; i++)
        sum += host_dst[i];
    return sum;
}
"""

UPLOAD = "cudaMemcpy(dev_src, host_src, bytes, cudaMemcpyHostToDevice);"


def test_a_call_of_another_translation_units_function_keeps_the_upload(capsys, tmp_path):
    """Before: the upload was dropped and both buffers pooled (runSmooth read garbage)."""
    (tmp_path / "runner.h").write_text(RUNNER_H)
    (tmp_path / "runner.cu").write_text(RUNNER)
    path = tmp_path / "main.cu"
    path.write_text(MAIN)
    code = main(["transfers", "--in-place", str(path)])
    _out, err = capsys.readouterr()
    assert code == 0, err
    rewritten = path.read_text()
    assert UPLOAD in rewritten and "s2s_device_pool" not in rewritten
    assert rewritten == MAIN          # nothing else merges: the file is left as it was
    assert "main.cu:22:5: warning: 'dev_src' stays out of the pools of 'main': the call here runs " \
           "'runSmooth', whose body is not in this file or a header it includes" in err, err
    assert "(and 1 more like this at line 22)" in err, err      # dev_dst's
    assert "[transfers-escape]" in err


def test_a_call_in_a_statement_with_a_copy_is_refused_with_the_reason(capsys, tmp_path):
    (tmp_path / "runner.h").write_text(RUNNER_H + "int checked(int status);\n")
    path = tmp_path / "main.cu"
    text = MAIN.replace(f"    {UPLOAD}\n", f"    checked({UPLOAD[:-1]});\n")
    path.write_text(text)
    code = main(["transfers", "--in-place", str(path)])
    _out, err = capsys.readouterr()
    assert code == 0 and path.read_text() == text, err
    assert "'checked', called here in a statement with a CUDA memory call, runs 'checked', whose body " \
           "is not in this file or a header it includes: it may read or write global region buffer " \
           "'dev_src'" in err and "[transfers-escape]" in err, err


def test_library_calls_are_told_by_their_declaration(tmp_path):
    """``CallSite.system`` from where the callee is declared: libc, the CUDA runtime and
    ``dim3`` are a library's, the program's own declaration of ``runSmooth`` is not."""
    path = tmp_path / "main.cu"
    path.write_text(MAIN)
    (tmp_path / "runner.h").write_text(RUNNER_H)
    loaded = load(str(path))
    [function] = loaded.model.functions
    system = {c.name: c.system for c in function.calls}
    assert system["runSmooth"] is False
    assert all(system[n] for n in ("atoi", "malloc", "cudaMalloc", "cudaMemcpy", "printf", "free"))


HEADER_PROGRAM = r"""// Smoothing benchmark: the device buffers are globals; the host helper that reads the
// upload back lives in a header of host code only.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

float *dev_src, *dev_dst;
float *host_src, *host_dst;

#include "bench_io.h"

__global__ void smooth(float *out, const float *in, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        out[i] = 0.5f * in[i] + (i > 0 ? 0.25f * in[i - 1] : 0.0f);
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 4096;
    size_t bytes = count * sizeof(float);
    host_src = (float *)malloc(bytes);
    host_dst = (float *)malloc(bytes);
    cudaMalloc((void **)&dev_src, bytes);
    cudaMalloc((void **)&dev_dst, bytes);
    for (int i = 0; i < count; i++)
        host_src[i] = (float)(i % 17);
    cudaMemcpy(dev_src, host_src, bytes, cudaMemcpyHostToDevice);
    printf("input sum %.3f\n", input_sum(count));
    for (int i = 0; i < count; i++)
        host_src[i] = 2.0f * host_src[i];
    cudaMemcpy(dev_src, host_src, bytes, cudaMemcpyHostToDevice);
    smooth<<<(count + 63) / 64, 64>>>(dev_dst, dev_src, count);
    cudaMemcpy(host_dst, dev_dst, bytes, cudaMemcpyDeviceToHost);
    printf("output %.3f %.3f\n", host_dst[1], host_dst[count - 1]);
    cudaFree(dev_src);
    cudaFree(dev_dst);
    free(host_src);
    free(host_dst);
    return 0;
}
"""

BENCH_IO = r"""// host-side helpers of the benchmark: no device code here
#pragma once
// what the device holds of the input, read back (checks the upload)
static double input_sum(int count)
{
    float *tmp = (float *)malloc(count * sizeof(float));
    cudaMemcpy(tmp, dev_src, count * sizeof(float), cudaMemcpyDeviceToHost);
    double s = 0.0;
    for (int i = 0; i < count; i++)
        s += tmp[i];
    free(tmp);
    return s;
}
"""


@pytest.fixture
def header_program(tmp_path):
    (tmp_path / "bench_io.h").write_text(BENCH_IO)
    path = tmp_path / "bench.cu"
    path.write_text(HEADER_PROGRAM)
    return path


def test_a_helper_in_a_header_of_host_code_is_followed(capsys, header_program):
    """Before: the first upload (read back by ``input_sum``) was dropped as dead."""
    code = main(["transfers", "--in-place", str(header_program)])
    _out, err = capsys.readouterr()
    assert code == 0, err
    rewritten = header_program.read_text()
    first, second = (rewritten.find(UPLOAD), rewritten.rfind(UPLOAD))
    call = rewritten.index("input_sum(count)")
    assert first < call < second, rewritten
    assert "s2s_device_pool" in rewritten and "stays out of the pools" not in err, err


def test_the_rewrite_with_the_header_helper_runs_the_same(capsys, header_program, monkeypatch,
                                                           shim_ready):
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    monkeypatch.chdir(header_program.parent)
    code = main(["verify", "--format", "json", "--passes", "transfers", "bench.cu"])
    out, err = capsys.readouterr()
    [verdict] = json.loads(out)["programs"]
    assert code == 0 and verdict["ok"] and verdict["differences"] == [], err
    assert verdict["changed"] == ["bench.cu"]
    assert verdict["original"]["copies"]["h2d_count"] == verdict["rewritten"]["copies"]["h2d_count"] == 2
    assert verdict["original"]["devices"]["cuda_malloc"] == 2
    assert verdict["rewritten"]["devices"]["cuda_malloc"] == 1
