"""Pairing per value (issue 19): one host buffer copied to or from several device buffers,
one device buffer with several host buffers, a value copied to two device buffers; also host
arrays from ``new T[n]`` and a size declared after the first allocation. The programs of ``testsuite/fuse/data/patterns/`` run before and
after ``s2s transfers`` on the runtime's cpu devices: same output, the calls counted."""

from __future__ import annotations

import pytest
from conftest import REPO

from s2s.analysis.transfers.graph import CPU, Direction
from s2s.analysis.transfers.optimize import optimize
from s2s.analysis.transfers.region import DEVICE, HOST, Buffer, Copy, HostCode, Launch, build_region_graph
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.transfers import plan_file, run_transfers

PATTERNS = REPO / "testsuite" / "fuse" / "data" / "patterns"

#: program -> ((cudaMemcpy, cudaMalloc) executed before, after)
RUNS = {
    "host_two_devices.cu": ((5, 5), (3, 1)),   # sig up with w and bias in one copy; w up again alone
    "device_two_hosts.cu": ((4, 2), (3, 1)),   # u0 and k up in one copy; d_u down into snap, u_end
    "new_arrays.cu": ((3, 3), (3, 1)),         # new[] arrays stay; the device pool is one cudaMalloc
    "shapes.cu": ((2, 2), (2, 1)),
    "kernels_after_main.cu": ((2, 2), (2, 1)),
    "frame_swap.cu": ((3, 3), (3, 1)),         # h up to d_prev and to d_src: two vectors
    "late_size.cu": ((3, 3), (2, 1)),          # 'groups' moved up to the pools (test_host_hoist.py)
    "reupload.cu": ((4, 5), (3, 1)),           # h's second pairing gets the slot: it goes up with x
    "swap_staging.cu": ((3, 3), (3, 1)),       # h up, then down from another buffer: order kept
}


def buffers(*names: str) -> list[Buffer]:
    return [Buffer(n, HOST if n.startswith("h") else DEVICE, 64) for n in names]


def test_a_host_buffer_pairs_with_a_device_buffer_per_value():
    ops = [HostCode("fill", (), ("h",)), Copy("d_in", "h"), Launch("k", ("d_in",), ("d_out",)),
           Copy("h", "d_out"), HostCode("print", ("h",), ())]
    region = build_region_graph(buffers("h", "d_in", "d_out"), ops, shared_device=True)
    pairs = {(o.host, o.device) for o in region.operands}
    assert pairs == {("h", "d_in"), ("h", "d_out")}
    assert [o.name for o in region.operands] == ["h@d_in", "h@d_out"]
    graph = region.graph
    # the result must go down before the host reads it; the input up before the kernel
    plan = optimize(graph)
    moves = {(graph.name(v), t.direction) for t in plan.transfers for v in t.vectors}
    assert moves == {("h@d_in", Direction.UP), ("h@d_out", Direction.DOWN)}


def test_a_value_copied_to_two_device_buffers_is_two_vectors_of_one_producer():
    ops = [HostCode("fill", (), ("h",)), Copy("d_a", "h"), Copy("d_b", "h"),
           Launch("k", ("d_a", "d_b"), ("d_c",)), HostCode("clobber", (), ("h",))]
    region = build_region_graph(buffers("h", "d_a", "d_b", "d_c"), ops, shared_device=True)
    graph = region.graph
    fill = graph.kernels[0]
    assert fill.device == CPU and len(fill.writes) == 2
    assert {region.operands[region.operand_of[v]].device for v in fill.writes} == {"d_a", "d_b"}
    # both must go up before 'clobber' (kernel 2) overwrites their one host storage
    assert all(graph.vectors[v].upload_by == 2 for v in fill.writes)


def test_one_slot_per_buffer_and_the_other_pairing_moves_alone():
    plans, refusals = plan_file(_loaded("host_two_devices.cu"))
    assert refusals == [] and len(plans) == 1
    plan = plans[0]
    slotted = [plan.operands[o] for o in plan.slots]
    for space in ("host", "device"):
        names = [getattr(o, space) for o in slotted]
        assert len(names) == len(set(names))
    pooled = plan.region.device_pooled
    placed = {plan.operands[o].device for o in (*plan.slots, *plan.device_tail)}
    assert placed == pooled   # every pooled device buffer has exactly one offset
    # sig goes up with w and bias in one copy; w's second upload (into d_w2) moves alone
    ups = [m for m in plan.messages if m.direction is Direction.UP]
    assert sorted(len(m.operands) for m in ups) == [1, 3]


def test_the_slot_goes_to_the_pairing_that_moves_with_others():
    plans, _ = plan_file(_loaded("reupload.cu"))
    plan = plans[0]
    assert {(plan.operands[o].host, plan.operands[o].device) for o in plan.slots} >= {("h", "d_two"), ("x", "d_x")}
    together = [m for m in plan.messages if len(m.operands) > 1]
    assert [sorted(plan.operands[o].name for o in m.operands) for m in together] == [["h@d_two", "x"]]


def test_an_upload_stays_before_the_download_that_overwrites_its_host_buffer():
    plans, _ = plan_file(_loaded("swap_staging.cu"))
    plan = plans[0]
    point = [m for m in plan.messages if plan.operands[m.operands[0]].host == "h"]
    assert [m.direction for m in point] == [Direction.UP, Direction.DOWN]
    assert point[0].point == point[1].point and point[0].boundary <= point[1].boundary and point[1].late


def _loaded(name: str):
    from s2s.frontend.extract import load
    return load(str(PATTERNS / name))


@pytest.mark.parametrize("name", sorted(RUNS))
def test_rewrites_compile_run_the_same_and_merge(name, shim_ready, tmp_path):
    from s2s.verify.cuda_host import build, run

    path = PATTERNS / name
    result = process_file(str(path), RunOptions(), run_transfers)
    assert isinstance(result, Success) and not result.incomplete
    assert [d.message for d in result.diagnostics if d.severity.name == "WARNING"] == []
    before = run(build(str(path), tmp_path / "before"))
    after = run(build(str(path), tmp_path / "after", source=result.change.after))
    assert before.returncode == after.returncode == 0, before.stderr + after.stderr
    assert before.stdout and after.stdout == before.stdout
    (copies_before, mallocs_before), (copies_after, mallocs_after) = RUNS[name]
    assert (before.counts["cudaMemcpy"], before.counts["cudaMalloc"]) == (copies_before, mallocs_before)
    assert (after.counts["cudaMemcpy"], after.counts["cudaMalloc"]) == (copies_after, mallocs_after)
    assert after.counts["launch"] == before.counts["launch"]
    again = tmp_path / name
    again.write_bytes(result.change.after)
    second = process_file(str(again), RunOptions(), run_transfers)
    assert isinstance(second, Success) and second.change.after == result.change.after   # idempotent


def test_poly_gemm_merges_its_allocations():
    """C_gpu pairs with C (up) and C_out (down). The host arrays are parameters, so the copies
    stay; the three cudaMalloc calls become one. (nvcc 13 rejects cudaThreadSynchronize; the
    nvcc check maps it as every pass does, issue 29: testsuite/test_nvcc_compare.py.)"""
    path = REPO / "testsuite" / "corpus" / "cuda" / "poly_gemm" / "gemm.cu"
    result = process_file(str(path), RunOptions(), run_transfers)   # (conftest: nvcc check off)
    assert isinstance(result, Success) and not result.incomplete
    assert [d.id for d in result.diagnostics if d.severity.name == "WARNING"] == []
    after = result.change.after
    assert after.count(b"cudaMalloc(") == 1 and after.count(b"cudaMemcpy(") == 4
