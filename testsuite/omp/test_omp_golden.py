"""Golden tests of `s2s omp`: the rewrite of every OpenMP sample and its diagnostics.

``testsuite/golden/omp/<sample>.diff`` holds the unified diff the pass produces (empty when
it changes nothing) followed by the diagnostics (``--explain`` notes included). Regenerate
after an intended change with ``pytest testsuite/omp/test_omp_golden.py --update-goldens``
and review ``git diff testsuite/golden/omp``; the end-to-end tests in test_omp_samples.py
check by running them that the rewrites are right.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, sample_dirs, sample_meta

from s2s.driver import RunOptions, Success, process_file
from s2s.output import unified_diff
from s2s.transform.omp import run_omp

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "omp"
SAMPLES = sample_dirs("openmp")


def _render(directory: Path) -> str:
    source = (directory / sample_meta(directory)["sources"][0]).relative_to(REPO)
    result = process_file(str(source), RunOptions(), run_omp)
    assert isinstance(result, Success)
    diff = unified_diff(result.change) if result.change is not None else ""
    notes = "".join(f"{d.headline()}\n" for d in result.diagnostics)
    return f"{diff}\n# diagnostics\n{notes}"


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch):
    monkeypatch.chdir(REPO)


@pytest.mark.parametrize("directory", SAMPLES, ids=[d.name for d in SAMPLES])
def test_rewrite_matches_golden(directory, request):
    text = _render(directory)
    golden = GOLDEN / f"{directory.name}.diff"
    if request.config.getoption("--update-goldens"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.exists(), f"no golden file {golden}; run with --update-goldens"
    assert text == golden.read_text()


EXPERT_NOTES = {
    # Why s2s keeps each expert mapping as written although its own plan differs: the
    # author knows something the analysis cannot prove (see docs/benchmarks.md).
    "backprop_layer", "conditional_kernel", "heap_runtime_sizes", "pointer_alias",
    "stencil_host_check",
}


@pytest.mark.parametrize("directory", SAMPLES, ids=[d.name for d in SAMPLES])
def test_expert_mappings_are_kept_byte_for_byte(directory):
    """A hand-written mapping that is already as good as the plan is not touched, and none
    of the experts' (correct) mappings is reported as suspect."""
    expert = (directory / sample_meta(directory)["expert"]).relative_to(REPO)
    result = process_file(str(expert), RunOptions(), run_omp)
    assert isinstance(result, Success)
    assert result.change is None or not result.change.changed
    ids = {d.id for d in result.diagnostics}
    assert "omp-suspect-mapping" not in ids
    assert ("omp-existing-mapping" in ids) == (directory.name in EXPERT_NOTES)
