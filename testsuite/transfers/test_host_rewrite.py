"""``s2s transfers`` on CUDA host code: golden diffs of the samples, the counts they reach,
refusals with their ids, ``nvcc -c`` acceptance of every rewritten file, and the original and
rewritten programs run whole on the runtime's cpu devices with identical output.

Regenerate the golden diffs after an intended change with
``pytest testsuite/transfers/test_host_rewrite.py --update-goldens`` and review them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from s2s.driver import RunOptions, Success, process_file
from s2s.frontend.extract import load
from s2s.output import unified_diff
from s2s.transform.transfers import plan_file, run_transfers

SAMPLES = ("horner", "cholesky_tiles", "block_matmul", "cg_steps")
GOLDEN = Path(__file__).parent / "golden"

#: (cudaMemcpy before, after, cudaMalloc before, after, host mallocs before, after), measured
#: statically from the source; the cpu-device runs below count the calls executed.
COUNTS = {
    "horner": (13, 2, 14, 1, 13, 1),
    "cholesky_tiles": (24, 7, 10, 1, 10, 1),
    "block_matmul": (16, 5, 16, 1, 20, 1),
    "cg_steps": (15, 8, 14, 1, 8, 1),
}


def rewrite(path: Path) -> Success:
    result = process_file(str(path.relative_to(REPO)), RunOptions(), run_transfers)
    assert isinstance(result, Success), result
    return result


@pytest.fixture(scope="module")
def rewritten() -> dict[str, Success]:
    import os

    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        return {name: rewrite(REPO / "samples" / "cuda" / name / f"{name}.cu") for name in SAMPLES}
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("name", SAMPLES)
def test_golden_diff(name, rewritten, request):
    result = rewritten[name]
    assert not [d for d in result.diagnostics if d.severity.value == "warning"]
    diff = unified_diff(result.change)
    golden = GOLDEN / f"{name}.diff"
    if request.config.getoption("--update-goldens"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(diff)
    assert diff == golden.read_text()


@pytest.mark.parametrize("name", SAMPLES)
def test_counts_and_optimum(name):
    loaded = load(str(REPO / "samples" / "cuda" / name / f"{name}.cu"))
    plans, refusals = plan_file(loaded)
    assert not refusals and len(plans) == 1
    plan = plans[0]
    counts = (plan.copies_before, plan.copies_after, plan.device_allocs_before, plan.device_allocs_after,
              plan.host_allocs_before, plan.host_allocs_after)
    assert counts == COUNTS[name]
    # never worse than the optimizer's per-value optimum by more than the slot constraint costs
    assert plan.copies_after >= plan.plan.startups
    assert plan.plan.startups <= plan.copies_after <= plan.plan.startups + 1


def _nvcc() -> str | None:
    return shutil.which("nvcc") or (str(Path("/usr/local/cuda/bin/nvcc"))
                                    if Path("/usr/local/cuda/bin/nvcc").is_file() else None)


@pytest.mark.parametrize("name", SAMPLES)
def test_rewritten_file_compiles_with_nvcc(name, rewritten, tmp_path):
    nvcc = _nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found; skipping the nvcc -c acceptance check")
    source = tmp_path / f"{name}.cu"
    source.write_bytes(rewritten[name].change.after)
    proc = subprocess.run([nvcc, "-c", "-arch=sm_90", str(source), "-o", str(tmp_path / "x.o")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", SAMPLES)
def test_programs_agree_on_cpu_devices(name, rewritten, shim_ready, tmp_path):
    from s2s.verify.cuda_host import build, run

    path = REPO / "samples" / "cuda" / name / f"{name}.cu"
    before = run(build(str(path), tmp_path / "before"))
    after = run(build(str(path), tmp_path / "after", source=rewritten[name].change.after))
    assert before.returncode == after.returncode == 0, before.stderr + after.stderr
    expected = (path.parent / "expected_output.txt").read_text()
    assert before.stdout == expected
    assert after.stdout == before.stdout
    copies_before, copies_after, mallocs_before, mallocs_after, _, _ = COUNTS[name]
    assert (before.counts["cudaMemcpy"], before.counts["cudaMalloc"]) == (copies_before, mallocs_before)
    assert (after.counts["cudaMemcpy"], after.counts["cudaMalloc"]) == (copies_after, mallocs_after)
    assert after.counts["cudaFree"] == 1 and after.counts["launch"] == before.counts["launch"]
    # fused copies also move the alignment padding between slots, at most 255 bytes per gap
    for key in ("h2d_bytes", "d2h_bytes"):
        assert after.counts[key] <= before.counts[key] + 255 * before.counts["cudaMemcpy"]


def test_nvcc_wrapper_runs_the_pass(tmp_path, capfd):
    if _nvcc() is None:
        pytest.skip("nvcc not found")
    from s2s.cli.main import main

    source = REPO / "samples" / "cuda" / "horner" / "horner.cu"
    obj = tmp_path / "horner.o"
    assert main(["nvcc", "--s2s-passes=transfers", "--s2s-verbose", "-c", "-arch=sm_90", str(source),
                 "-o", str(obj)]) == 0
    assert obj.is_file()
    assert "passes transfers (from --s2s-passes): 1 of 1 sources changed" in capfd.readouterr().err
