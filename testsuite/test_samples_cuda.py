"""Sanity checks for the bundled CUDA sample programs (samples/cuda/*).

For every ``samples/cuda/<name>/sample.toml``:

* the metadata has the required keys with the right types, and every
  listed source and header exists;
* every source compiles with ``nvcc -c -arch=sm_90`` (skipped when nvcc is
  not installed; nothing here needs a GPU: ``-c`` only, no run);
* an ``expected_output.txt``, when present, is non-empty.

The comparison helper of ``scripts/run_cuda_samples.py`` is unit-tested
too, since reference checks against GPU runs depend on it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import tomllib

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT / "samples" / "cuda"
RUNNER = REPO_ROOT / "scripts" / "run_cuda_samples.py"

SAMPLE_TOMLS = sorted(SAMPLES_DIR.glob("*/sample.toml"))
SAMPLE_IDS = [p.parent.name for p in SAMPLE_TOMLS]

REQUIRED_KEYS = {
    "name": str,
    "language": str,
    "description": str,
    "sources": list,
    "headers": list,
    "args": list,
    "tolerance": (int, float),
    "nvcc_flags": list,
}


def _load(toml_path: Path) -> dict:
    with open(toml_path, "rb") as fh:
        return tomllib.load(fh)


def _find_nvcc() -> str | None:
    env = os.environ.get("NVCC")
    if env and Path(env).is_file():
        return env
    found = shutil.which("nvcc")
    if found:
        return found
    default = Path("/usr/local/cuda/bin/nvcc")
    return str(default) if default.is_file() else None


def test_samples_present():
    assert SAMPLE_TOMLS, f"no sample.toml found under {SAMPLES_DIR}"


@pytest.mark.parametrize("toml_path", SAMPLE_TOMLS, ids=SAMPLE_IDS)
def test_sample_metadata(toml_path: Path):
    meta = _load(toml_path)
    sample_dir = toml_path.parent

    for key, typ in REQUIRED_KEYS.items():
        assert key in meta, f"{toml_path}: missing key {key!r}"
        value = meta[key]
        assert isinstance(value, typ) and not isinstance(value, bool), (
            f"{toml_path}: {key!r} has type {type(value).__name__}")

    assert meta["name"] == sample_dir.name, (
        f"{toml_path}: name {meta['name']!r} != directory {sample_dir.name!r}")
    assert meta["language"] == "cuda"
    assert meta["description"].strip()
    assert meta["tolerance"] >= 0
    assert meta["sources"], f"{toml_path}: no sources"
    for key in ("sources", "headers", "args", "nvcc_flags"):
        assert all(isinstance(v, str) for v in meta[key]), (
            f"{toml_path}: {key} must be a list of strings")

    for src in meta["sources"]:
        assert src.endswith(".cu"), f"{toml_path}: source {src!r} is not a .cu file"
        assert (sample_dir / src).is_file(), f"{toml_path}: missing source {src}"
    for hdr in meta["headers"]:
        assert (sample_dir / hdr).is_file(), f"{toml_path}: missing header {hdr}"


@pytest.mark.parametrize("toml_path", SAMPLE_TOMLS, ids=SAMPLE_IDS)
def test_sample_compiles(toml_path: Path, tmp_path: Path):
    nvcc = _find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found (set NVCC or put nvcc on PATH); "
                    "skipping CUDA compile check")
    meta = _load(toml_path)
    sample_dir = toml_path.parent
    for src in meta["sources"]:
        obj = tmp_path / (Path(src).stem + ".o")
        cmd = [nvcc, "-c", "-arch=sm_90", *meta["nvcc_flags"], src, "-o", str(obj)]
        proc = subprocess.run(cmd, cwd=sample_dir, capture_output=True, text=True)
        assert proc.returncode == 0, (
            f"{' '.join(cmd)} failed in {sample_dir}:\n{proc.stdout}{proc.stderr}")
        assert obj.is_file()


@pytest.mark.parametrize("toml_path", SAMPLE_TOMLS, ids=SAMPLE_IDS)
def test_expected_output_nonempty(toml_path: Path):
    expected = toml_path.parent / "expected_output.txt"
    if not expected.exists():
        return  # not produced yet: reference outputs come from a GPU run
    assert expected.read_text().strip(), f"{expected} is empty"


# -- the runner's output comparison ------------------------------------------

def _runner():
    spec = importlib.util.spec_from_file_location("run_cuda_samples", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compare_outputs_exact_and_tolerance():
    compare = _runner().compare_outputs
    ref = "checksum 2457600.938\nbody 0 pos 3.2191e+00 speed 4.0056e-01\n"

    assert compare(ref, ref, 0.0) == []
    # trailing whitespace / final newline do not matter
    assert compare(ref, ref.rstrip() + "  \n\n", 0.0) == []
    # the same value spelled differently is equal even with tolerance 0
    assert compare("x 1e+06\n", "x 1000000\n", 0.0) == []

    near = "checksum 2457600.938\nbody 0 pos 3.2193e+00 speed 4.0056e-01\n"
    assert compare(ref, near, 0.0)            # exact: must differ
    assert compare(ref, near, 1e-3) == []     # 6e-5 relative: accepted
    assert compare(ref, near, 1e-5)           # but not at 1e-5

    # text around numbers must match exactly, and the line count too
    assert compare(ref, ref.replace("speed", "velocity"), 1e-3)
    assert compare(ref, ref + "extra 1\n", 1e-3)
    assert compare("v nan\n", "v nan\n", 0.0) == []
    assert compare("v inf\n", "v 1e38\n", 1e-3)
