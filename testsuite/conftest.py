"""Shared fixtures: in-memory parsing and the sample catalogue."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"

# CUDA rewrites are compiled with nvcc before they are emitted (2-3 s each, cached under
# XDG_CACHE_HOME); the suite checks them with the libclang parse, and
# testsuite/mgpu/test_mgpu_nvcc_check.py turns nvcc back on where it tests the check.
os.environ.setdefault("S2S_NVCC_CHECK", "0")
os.environ.pop("FORCE_COLOR", None)      # colour is off unless a test asks for it


@pytest.fixture(autouse=True)
def _wide_tables(monkeypatch):
    """Tables are laid out in COLUMNS (80 when piped): the suite reads cells by their text,
    so s2s lays them out wide enough that none folds; testsuite/test_cli_output.py
    tests the layout at 80 columns."""
    monkeypatch.setenv("COLUMNS", "1000")


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite golden files from the current output (review the diff!)")


def sample_dirs(language: str) -> list[Path]:
    """Sample directories of one language (``cuda`` or ``openmp``) that have a sample.toml."""
    return sorted(p.parent for p in (SAMPLES / language).glob("*/sample.toml"))


def sample_meta(directory: Path) -> dict:
    with open(directory / "sample.toml", "rb") as handle:
        return tomllib.load(handle)


@pytest.fixture
def load_source():
    """Parse and extract an in-memory source: ``load_source(text, name='x.cu')``."""
    from s2s.frontend.extract import load

    def _load(text: str, name: str = "input.cu", **options):
        from s2s.frontend.core.parse import ParseOptions

        return load(name, ParseOptions(**options), source=text.encode())

    return _load


# -- the wheel the packaging tests install (testsuite/packaging) ------------------------------
# It lives here, not in a conftest.py of its own: a second module named 'conftest' would shadow
# this one for the tests that import its helpers ('from conftest import sample_dirs').
#: what the copy of the tree the wheel is built from leaves out
WHEEL_IGNORED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                       "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", "*.o", "*.so")


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> tuple[Path, Path]:
    """(wheel path, the copy of the source tree it was built from): built once per session
    from a copy of the tree (pip builds in the source folder; the checkout stays clean)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "src"
    shutil.copytree(REPO, source, ignore=WHEEL_IGNORED)
    wheels = root / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                            "--no-build-isolation", "-w", str(wheels), str(source)],
                           capture_output=True, text=True)
    if build.returncode != 0 and "No module named 'wheel'" in build.stderr:
        pytest.skip("the 'wheel' package is not installed (pip install -e '.[dev]' brings it)")
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("s2s-*.whl")
    return wheel, source
