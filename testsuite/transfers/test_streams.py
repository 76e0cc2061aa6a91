"""``s2s transfers`` next to work on other streams (issue 29, ``host_streams``): launches and
copies on blocking streams the function creates are planned around (a ``cudaMemcpyAsync`` on
one becomes a planned copy); a non-blocking stream, and two streams' work whose order may rest
on a copy the plan moves, are refused with the reason. The planned program runs the same on
the cpu devices (``s2s verify``), and the driver's nvcc check accepts the rewrite."""

from __future__ import annotations

import pytest

from s2s.cli.main import main
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.transfers import run_transfers

PROGRAM = """\
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void scale(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}

__global__ void shift(float *y, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += b;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    size_t bytes = n * sizeof(float);
    float *h_x = (float *)malloc(bytes);
    float *h_u = (float *)malloc(bytes);
    float *h_v = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) h_x[i] = 0.5f * (i % 37);
    float *d_x, *d_u, *d_v;
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_u, bytes);
    cudaMalloc((void **)&d_v, bytes);
    cudaStream_t side[2];
    cudaStreamCreate(&side[0]);
    SECOND;
    int blocks = (n + 127) / 128;
    cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, side[0]);
    scale<<<blocks, 128, 0, side[0]>>>(d_u, d_x, 2.0f, n);
    BETWEEN
    scale<<<blocks, 128, 0, side[1]>>>(d_v, d_u, 3.0f, n);
    shift<<<blocks, 128, 0, side[1]>>>(d_v, 1.0f, n);
    cudaDeviceSynchronize();
    LATE
    cudaMemcpy(h_v, d_v, bytes, cudaMemcpyDeviceToHost);
    double su = 0.0, sv = 0.0;
    for (int i = 0; i < n; ++i) {
        su += h_u[i];
        sv += h_v[i] * (i % 5 + 1);
    }
    printf("u %.2f v %.2f\\n", su, sv);
    cudaStreamDestroy(side[0]);
    cudaStreamDestroy(side[1]);
    cudaFree(d_x);
    cudaFree(d_u);
    cudaFree(d_v);
    free(h_x);
    free(h_u);
    free(h_v);
    return 0;
}
"""

BLOCKING = "cudaStreamCreate(&side[1])"
EARLY_COPY = "cudaMemcpy(h_u, d_u, bytes, cudaMemcpyDeviceToHost);"
LATE_COPY = "cudaMemcpy(h_u, d_u, bytes, cudaMemcpyDeviceToHost);"
SYNC = "cudaStreamSynchronize(side[0]);"


def program(second: str = BLOCKING, between: str = SYNC, late: str = LATE_COPY) -> str:
    return PROGRAM.replace("SECOND", second).replace("BETWEEN", between).replace("LATE", late)


def transferred(tmp_path, text: str):
    path = tmp_path / "streams.cu"
    path.write_text(text)
    result = process_file(str(path), RunOptions(), run_transfers)
    assert isinstance(result, Success)
    warnings = [d for d in result.diagnostics if d.severity.name == "WARNING"]
    return path, result.change.after.decode(), warnings


def line_of(text: str, needle: str) -> int:
    return next(k for k, t in enumerate(text.splitlines(), 1) if needle in t)


@pytest.mark.parametrize("between, late", [(SYNC, LATE_COPY), (EARLY_COPY + "\n    " + SYNC, "")],
                         ids=["stream-sync", "copy-then-sync"])
def test_work_on_blocking_streams_is_planned_around_and_runs_the_same(capsys, tmp_path, between, late):
    path, after, warnings = transferred(tmp_path, program(between=between, late=late))
    assert warnings == []
    # three allocations pooled; the copy on side[0] is a planned (synchronous) copy now
    assert (after.count("cudaMalloc("), after.count("cudaMemcpyAsync(")) == (1, 0)
    assert after.count("cudaMemcpy(") == 2
    # the launches and the synchronisations stay where they were, in their order
    kept = ["<<<blocks, 128, 0, side[0]>>>", SYNC, "<<<blocks, 128, 0, side[1]>>>(d_v, d_u"]
    assert [after.index(k) for k in kept] == sorted(after.index(k) for k in kept)
    if late:    # (one run on the cpu devices for both forms: the plans differ in one download)
        assert main(["verify", "-q", "--passes", "transfers", "--args", "700", str(path)]) == 0
        assert "verdict: OK" in capsys.readouterr().out


