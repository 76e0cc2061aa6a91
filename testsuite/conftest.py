"""Shared fixtures: in-memory parsing and the sample catalogue."""

from __future__ import annotations

import contextlib
import fcntl
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
# The fact cache (issue 30, item 2) is off for the suite: tests patch the front end, and a fact
# cached by another test would hide the patch; testsuite/frontend/test_fact_cache.py and
# testsuite/test_parallel_jobs.py turn it on in a cache folder of their own.
os.environ.setdefault("S2S_NO_CACHE", "1")


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


@pytest.fixture(scope="module")
def shim_ready():
    """The runtime's C interface, built once, for host programs built against verify's CUDA
    shim and run on the cpu devices (skips where g++ or the interface is missing)."""
    if not shutil.which("g++"):
        pytest.skip("no C++ compiler (g++) to build host programs against the runtime shim")
    from runtime.capi_build import build_library
    from runtime.errors import BackendUnavailable

    try:
        build_library()
    except BackendUnavailable as error:
        pytest.skip(f"the runtime's C interface is unavailable: {error}")


@pytest.fixture
def fact_cache_on(tmp_path, monkeypatch) -> Path:
    """The fact cache on, in a folder of this test's own (XDG_CACHE_HOME); its entries' folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("S2S_NO_CACHE", raising=False)
    return tmp_path / "xdg-cache" / "s2s" / "facts"


# -- the wheel the packaging tests install (testsuite/packaging) ------------------------------
# It lives here, not in a conftest.py of its own: a second module named 'conftest' would shadow
# this one for the tests that import its helpers ('from conftest import sample_dirs').
#: what the copy of the tree the wheel is built from leaves out
WHEEL_IGNORED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                       "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", "*.o", "*.so")


@contextlib.contextmanager
def run_wide_directory(tmp_path_factory, name: str):
    """A folder shared by every worker process of this pytest run, held under an exclusive lock
    (yields (folder, whether it holds a finished build)): under pytest-xdist each worker has its
    own base temp folder, whose parent is the run's, so what one worker builds there the others
    reuse instead of building it again (or racing it). Without xdist: a folder of this session."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield folder, (folder / ".done").exists()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> tuple[Path, Path]:
    """(wheel path, the copy of the source tree it was built from): built once per pytest run
    (shared by the xdist workers) from a copy of the tree (pip builds in the source folder; the
    checkout stays clean)."""
    with run_wide_directory(tmp_path_factory, "wheel") as (root, done):
        if not done:
            shutil.rmtree(root, ignore_errors=True)     # a worker that failed half way
            _build_wheel(root)
            (root / ".done").touch()
        (wheel,) = (root / "wheels").glob("s2s-*.whl")
        return wheel, root / "src"


def _build_wheel(root: Path) -> None:
    root.mkdir(parents=True)
    source = root / "src"
    shutil.copytree(REPO, source, ignore=WHEEL_IGNORED)
    wheels = root / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                            "--no-build-isolation", "-w", str(wheels), str(source)],
                           capture_output=True, text=True)
    if build.returncode != 0 and "No module named 'wheel'" in build.stderr:
        pytest.skip("the 'wheel' package is not installed (pip install -e '.[dev]' brings it)")
    assert build.returncode == 0, build.stderr
