"""What a rewritten program's start costs the runtime (issue 30 item 5): no islpy for a one-device
run, compiler identities asked once and remembered (runtime/cpu/compiler.py, ``tool_output``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from runtime.cpu.compiler import tool_output

REPO = Path(__file__).resolve().parents[2]


def _fake_compiler(path: Path, version: str, status: int = 0) -> Path:
    """A 'compiler' that counts its runs in ``path``.runs and prints ``version``."""
    path.write_text(f"#!/bin/sh\necho run >> '{path}.runs'\necho '{version}'\nexit {status}\n")
    path.chmod(0o755)
    return path


def _runs(path: Path) -> int:
    runs = Path(f"{path}.runs")
    return len(runs.read_text().splitlines()) if runs.exists() else 0


def test_a_compilers_identity_is_asked_once_until_the_compiler_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("S2S_CPU_CACHE", str(tmp_path / "cache"))
    cxx = _fake_compiler(tmp_path / "cxx", "cxx 1.0")
    assert tool_output(str(cxx), "--version") == "cxx 1.0\n"
    assert tool_output(str(cxx), "--version") == "cxx 1.0\n"
    assert _runs(cxx) == 1
    assert tool_output(str(cxx), "-dumpmachine") == "cxx 1.0\n"     # other arguments: asked
    assert _runs(cxx) == 2
    _fake_compiler(cxx, "cxx 2.0 (updated in place)")
    assert tool_output(str(cxx), "--version") == "cxx 2.0 (updated in place)\n"
    assert _runs(cxx) == 3


def test_a_failed_identity_run_is_not_remembered(tmp_path, monkeypatch):
    monkeypatch.setenv("S2S_CPU_CACHE", str(tmp_path / "cache"))
    cxx = _fake_compiler(tmp_path / "cxx", "broken", status=1)
    tool_output(str(cxx), "--version")
    tool_output(str(cxx), "--version")
    assert _runs(cxx) == 2


PROBE = """
import json, sys
from types import SimpleNamespace
from runtime import capi
handle = capi._register({"k": SimpleNamespace(params=[None, None])})
model = {"kernel": "k", "params": ["a", "n"], "partitionable": False, "reason": "atomics",
         "arrays": {"a": {"elem_size": 4, "read": "[n] -> { [bx, tx] -> a[i] : i = tx }", "write": None}}}
capi.set_access(handle, "k", json.dumps(model))
access = capi._state["access"][(handle, "k")]
print(json.dumps({"isl": "islpy" in sys.modules, "type": type(access).__name__,
                  "partitionable": access.partitionable, "reason": access.reason}))
"""


def _probe(devices: int) -> dict:
    env = dict(os.environ, S2S_BACKEND="cpu", S2S_DEVICES=str(devices), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_one_device_program_does_not_import_isl_for_its_access_models():
    assert _probe(1) == {"isl": False, "type": "OneDeviceModel", "partitionable": False, "reason": "atomics"}
    assert _probe(2) == {"isl": True, "type": "KernelAccess", "partitionable": False, "reason": "atomics"}
