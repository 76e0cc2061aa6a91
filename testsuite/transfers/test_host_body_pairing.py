"""Loops that copy (xfer3b) with pairing per value, one slot per buffer and declarations
moved up to the pools (xfer3a): a loop body's copies fuse over the slots the function's plan
chose, the slot of a buffer goes to the pairing a loop body copies, and a body pairing a
slot's buffer with another buffer moves that pairing by a copy of its own."""

from __future__ import annotations

import json

from conftest import REPO

from s2s.analysis.transfers.graph import Direction
from s2s.cli.main import main
from s2s.driver import RunOptions, Success, process_file
from s2s.frontend.extract import load
from s2s.transform.transfers import plan_file, run_transfers

PATTERNS = REPO / "testsuite" / "fuse" / "data" / "patterns"

#: 'h' goes up to 'd_in' and comes back from 'd_out' in every iteration; 'wbytes' is declared
#: after the first allocation and sizes 'h_w' and 'd_w' (moved up to the pools)
BODY_PAIRS = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void step(const float *in, const float *w, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 0.5f * in[i] + w[i];
}

int main(int argc, char **argv)
{
    int n = 1000, steps = argc > 1 ? atoi(argv[1]) : 3;
    size_t bytes = n * sizeof(float);
    float *h = (float *)malloc(bytes);
    float *d_in, *d_out, *d_w;
    cudaMalloc((void **)&d_in, bytes);
    cudaMalloc((void **)&d_out, bytes);
    size_t wbytes = n * sizeof(float);
    float *h_w = (float *)malloc(wbytes);
    cudaMalloc((void **)&d_w, wbytes);
    for (int i = 0; i < n; ++i) {
        h[i] = (i % 9) * 1.0f;
        h_w[i] = (i % 4) * 0.25f;
    }
    cudaMemcpy(d_w, h_w, wbytes, cudaMemcpyHostToDevice);
    double total = 0.0;
    for (int t = 0; t < steps; ++t) {
        for (int i = 0; i < n; ++i)
            h[i] += 1.0f;
        cudaMemcpy(d_in, h, bytes, cudaMemcpyHostToDevice);
        step<<<(n + 255) / 256, 256>>>(d_in, d_w, d_out, n);
        cudaMemcpy(h, d_out, bytes, cudaMemcpyDeviceToHost);
        total += h[7];
    }
    printf("total %.3f\\n", total);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_w);
    free(h);
    free(h_w);
    return 0;
}
"""


def copies_run(capsys, path, args: str) -> dict:
    assert main(["verify", "-q", "--format", "json", "--passes", "transfers", "--args", args, str(path)]) == 0
    verdict, = json.loads(capsys.readouterr().out)["programs"]
    assert verdict["ok"] and verdict["differences"] == []
    return {side: (verdict[side]["copies"]["h2d_count"], verdict[side]["copies"]["d2h_count"])
            for side in ("original", "rewritten")}


def test_the_slot_of_a_buffer_goes_to_the_pairing_a_loop_body_copies(capsys):
    path = PATTERNS / "loop_repair.cu"
    plans, refusals = plan_file(load(str(path)))
    assert refusals == [] and len(plans) == 2
    function, body = plans
    slotted = {(function.operands[o].host, function.operands[o].device) for o in function.slots}
    assert slotted == {("h_a", "d_a"), ("h_b", "d_b")}   # not ('h_a', 'd_acc'): that one moves alone
    assert [function.operands[o].device for o in function.device_tail] == ["d_acc"]
    # the body's two uploads are one cudaMemcpy over the neighbouring slots
    assert [len(m.operands) for m in body.messages] == [2]
    after = process_file(str(path), RunOptions(), run_transfers)
    assert isinstance(after, Success) and not after.incomplete
    text = after.change.after.decode()
    assert "        cudaMemcpy(d_a, h_a, s2s_off_h_b + (bytes) - s2s_off_h_a, cudaMemcpyHostToDevice);" in text
    assert "    cudaMemcpy(d_acc, h_a, bytes, cudaMemcpyHostToDevice);" in text
    assert "    cudaMemcpy(h_a, d_acc, bytes, cudaMemcpyDeviceToHost);" in text
    assert copies_run(capsys, path, "3") == {"original": (7, 1), "rewritten": (4, 1)}


def test_a_body_pairing_a_host_buffer_with_two_device_buffers_and_a_hoisted_size(capsys, tmp_path):
    path = tmp_path / "body_pairs.cu"
    path.write_text(BODY_PAIRS)
    plans, refusals = plan_file(load(str(path)))
    assert refusals == [] and len(plans) == 2
    function, body = plans
    assert function.region.hoisted and body.region.hoisted == {}
    moved = function.region.statements[next(iter(function.region.hoisted))].stmt.span
    assert "wbytes" in moved.text(BODY_PAIRS.encode())
    # one slot for 'h': the body's upload uses it; the download from 'd_out' moves alone, after
    assert sum(function.operands[o].host == "h" for o in function.slots) == 1
    assert [(m.direction, [body.operands[o].device for o in m.operands]) for m in body.messages] == \
        [(Direction.UP, ["d_in"]), (Direction.DOWN, ["d_out"])]
    result = process_file(str(path), RunOptions(), run_transfers)
    assert isinstance(result, Success) and not result.incomplete
    assert [d.message for d in result.diagnostics if d.severity.name == "WARNING"] == []
    text = result.change.after.decode()
    assert text.index("size_t wbytes") < text.index("const size_t s2s_off_h_w") < text.index("float *h = ")
    runs = copies_run(capsys, path, "3")
    assert runs["rewritten"] == runs["original"] == (4, 3)
