"""End to end: CUDA samples rewritten by ``s2s mgpu``, built with nvcc against the runtime's C library and
run on P = 1..4 emulated cpu devices.

The original programs cannot run here (no GPU driver), so each rewritten program's output is compared
with the sample's expected_output.txt (recorded on an H100; numbers within the sample's tolerance) on one
device, and on P = 2, 3, 4 devices it must print exactly what it printed on one device. The default sizes
give grids that P does not divide (hotspot 32 x 19 blocks, matmul 16 x 19, nbody 4, saxpy 4097, ...).
The runtime's statistics (S2S_STATS) show that partitionable kernels really ran partitioned.
"""

from __future__ import annotations

import pytest
from mgpu_support import CUDA_SAMPLES, NVCC, build, compare_outputs, device_bytes, rewrite, run, sample_meta

pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc not found on PATH")

#: sample -> kernels that must run on one device (with the reason's beginning)
SAMPLES = {
    "hotspot": {},
    "nbody": {},
    "matmul_tiled": {},
    "saxpy": {},
    "bicgk": {},
    "elementwise_chain": {},
    "gemver": {},
    "softmax_warp": {},
    "streams_events": {},
    "block_reduction": {"block_sum_atomic": "threads of different blocks write sum[0]",
                        "final_sum": "threads of different blocks write out[0]"},
}


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """sample -> (executable, pass diagnostics); built once per test session."""
    out = {}
    for name in SAMPLES:
        work = tmp_path_factory.mktemp(name)
        source, result = rewrite(CUDA_SAMPLES / name / f"{name}.cu", work)
        out[name] = (build(source, work / name), result.diagnostics)
    return out


@pytest.fixture(scope="module")
def one_device(programs, tmp_path_factory):
    """sample -> stdout on one device (computed once, compared with the expected output below)."""
    work = tmp_path_factory.mktemp("p1")
    return {name: run(exe, 1, stats=work / f"{name}.json") for name, (exe, _) in programs.items()}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_one_device_prints_the_expected_output(name, one_device):
    stdout, stats = one_device[name]
    expected = (CUDA_SAMPLES / name / "expected_output.txt").read_text()
    assert compare_outputs(expected, stdout, float(sample_meta(name)["tolerance"])) == []
    assert stats["devices"] == 1 and stats["launches"]


@pytest.mark.parametrize("devices", [2, 3, 4])
@pytest.mark.parametrize("name", list(SAMPLES))
def test_partitioned_run_prints_what_one_device_printed(name, devices, programs, one_device, tmp_path):
    exe, diagnostics = programs[name]
    stdout, stats = run(exe, devices, stats=tmp_path / "stats.json")
    assert stdout == one_device[name][0]
    assert stats["devices"] == devices
    whole = SAMPLES[name]
    for launch in stats["launches"]:
        if launch["kernel"] in whole:
            assert not launch["partitioned"] and launch["reason"].startswith(whole[launch["kernel"]])
        else:
            assert launch["partitioned"], (launch["kernel"], launch["reason"])
            assert 1 <= launch["boxes"] <= devices
    warned = {d.message.split("'")[1] for d in diagnostics if d.id == "mgpu-one-device"}
    assert warned == set(whole)


def test_hotspot_moves_exactly_the_halo_rows(programs, tmp_path):
    """1-D row split of the 5-point stencil: after the first step, 2 * (P - 1) rows cross each step,
    one row each way per boundary: the minimum (width 500, 4-byte floats)."""
    exe, _ = programs["hotspot"]
    width, height, steps = 500, 300, 6
    for devices in (2, 3, 4):
        _, stats = run(exe, devices, (width, height, steps), tmp_path / f"h{devices}.json")
        per_step = [device_bytes(launch) for launch in stats["launches"][1:]]
        assert per_step == [2 * (devices - 1) * width * 4] * (steps - 1)


def test_nbody_positions_cross_once_per_step(programs, tmp_path):
    """compute_forces reads all positions: each device receives the others' parts of the position
    buffer once per step (the integrate step rewrote them); velocities and accelerations never move."""
    exe, _ = programs["nbody"]
    n, steps = 1000, 3
    _, stats = run(exe, 2, (n, steps), tmp_path / "nbody.json")
    forces = [launch for launch in stats["launches"] if launch["kernel"] == "compute_forces"]
    integrate = [launch for launch in stats["launches"] if launch["kernel"] == "integrate"]
    # (the first step fixes the linear host-to-device split of the velocities: 256-byte grain)
    assert [device_bytes(launch) for launch in integrate[1:]] == [0] * (steps - 1)
    # 4 blocks of 256 bodies split 2 + 2: each device receives the other's 500-body half (16 bytes each)
    assert [device_bytes(launch) for launch in forces[1:]] == [2 * 500 * 16] * (steps - 1)
