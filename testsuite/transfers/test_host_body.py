"""``s2s transfers`` on loops whose body copies (issue 19, item 2) and on ``cudaMemset``: the
body is a region of its own whose copies fuse among themselves, the loop a barrier of the
function's region; a fill is a device write. The programs run before and after on the cpu
devices (``s2s verify``) and their calls are counted."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

from s2s.analysis.transfers.host_code import find_regions
from s2s.analysis.transfers.region import HostCode, Launch
from s2s.cli.main import main
from s2s.driver import RunOptions, Success, process_file
from s2s.edits import EditSet
from s2s.transform.transfers import run_transfers

PATTERNS = REPO / "testsuite" / "fuse" / "data" / "patterns"
CORPUS = REPO / "testsuite" / "corpus" / "cuda"


def calls(text: bytes) -> tuple[int, int]:
    return text.count(b"cudaMemcpy("), text.count(b"cudaMalloc(")


def rewritten(path) -> bytes:
    result = process_file(str(path), RunOptions(), run_transfers)
    assert isinstance(result, Success) and not result.incomplete
    assert [d.message for d in result.diagnostics if d.severity.name == "WARNING"] == []
    return result.change.after


def verified(capsys, path, args: str = "") -> None:
    assert main(["verify", "-q", "--passes", "transfers", "--args", args, str(path)]) == 0
    assert "verdict: OK" in capsys.readouterr().out


def test_copies_in_a_loop_body_fuse_among_themselves(capsys, tmp_path):
    path = PATTERNS / "loop_copies.cu"
    after = rewritten(path)
    assert calls(path.read_bytes()) == (5, 5)
    assert calls(after) == (3, 1)
    text = after.decode()
    # the body's two uploads and two downloads, each one cudaMemcpy over neighbouring slots
    assert "        cudaMemcpy(d_a, h_a, s2s_off_h_b + (bytes) - s2s_off_h_a, cudaMemcpyHostToDevice);" in text
    assert "        cudaMemcpy(h_sum, d_sum, s2s_off_h_diff + (bytes) - s2s_off_h_sum, cudaMemcpyDeviceToHost);" \
        in text
    # the loop is a barrier: the counter's download stays after it
    assert text.index("cudaMemcpy(h_hits, d_hits") > text.index("total += h_sum[i]")
    # the copies the two runs make: per step 2 uploads and 2 downloads become 1 and 1
    assert main(["verify", "-q", "--format", "json", "--passes", "transfers", "--args", "3", str(path)]) == 0
    verdict, = json.loads(capsys.readouterr().out)["programs"]
    assert verdict["ok"] and verdict["differences"] == []
    runs = {side: verdict[side]["copies"] for side in ("original", "rewritten")}
    assert (runs["original"]["h2d_count"], runs["original"]["d2h_count"]) == (6, 7)
    assert (runs["rewritten"]["h2d_count"], runs["rewritten"]["d2h_count"]) == (3, 4)
    again = tmp_path / "once.cu"
    again.write_bytes(after)
    second = process_file(str(again), RunOptions(), run_transfers)
    assert second.change.after == after    # a second run changes nothing


def test_the_loop_is_a_host_and_a_device_operation_of_the_function(load_source):
    loaded = load_source((PATTERNS / "loop_copies.cu").read_text(), "prog.cu")
    regions, refusals = find_regions(loaded.model, loaded.source)
    assert not refusals
    region = regions[0]
    host, device = [op for op in region.ops if getattr(op, "name", "").startswith("loop at line")]
    assert isinstance(host, HostCode) and isinstance(device, Launch)
    # nothing of the host side held a value before the loop; d_hits (zeroed) is updated
    assert host.reads == () and set(host.writes) == {"h_a", "h_b", "h_sum", "h_diff"}
    assert device.reads == ("d_hits",)
    assert set(device.writes) == {"d_a", "d_b", "d_sum", "d_diff", "d_hits"}
    inside = region.graph.op_of_kernel.index(region.ops.index(device))
    assert all(not w.earliest <= inside <= w.latest for w in region.graph.graph.windows)
    body, = region.loops
    assert body.body_of.startswith("loop at line") and len(body.graph.graph.kernels) == 4


def test_a_fill_is_a_device_write(load_source):
    text = (CORPUS / "constant_conv1d" / "conv1d.cu").read_text()
    loaded = load_source(text, "conv1d.cu")
    regions, refusals = find_regions(loaded.model, loaded.source)
    assert not refusals
    fill, = [op for op in regions[0].ops if getattr(op, "name", "").startswith("cudaMemset")]
    assert isinstance(fill, Launch) and fill.writes == ("d_out",) and fill.reads == ()
    # half a buffer that holds a value: the rest must survive, so the fill reads it too
    half = text.replace("cudaMemset(d_out, 0, n * sizeof(float));\n    cudaMemcpy(d_in, in,",
                        "cudaMemcpy(d_in, in,").replace(
        "cudaMemcpyToSymbol(filter,", "cudaMemset(d_in, 0, n / 2 * sizeof(float));\n    cudaMemcpyToSymbol(filter,")
    loaded = load_source(half, "conv1d.cu")
    regions, refusals = find_regions(loaded.model, loaded.source)
    assert not refusals
    fill, = [op for op in regions[0].ops if getattr(op, "name", "").startswith("cudaMemset")]
    assert fill.reads == ("d_in",) and fill.writes == ("d_in",)


@pytest.mark.parametrize("sample, source, before, after", [
    ("constant_conv1d", "conv1d.cu", (2, 2), (2, 1)),      # cudaMemset of a pooled buffer
    ("memset_histogram", "histogram.cu", (2, 2), (2, 1)),  # copies and a fill inside a loop
])
def test_corpus_programs_with_fills_and_loops(capsys, sample, source, before, after):
    path = CORPUS / sample / source
    assert calls(path.read_bytes()) == before
    assert calls(rewritten(path)) == after
    verified(capsys, path)


LOOP_HEAD = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void twice(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2; }
int main() {
    int n = 64;
    size_t bytes = n * sizeof(float);
    float *h = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i) h[i] = i;
    float *d, *e;
    cudaMalloc((void **)&d, bytes);
    cudaMalloc((void **)&e, bytes);
"""
LOOP_TAIL = """    printf("%f\\n", h[3]);
    cudaFree(d);
    cudaFree(e);
    free(h);
    return 0;
}
"""


