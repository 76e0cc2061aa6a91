"""``s2s --version`` imports nothing of the tool (issue 30, item 4): the console script's entry
answers it before s2s.cli.main and its passes are imported. Checked by what is imported, not
by timing (the wall time is in docs/benchmarks.md)."""

from __future__ import annotations

import subprocess
import sys

from s2s import __version__

PROBE = """\
import sys
sys.argv = [{name!r}, "--version"]
from s2s.cli import entry
code = entry.main()
heavy = sorted(m for m in sys.modules if m.startswith(("s2s.cli.main", "s2s.driver",
               "s2s.transform", "s2s.analysis", "islpy", "clang")))
print("heavy:", ",".join(heavy))
raise SystemExit(code)
"""


def _probe(name: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE.format(name=name)], capture_output=True,
                          text=True, timeout=120)


def test_version_is_answered_without_importing_the_tool():
    done = _probe("/usr/local/bin/s2s")
    assert done.returncode == 0, done.stderr
    assert f"s2s {__version__}" in done.stdout
    assert "heavy: \n" in done.stdout or done.stdout.rstrip().endswith("heavy:")


def test_a_wrapper_symlink_named_nvcc_still_goes_to_the_tool():
    """Installed as a symlink named nvcc, ``nvcc --version`` is nvcc's question, not ours."""
    done = _probe("/opt/bin/nvcc")
    assert "s2s.cli.main" in done.stdout
