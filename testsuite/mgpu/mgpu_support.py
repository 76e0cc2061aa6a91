"""Rewrite a CUDA file with ``s2s mgpu``, build it with nvcc against the runtime's C library, run it on
emulated cpu devices (a plain module, not a conftest: see testsuite/runtime/rt_support.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import tomllib

from s2s.driver import RunOptions, Success, process_file
from s2s.output import write_rewritten
from s2s.transform.mgpu import run_mgpu
from s2s.wrapper.runtime_flags import mgpu_runtime_flags

REPO = Path(__file__).resolve().parents[2]
CUDA_SAMPLES = REPO / "samples" / "cuda"
NVCC = shutil.which("nvcc")


def _runner():
    spec = importlib.util.spec_from_file_location("run_cuda_samples", REPO / "scripts" / "run_cuda_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compare_outputs = _runner().compare_outputs


def sample_meta(name: str) -> dict:
    with open(CUDA_SAMPLES / name / "sample.toml", "rb") as handle:
        return tomllib.load(handle)


def rewrite(path: Path, out_dir: Path) -> tuple[Path, Success]:
    """The rewritten file (written to out_dir) and the pass result (diagnostics)."""
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert isinstance(result, Success), [d.headline() for d in result.diagnostics]
    out = out_dir / path.name
    write_rewrite(result, out)
    return out, result


def write_rewrite(result: Success, out: Path) -> Path:
    """Write the rewritten source to ``out`` and the files generated with it (its kernel
    table) beside it, under their own names (the source includes them by name)."""
    write_rewritten(result.change, result.generated, str(out))
    return out


def table_text(result: Success) -> str:
    """The kernel table the pass generated for the file (one generated file)."""
    (table,) = result.generated
    return table.after.decode()


def build(source: Path, exe: Path, extra: list[str] | None = None) -> Path:
    flags = mgpu_runtime_flags()
    command = [NVCC, "-std=c++17", "-arch=sm_90", *flags.compile, *(extra or []), str(source), *flags.link,
               "-o", str(exe)]
    proc = subprocess.run(command, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def run(exe: Path, devices: int, args=(), stats: Path | None = None) -> tuple[str, dict | None]:
    """stdout of the program on ``devices`` cpu devices, and the runtime's statistics."""
    env = dict(os.environ, S2S_BACKEND="cpu", S2S_DEVICES=str(devices), S2S_CPU_THREADS="2")
    if stats is not None:
        env["S2S_STATS"] = str(stats)
    proc = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(stats.read_text()) if stats is not None else None
    return proc.stdout, data


def device_bytes(launch: dict) -> int:
    """Bytes the launch moved between devices (host links excluded)."""
    return sum(n for link, n in launch["links"].items() if not link.startswith("host"))
