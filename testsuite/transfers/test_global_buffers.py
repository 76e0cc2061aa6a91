"""Global device buffers that a called function reads (issue 29: cuda-samples' alignedTypes).

``unsigned char *d_idata;`` at file scope, allocated and uploaded by ``main``, read by the
launches of ``runTest<TData>`` that ``main`` calls: the call mentions no buffer, yet it reads
the upload, so the upload is not dead. ``s2s transfers`` once dropped it (the rewrite printed
``nan``), then refused the whole function (``transfers-escape``). Now such a call (of a
template, a plain function, in a loop) is an operation of the region that reads and writes
every region buffer its callees name: the upload stays before it and the buffers are pooled.
A callee that frees, allocates or re-points such a buffer, uses streams, or a call inside a
statement with a launch or a copy, is still refused with the reason."""

from __future__ import annotations

import json

import pytest

from s2s.cli.main import main

PROGRAM = r"""// Benchmark of a 3-point smoothing kernel over several element types. The device buffers of
// the benchmark are globals that main sets up once; every runner launches on them.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                             \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err_));                                  \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

static const int REPEATS = 3;

template <typename T> __global__ void smooth(T *out, const T *in, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i + 1 < count)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / (T)3;
}

// set up by main, read by every runner
float *dev_src, *dev_dst;
float *host_src, *host_dst;

template <typename T> double runSmooth(int count)
{
    CHECK(cudaMemset(dev_dst, 0, count * sizeof(T)));
    for (int r = 0; r < REPEATS; r++)
        smooth<T><<<(count + 63) / 64, 64>>>((T *)dev_dst, (const T *)dev_src, count);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host_dst, dev_dst, count * sizeof(T), cudaMemcpyDeviceToHost));
    double sum = 0.0;
    for (int i = 0; i < count; i++)
        sum += host_dst[i];
    return sum;
}

// a warm-up pass on buffers of its own (its transfers are planned)
static float warmUp(int count)
{
    size_t bytes = count * sizeof(float);
    float *h = (float *)malloc(bytes);
    for (int i = 0; i < count; i++)
        h[i] = 1.0f;
    float *d_in, *d_out;
    CHECK(cudaMalloc((void **)&d_in, bytes));
    CHECK(cudaMalloc((void **)&d_out, bytes));
    CHECK(cudaMemcpy(d_in, h, bytes, cudaMemcpyHostToDevice));
    smooth<float><<<(count + 63) / 64, 64>>>(d_out, d_in, count);
    CHECK(cudaMemcpy(h, d_out, bytes, cudaMemcpyDeviceToHost));
    float mid = h[count / 2];
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    free(h);
    return mid;
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 4096;
    printf("warm-up %.3f\n", warmUp(count));
    size_t bytes = count * sizeof(float);
    host_src = (float *)malloc(bytes);
    host_dst = (float *)malloc(bytes);
    CHECK(cudaMalloc((void **)&dev_src, bytes));
    CHECK(cudaMalloc((void **)&dev_dst, bytes));
    for (int i = 0; i < count; i++)
        host_src[i] = (float)(i % 17);
    printf("uploading %d elements\n", count);
    CHECK(cudaMemcpy(dev_src, host_src, bytes, cudaMemcpyHostToDevice));
    double total = runSmooth<float>(count);
    printf("checksum %.3f\n", total);
    CHECK(cudaFree(dev_src));
    CHECK(cudaFree(dev_dst));
    free(host_src);
    free(host_dst);
    return 0;
}
"""

UPLOAD = "CHECK(cudaMemcpy(dev_src, host_src, bytes, cudaMemcpyHostToDevice));"


def _write(tmp_path, text: str):
    path = tmp_path / "smooth_bench.cu"
    path.write_text(text)
    return path


