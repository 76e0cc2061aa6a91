"""Shared fixtures: in-memory parsing and the sample catalogue."""

from __future__ import annotations

import os
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
        from s2s.frontend.parse import ParseOptions

        return load(name, ParseOptions(**options), source=text.encode())

    return _load
