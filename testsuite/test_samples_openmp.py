"""Tests for the bundled OpenMP offload samples (samples/openmp/*/sample.toml).

For every sample: its sample.toml is valid and its sources exist; it builds
with clang-16 offloading to the host device, and its stdout matches
expected_output.txt; no target region uses a heap pointer that has no device
mapping (such a program only works because the host "device" shares the
host's address space -- it would be wrong on a discrete GPU).

The helpers come from scripts/run_omp_samples.py, loaded by path (scripts/ is
not a package).  The samples are built once, in parallel, and run once with
LIBOMPTARGET_INFO=0x23 (kernel arguments + mapping look-ups + data copies).
"""

import importlib.util
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
RUNNER_PATH = REPO_ROOT / "scripts" / "run_omp_samples.py"
SKIP_MSG = "clang-16 with OpenMP offload not installed: run scripts/setup.sh"


def _load_runner():
    spec = importlib.util.spec_from_file_location("run_omp_samples", RUNNER_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


runner = _load_runner()
SAMPLE_TOMLS = runner.sample_tomls()
TOML_PARAMS = [pytest.param(p, id=p.parent.name) for p in SAMPLE_TOMLS]


def test_samples_present():
    assert len(SAMPLE_TOMLS) >= 12, f"expected the 12 bundled samples, found {len(SAMPLE_TOMLS)}"


@pytest.mark.parametrize("toml_path", TOML_PARAMS)
def test_sample_toml_valid(toml_path):
    sample = runner.load_sample(toml_path)
    assert runner.validate_sample(sample) == []
    exts = {".c"} if sample.lang == "c" else {".cpp", ".cc", ".cxx", ".C"}
    for src in sample.sources:
        assert src.suffix in exts, f"{src.name} does not look like a {sample.lang} source"
        assert "#pragma omp target" in src.read_text(), f"{src.name} has no target region"
    assert sample.expected_path.read_text().strip(), "expected_output.txt is empty"


# --------------------------------------------------------------------------
# build once (only the samples that the selected tests need), run once
# --------------------------------------------------------------------------

_NEEDS_BUILD = {"test_output_matches_expected", "test_no_unmapped_heap_pointer"}


def _needed_samples(session) -> list:
    here = Path(__file__).resolve()
    needed = []
    for item in session.items:
        if Path(str(item.fspath)).resolve() != here:
            continue
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "toml_path" in params and item.originalname in _NEEDS_BUILD and params["toml_path"] not in needed:
            needed.append(params["toml_path"])
    return needed or list(SAMPLE_TOMLS)


@pytest.fixture(scope="module")
def sample_runs(request, tmp_path_factory):
    """dict: toml path -> (Sample, BuildResult, CompletedProcess or None)."""
    if runner.toolchain_problem(("c", "c++")) is not None:
        pytest.skip(SKIP_MSG)
    outdir = tmp_path_factory.mktemp("omp_samples")
    info = runner.INFO_ALL_CHECKS

    def build_and_run(toml_path):
        sample = runner.load_sample(toml_path)
        build = runner.build_sample(sample, outdir)
        proc = runner.run_sample(sample, build.exe, info=info) if build.ok else None
        return toml_path, (sample, build, proc)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return dict(pool.map(build_and_run, _needed_samples(request.session)))


def _get_run(sample_runs, toml_path):
    sample, build, proc = sample_runs[toml_path]
    assert build.ok, f"build failed: {' '.join(build.cmd)}\n{build.stderr}"
    assert "warning:" not in build.stderr, f"the sample should build without warnings:\n{build.stderr}"
    assert proc is not None and proc.returncode == 0, (
        f"{sample.name} exited with {proc.returncode}\n{proc.stderr[-3000:]}"
    )
    return sample, proc


@pytest.mark.parametrize("toml_path", TOML_PARAMS)
def test_output_matches_expected(sample_runs, toml_path):
    sample, proc = _get_run(sample_runs, toml_path)
    diffs = runner.compare_output(sample.expected_path.read_text(), proc.stdout, sample.tolerance)
    assert diffs == [], "\n".join(diffs)


@pytest.mark.parametrize("toml_path", TOML_PARAMS)
def test_no_unmapped_heap_pointer(sample_runs, toml_path):
    sample, proc = _get_run(sample_runs, toml_path)
    info = proc.stderr
    # the regions really ran through libomptarget on the host device
    assert "Entering OpenMP kernel" in info, "no offloaded kernel seen: host fallback?"
    assert runner.count_copies(info)["h2d"] > 0
    bad = runner.find_unmapped_pointers(info)
    assert bad == [], "pointers used in target regions without a device mapping: " + ", ".join(
        f"{b['name']} (kernel at {b['kernel']})" for b in bad
    )


# --------------------------------------------------------------------------
# the LIBOMPTARGET_INFO parsers and the output comparison (no compiler needed)
# --------------------------------------------------------------------------

_P = "Libomptarget device 0 info: "
_INFO_LOG = (
    "\n".join(
        _P + line
        for line in [
            "Entering OpenMP data region at t.c:6:3 with 1 arguments:",
            "tofrom(a[0:n])[800] ",
            "Copying data from host to device, HstPtr=0x1, TgtPtr=0x2, Size=800, Name=a[0:n]",
            "Entering OpenMP kernel at t.c:8:3 with 3 arguments:",
            "firstprivate(n)[4] (implicit)",
            "use_address(b)[0] (implicit)",
            "use_address(a)[0] (implicit)",
            "Mapping exists (implicit) with HstPtrBegin=0x1, TgtPtrBegin=0x2, Size=0, "
            "DynRefCount=2 (incremented), HoldRefCount=0, Name=a",
            "Mapping exists with HstPtrBegin=0x1, TgtPtrBegin=0x2, Size=0, DynRefCount=1 (decremented), HoldRefCount=0",
            "Exiting OpenMP data region at t.c:6:3 with 1 arguments:",
            "tofrom(a[0:n])[800] ",
            "Copying data from device to host, TgtPtr=0x2, HstPtr=0x1, Size=800, Name=a[0:n]",
            "Entering OpenMP kernel at t.c:12:3 with 2 arguments:",
            "tofrom(s)[8] (implicit)",
            "Copying data from host to device, HstPtr=0x3, TgtPtr=0x4, Size=8, Name=s",
            "Copying data from device to host, TgtPtr=0x4, HstPtr=0x3, Size=8, Name=s",
            "Copying data from host to device, HstPtr=0x5, TgtPtr=0x6, Size=8, Name=unknown",
        ]
    )
    + "\nprogram output 42\n"
)


def test_count_copies_parses_log():
    c = runner.count_copies(_INFO_LOG)
    assert (c["h2d"], c["h2d_bytes"], c["d2h"], c["d2h_bytes"]) == (3, 816, 2, 808)
    assert c["transfers"][0] == ("h2d", 800, "a[0:n]")
    assert c["transfers"][-1] == ("h2d", 8, "unknown")
    assert runner.count_copies("nothing here")["h2d"] == 0


def test_find_unmapped_pointers_parses_log():
    assert runner.find_unmapped_pointers(_INFO_LOG) == [{"kernel": "t.c:8:3", "name": "b"}]
    mapped_only = _INFO_LOG.replace("use_address(b)[0] (implicit)", "tofrom(b[0:n])[800] ")
    assert runner.find_unmapped_pointers(mapped_only) == []


def test_compare_output_tolerance():
    assert runner.compare_output("x = 1.5\nsum 10\n", "x = 1.5\nsum 10") == []
    assert runner.compare_output("x = 1.5", "x = 1.50001") != []
    assert runner.compare_output("x = 1.5", "x = 1.50001", 1e-4) == []
    assert runner.compare_output("x = 1.5", "y = 1.5", 1e-4) != []
    assert runner.compare_output("a\nb", "a") != []