def test_the_upload_a_called_template_reads_is_kept_and_the_rewrite_runs_the_same(
        capsys, tmp_path, monkeypatch, shim_ready):
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, PROGRAM)
    code = main(["verify", "--format", "json", "--passes", "transfers", "smooth_bench.cu"])
    out, err = capsys.readouterr()
    [verdict] = json.loads(out)["programs"]
    assert code == 0 and verdict["ok"] and verdict["differences"] == [], err
    # warmUp's and main's buffers are pooled, main's upload of dev_src stays
    assert verdict["changed"] == ["smooth_bench.cu"]
    assert verdict["original"]["copies"]["h2d_count"] == verdict["rewritten"]["copies"]["h2d_count"] == 2
    assert verdict["original"]["devices"]["cuda_malloc"] == 4
    assert verdict["rewritten"]["devices"]["cuda_malloc"] == 2


#: main's dev_src given its slot of the device pool
POOLED = "dev_src = reinterpret_cast<decltype(dev_src)>(s2s_device_pool + s2s_off_dev_src);"


def _in_place(capsys, path) -> tuple[str, str]:
    """``s2s transfers --in-place`` on ``path``: the rewritten text and what it said."""
    code = main(["transfers", "--in-place", str(path)])
    _out, err = capsys.readouterr()
    assert code == 0, err
    return path.read_text(), err


def _plain_runner(text: str) -> str:
    text = text.replace("template <typename T> double runSmooth(int count)", "double runSmooth(int count)")
    text = text.replace("(T *)", "(float *)").replace("(const T *)", "(const float *)")
    return text.replace("smooth<T>", "smooth<float>").replace("sizeof(T)", "sizeof(float)")


def test_a_plain_function_called_in_a_loop_is_an_operation_of_the_region(capsys, tmp_path):
    text = _plain_runner(PROGRAM).replace(
        "    double total = runSmooth<float>(count);\n",
        "    double total = 0.0;\n    for (int pass = 0; pass < 2; pass++)\n"
        "        total += runSmooth(count);\n")
    assert "template <typename T> double" not in text and "total += runSmooth(count)" in text
    rewritten, err = _in_place(capsys, _write(tmp_path, text))
    assert UPLOAD in rewritten and rewritten.index(UPLOAD) < rewritten.index("total += runSmooth(count)")
    assert POOLED in rewritten
    assert rewritten.count("cudaMalloc(") == 2      # one pool in warmUp, one in main
    assert "transfers-escape" not in err, err


@pytest.mark.parametrize("old, new, reason", [
    ("    CHECK(cudaGetLastError());\n", "    CHECK(cudaGetLastError());\n    CHECK(cudaFree(dev_src));\n"
     "    CHECK(cudaMalloc((void **)&dev_src, count * sizeof(float)));\n",
     "and makes 'dev_src' freed or allocated in 'runSmooth'"),
    ("    double total = runSmooth(count);\n",
     "    double total = 0.0;\n    smooth<float><<<1, 64>>>(dev_dst, dev_src, (int)runSmooth(count));\n",
     "'runSmooth', called here in a statement with a launch, reaches region buffer"),
])
def test_calls_the_plan_cannot_follow_are_refused_with_the_reason(capsys, tmp_path, old, new, reason):
    text = _plain_runner(PROGRAM).replace("runSmooth<float>(count)", "runSmooth(count)")
    assert old in text
    rewritten, err = _in_place(capsys, _write(tmp_path, text.replace(old, new)))
    assert UPLOAD in rewritten and "cudaMalloc((void **)&dev_src, bytes)" in rewritten
    assert "s2s_device_pool" in rewritten  # warmUp is still planned
    assert reason in err and "[transfers-escape]" in err, err


