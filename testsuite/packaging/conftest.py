"""The wheel the packaging tests install: built once per session from a copy of the tree
(pip builds in the source folder; the checkout stays clean)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
IGNORED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                                 ".pytest_cache", ".ruff_cache", ".hypothesis", "*.o", "*.so")


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> tuple[Path, Path]:
    """(wheel path, the copy of the source tree it was built from)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "src"
    shutil.copytree(REPO, source, ignore=IGNORED)
    wheels = root / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                            "--no-build-isolation", "-w", str(wheels), str(source)],
                           capture_output=True, text=True)
    if build.returncode != 0 and "No module named 'wheel'" in build.stderr:
        pytest.skip("the 'wheel' package is not installed (pip install -e '.[dev]' brings it)")
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("s2s-*.whl")
    return wheel, source
