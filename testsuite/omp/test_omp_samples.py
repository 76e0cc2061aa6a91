"""`s2s omp` end to end on every OpenMP sample: rewrite, build with clang-16 host offload,
run, and compare with the original program's output and copy counts.

A rewrite must print the same output (within the sample's tolerance), leave no pointer used
in a target region without a present mapping, move no more bytes than the original, and be
idempotent (a second run changes nothing).
"""

from __future__ import annotations

import pytest
from conftest import sample_dirs, sample_meta

from s2s.driver import RunOptions, Success, process_file
from s2s.transform.omp import LEFT_COUNT, run_omp
from s2s.verify import omp_harness as harness

SAMPLES = sample_dirs("openmp")


def _rewrite(path) -> bytes:
    return _rewrite_counted(path)[0]


def _rewrite_counted(path) -> tuple[bytes, dict[str, int]]:
    """The rewritten text and the pass's summary counts."""
    result = process_file(str(path), RunOptions(), run_omp)
    assert isinstance(result, Success), result
    text = result.change.after if result.change is not None else path.read_bytes()
    return text, dict(result.counts)


@pytest.fixture(scope="module")
def toolchain():
    problem = harness.toolchain_problem()
    if problem:
        pytest.skip(f"OpenMP host offload not available: {problem}")


@pytest.mark.parametrize("directory", SAMPLES, ids=[d.name for d in SAMPLES])
def test_rewritten_sample_runs_the_same_with_fewer_copies(directory, toolchain, tmp_path):
    meta = sample_meta(directory)
    source = directory / meta["sources"][0]
    rewritten = tmp_path / source.name
    text, counts = _rewrite_counted(source)
    rewritten.write_bytes(text)
    harness.build([source], tmp_path / "orig")
    harness.build([rewritten], tmp_path / "new")
    args = [str(a) for a in meta.get("args", [])]
    before = harness.run(tmp_path / "orig", args)
    after = harness.run(tmp_path / "new", args)
    assert after.returncode == 0, after.stderr[-2000:]
    difference = harness.compare_outputs(before.stdout, after.stdout,
                                         float(meta.get("tolerance", 0.0)))
    assert difference is None, difference
    assert after.unmapped == ()
    # issue 28, item 2: the summary's count agrees with the run (constructs that used an
    # unmapped pointer, from LIBOMPTARGET_INFO)
    assert counts[LEFT_COUNT] == harness.unmapped_constructs(after)
    assert after.copies.total_bytes <= before.copies.total_bytes


@pytest.mark.parametrize("directory", SAMPLES, ids=[d.name for d in SAMPLES])
def test_rewrite_is_idempotent(directory, tmp_path):
    meta = sample_meta(directory)
    source = directory / meta["sources"][0]
    once = tmp_path / source.name
    once.write_bytes(_rewrite(source))
    assert _rewrite(once) == once.read_bytes()