def test_a_runner_in_a_header_the_file_includes_is_followed(capsys, tmp_path):
    """The runner in ``runners.cuh``, included after the globals it names (it compiles only
    there): the walk reads the header's functions as read in the file's context. Before, the
    call found no function of the file, the upload looked dead and was dropped."""
    start = PROGRAM.index("template <typename T> double runSmooth")
    end = PROGRAM.index("// a warm-up pass")
    (tmp_path / "runners.cuh").write_text(PROGRAM[start:end])
    rewritten, _err = _in_place(capsys, _write(tmp_path, PROGRAM[:start] + '#include "runners.cuh"\n\n'
                                               + PROGRAM[end:]))
    assert UPLOAD in rewritten and rewritten.index(UPLOAD) < rewritten.index("runSmooth<float>(count)")
    assert POOLED in rewritten


#: a timing helper of the runner's: a stream and events of its own, no region buffer named
#: or handed to it
TIMER = r"""static float lastMs;

static void timeSync(int repeats)
{
    cudaStream_t side;
    cudaEvent_t start, stop;
    CHECK(cudaStreamCreate(&side));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, side));
    CHECK(cudaStreamSynchronize(side));
    CHECK(cudaEventRecord(stop, side));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&lastMs, start, stop));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(side));
    if (repeats < 0)
        printf("timed %.3f ms\n", lastMs);
}

"""


def _with_helper(helper: str, call: str) -> str:
    """The plain runner calling ``call`` after its launches, ``helper`` defined before it."""
    text = _plain_runner(PROGRAM).replace("runSmooth<float>(count)", "runSmooth(count)")
    text = text.replace("double runSmooth(int count)", helper + "double runSmooth(int count)")
    return text.replace("    CHECK(cudaGetLastError());\n", f"    CHECK(cudaGetLastError());\n    {call}\n")


def test_a_helper_using_streams_on_no_region_buffer_does_not_refuse_its_caller(capsys, tmp_path):
    """Before, any CUDA call but copies, fills and queries in any function the runner reached
    refused main (``and makes 'cudaStreamCreate' in 'timeSync'``), though the helper names no
    region buffer and is handed none."""
    rewritten, err = _in_place(capsys, _write(tmp_path, _with_helper(TIMER, "timeSync(REPEATS);")))
    assert POOLED in rewritten and rewritten.count("cudaMalloc(") == 2, err
    assert UPLOAD in rewritten and rewritten.index(UPLOAD) < rewritten.index("runSmooth(count);")
    assert "transfers-escape" not in err, err


@pytest.mark.parametrize("helper, call, reason", [
    # destroys every allocation: the pool, allocated before the call, used after it
    ("static void resetAll(int n)\n{\n    if (n < 0)\n        CHECK(cudaDeviceReset());\n}\n\n",
     "resetAll(count);", "and makes 'cudaDeviceReset' in 'resetAll'"),
    # the legacy spelling of the same call
    ("static void resetAll(int n)\n{\n    if (n < 0)\n        cudaThreadExit();\n}\n\n",
     "resetAll(count);", "and makes 'cudaThreadExit' in 'resetAll'"),
    # later allocations another device's, the pool the first device's
    ("static void pickDevice(int n)\n{\n    CHECK(cudaSetDevice(n % 1));\n}\n\n",
     "pickDevice(count);", "and makes 'cudaSetDevice' in 'pickDevice'"),
    # handed a region buffer: what it does with a stream is ordered against its copies
    ("static void touch(float *buf, int n)\n{\n    cudaStream_t s;\n    CHECK(cudaStreamCreate(&s));\n"
     "    CHECK(cudaMemsetAsync(buf, 0, n, s));\n    CHECK(cudaStreamDestroy(s));\n}\n\n",
     "touch(dev_dst, 4);", "and makes 'cudaStreamCreate' in 'touch'"),
])
def test_a_helper_whose_cuda_calls_can_invalidate_the_plan_still_refuses(capsys, tmp_path, helper, call,
                                                                          reason):
    rewritten, err = _in_place(capsys, _write(tmp_path, _with_helper(helper, call)))
    assert UPLOAD in rewritten and "cudaMalloc((void **)&dev_src, bytes)" in rewritten
    assert "s2s_device_pool" in rewritten  # warmUp is still planned
    assert reason in err and "[transfers-escape]" in err, err