@pytest.mark.parametrize("loop, needle", [
    ("    for (int k = 0; k < 2; ++k) {\n        float *f;\n        cudaMalloc((void **)&f, bytes);\n"
     "        cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);\n    }\n", "cudaMalloc((void **)&f"),
    ("    for (int k = 0; k < 2; ++k) {\n        for (int j = 0; j < 2; ++j)\n"
     "            cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);\n    }\n", "            cudaMemcpy(d, h"),
    ("    for (float *p = d; p != d; ++p)\n        cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);\n",
     "float *p = d"),
])
def test_loops_that_copy_and_do_more_are_refused(load_source, loop, needle):
    text = LOOP_HEAD + loop + LOOP_TAIL
    loaded = load_source(text, "prog.cu")
    output = run_transfers(loaded)
    warnings = [d for d in output.diagnostics if d.severity.value == "warning"]
    assert [w.id for w in warnings] == ["transfers-control-flow"]
    line = next(k for k, t in enumerate(text.splitlines(), 1) if needle.splitlines()[0] in t)
    assert warnings[0].location.line in (line, line - 1)
    assert EditSet(output.edits).apply("prog.cu", loaded.source).decode() == text


def test_async_copies_on_the_default_stream_are_copies(capsys):
    path = PATTERNS / "async_default.cu"
    source = path.read_bytes()
    assert (source.count(b"cudaMemcpyAsync("), source.count(b"cudaMalloc(")) == (3, 3)
    after = rewritten(path)
    assert b"cudaMemcpyAsync(" not in after and calls(after) == (2, 1)
    assert b"cudaMemcpy(d_x, h_x, s2s_off_h_y + (bytes) - s2s_off_h_x, cudaMemcpyHostToDevice);" in after
    verified(capsys, path)


def test_a_copy_on_another_stream_is_refused_with_its_stream():
    path = CORPUS / "streams_pipeline" / "pipeline.cu"
    result = process_file(str(path), RunOptions(), run_transfers)
    assert result.change.after == path.read_bytes()
    warning, = [d for d in result.diagnostics if d.severity.name == "WARNING"]
    assert warning.id == "transfers-stream" and "on stream 's'" in warning.message
    assert warning.location.line == next(k for k, t in enumerate(path.read_text().splitlines(), 1)
                                         if "cudaMemcpyAsync(d_in + off" in t)


@pytest.mark.parametrize("jump", ["break", "continue"])
def test_an_iteration_that_may_end_early_is_refused(load_source, jump):
    """A copy the plan moves within the body (an upload as late as possible) must run in
    every iteration the program's copy ran in."""
    loop = ("    for (int k = 0; k < 4; ++k) {\n        cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);\n"
            f"        if (k == 2)\n            {jump};\n        twice<<<1, 64>>>(d, n);\n"
            "        cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);\n    }\n")
    text = LOOP_HEAD + loop + LOOP_TAIL
    output = run_transfers(load_source(text, "prog.cu"))
    warnings = [d for d in output.diagnostics if d.severity.value == "warning"]
    assert [w.id for w in warnings] == ["transfers-control-flow"]
    assert warnings[0].message.startswith(f"'{jump}' ends an iteration")
    # a break of a loop nested in the body is the nested loop's own
    nested = loop.replace(f"        if (k == 2)\n            {jump};\n",
                          f"        for (int j = 0; j < n; ++j)\n            if (h[j] < 0) {jump};\n")
    output = run_transfers(load_source(LOOP_HEAD + nested + LOOP_TAIL, "prog.cu"))
    assert [d.id for d in output.diagnostics if d.severity.value == "warning"] == []
