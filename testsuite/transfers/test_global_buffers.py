"""Global device buffers that a called function reads (issue 29: cuda-samples' alignedTypes).

``unsigned char *d_idata;`` at file scope, allocated and uploaded by ``main``, read by the
launches of ``runTest<TData>`` that ``main`` calls: the call mentions no buffer, yet it reads
the upload, so the upload is not dead. ``s2s transfers`` used to drop it (the rewrite printed
``nan``); a call of a function (a template, a plain one, in a loop) that names a region buffer
declared outside it is now refused with ``transfers-escape`` and the function's transfers stay
as written, while the file's other functions are still planned."""

from __future__ import annotations

import json

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
    # warmUp's buffers are pooled (the file changes), main's upload of dev_src stays
    assert verdict["changed"] == ["smooth_bench.cu"]
    assert verdict["original"]["copies"]["h2d_count"] == verdict["rewritten"]["copies"]["h2d_count"] == 2
    assert verdict["original"]["devices"]["cuda_malloc"] == 4
    assert verdict["rewritten"]["devices"]["cuda_malloc"] == 3


def test_a_plain_function_called_in_a_loop_is_refused_with_its_name(capsys, tmp_path):
    text = PROGRAM.replace("template <typename T> double runSmooth(int count)", "double runSmooth(int count)")
    text = text.replace("(T *)", "(float *)").replace("(const T *)", "(const float *)")
    text = text.replace("smooth<T>", "smooth<float>").replace("sizeof(T)", "sizeof(float)")
    text = text.replace("    double total = runSmooth<float>(count);\n",
                        "    double total = 0.0;\n    for (int pass = 0; pass < 2; pass++)\n"
                        "        total += runSmooth(count);\n")
    assert "template <typename T> double" not in text and "total += runSmooth(count)" in text
    path = _write(tmp_path, text)
    code = main(["transfers", "--in-place", str(path)])
    _out, err = capsys.readouterr()
    assert code == 0, err
    rewritten = path.read_text()
    assert UPLOAD in rewritten and "cudaMalloc((void **)&dev_src, bytes)" in rewritten
    assert "s2s_device_pool" in rewritten  # warmUp is still planned
    assert "'runSmooth', called here, names region buffer" in err and "[transfers-escape]" in err