def test_a_non_blocking_stream_is_refused_naming_its_creation(tmp_path):
    second = "cudaStreamCreateWithFlags(&side[1], cudaStreamNonBlocking)"
    text = program(second=second)
    _, after, warnings = transferred(tmp_path, text)
    assert after == text
    warning, = warnings
    assert warning.id == "transfers-stream"
    assert f"created at line {line_of(text, second)} with flags 'cudaStreamNonBlocking'" in warning.message
    # the stream array is one variable: its first piece of work on it is blamed
    assert "on stream 'side[0]': stream 'side' is created" in warning.message
    assert warning.location.line == line_of(text, "cudaMemcpyAsync(d_x")


def test_two_streams_ordered_only_by_a_moved_copy_are_refused(tmp_path):
    """The download between the two streams' launches is a default-stream copy, which is
    what orders them; the plan moves it, so without a synchronisation kept between them the
    second stream could read 'd_u' before the first wrote it."""
    text = program(between=EARLY_COPY, late="")
    _, after, warnings = transferred(tmp_path, text)
    assert after == text
    warning, = warnings
    assert warning.id == "transfers-stream" and "both use 'd_u'" in warning.message
    assert f"(line {line_of(text, 'side[0]>>>')})" in warning.message
    assert f"statement at line {line_of(text, EARLY_COPY)}, which the plan moves" in warning.message


def test_a_stream_given_another_value_is_refused(tmp_path):
    """Only a variable every value of which is a blocking stream's creation is one."""
    text = program(second="side[1] = side[0]")
    _, after, warnings = transferred(tmp_path, text)
    assert after == text and [w.id for w in warnings] == ["transfers-stream"]
    assert f"is given a value at line {line_of(text, 'side[1] = side[0]')}" in warnings[0].message


#: simpleHyperQ's shape: the streams live in a malloc'd host array
STREAM_ARRAY = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void inc(int *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += 1;
}
int main(int argc, char **argv)
{
    int nstreams = argc > 1 ? atoi(argv[1]) : 4;
    int n = 1024;
    size_t bytes = n * sizeof(int);
    int *h_a = (int *)malloc(bytes);
    for (int i = 0; i < n; ++i) h_a[i] = i;
    cudaStream_t *streams = (cudaStream_t *)malloc(nstreams * sizeof(cudaStream_t));
    for (int i = 0; i < nstreams; ++i)
        cudaStreamCreate(&streams[i]);
    int *d_a;
    cudaMalloc((void **)&d_a, bytes);
    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    for (int i = 0; i < nstreams; ++i)
        inc<<<(n + 127) / 128, 128, 0, streams[i]>>>(d_a, n);
    cudaDeviceSynchronize();
    cudaMemcpy(h_a, d_a, bytes, cudaMemcpyDeviceToHost);
    printf("a[7] = %d\\n", h_a[7]);
    for (int i = 0; i < nstreams; ++i)
        cudaStreamDestroy(streams[i]);
    free(streams);
    cudaFree(d_a);
    free(h_a);
    return 0;
}
"""


def test_a_host_array_of_streams_is_named_as_such(load_source):
    """``cudaStreamCreate(&streams[i])`` on a malloc'd ``cudaStream_t`` array: the refusal
    says the array holds stream handles (it was called a region buffer, which it is not)."""
    loaded = load_source(STREAM_ARRAY, "prog.cu")
    output = run_transfers(loaded)
    assert not output.edits
    warning, = [d for d in output.diagnostics if d.severity.name == "WARNING"]
    assert warning.id == "transfers-unsupported-call"
    assert warning.message.startswith("'cudaStreamCreate' writes 'streams', a host array of cudaStream_t "
                                      "handles (not data a copy moves)")
    assert "region buffer" not in warning.message
    assert warning.location.line == STREAM_ARRAY.splitlines().index("        cudaStreamCreate(&streams[i]);") + 1
