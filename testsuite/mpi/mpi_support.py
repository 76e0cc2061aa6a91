"""Build ``s2s mgpu`` rewrites of CUDA samples and run them as MPI jobs on localhost (a plain module,
not a conftest: see testsuite/runtime/rt_support.py).  Also used by scripts/bench_mpi.py."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

from runtime.mpi.launcher import mpirun_command, mpirun_env
from s2s.driver import RunOptions, Success, process_file
from s2s.output import write_rewritten
from s2s.transform.mgpu import run_mgpu
from s2s.wrapper.runtime_flags import mgpu_runtime_flags

REPO = Path(__file__).resolve().parents[2]
CUDA_SAMPLES = REPO / "samples" / "cuda"
NVCC = shutil.which("nvcc")
MPIRUN = shutil.which("mpirun")
HAVE_MPI4PY = importlib.util.find_spec("mpi4py") is not None


def missing() -> str | None:
    """Why the MPI tests cannot run here, or None."""
    if NVCC is None:
        return "nvcc not found on PATH"
    if MPIRUN is None:
        return "mpirun not found (scripts/setup.sh installs openmpi-bin)"
    if not HAVE_MPI4PY:
        return "mpi4py not installed (pip install -e '.[dev]')"
    return None


def build_sample(name: str, work: Path) -> Path:
    """The sample rewritten by s2s mgpu and built with nvcc against the runtime's C library."""
    return build_source(CUDA_SAMPLES / name / f"{name}.cu", work)


def build_source(path: Path, work: Path) -> Path:
    """The CUDA file ``path`` rewritten by s2s mgpu and built with nvcc against the runtime."""
    name = path.stem
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert isinstance(result, Success), [d.headline() for d in result.diagnostics]
    source = work / f"{name}.cu"
    write_rewritten(result.change, result.generated, str(source))   # and its kernel table
    flags = mgpu_runtime_flags()
    exe = work / name
    command = ["nvcc", "-std=c++17", "-arch=sm_90", *flags.compile, str(source), *flags.link, "-o", str(exe)]
    proc = subprocess.run(command, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def job_env(devices: int, stats: Path | None = None, **extra: str) -> dict[str, str]:
    env = mpirun_env()
    env.update(S2S_BACKEND="cpu", S2S_DEVICES=str(devices), S2S_CPU_THREADS="1", **extra)
    if stats is not None:
        env["S2S_STATS"] = str(stats)
    return env


def run_single(exe: Path, devices: int, args=(), stats: Path | None = None) -> tuple[str, dict | None]:
    """The program as one process (no MPI) on ``devices`` cpu devices."""
    proc = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                          env=job_env(devices, stats), timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, json.loads(stats.read_text()) if stats is not None else None


def run_job(exe: Path, ranks: int, devices: int, args=(), stats: Path | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
    """``mpirun -np ranks exe args`` with ``devices`` cpu devices per rank."""
    command = mpirun_command(ranks, [str(exe), *map(str, args)])
    return subprocess.run(command, capture_output=True, text=True, env=job_env(devices, stats),
                          timeout=timeout, cwd=exe.parent)


def rank_of(link_end: str) -> int:
    """The rank of one end of a statistics link (``host`` is rank 0's; devices are ``r<rank>.cpu<k>``)."""
    return 0 if link_end == "host" else int(link_end[1:link_end.index(".")])


def cross_rank_bytes(links: dict[str, int]) -> int:
    """Bytes of a statistics link table that moved between two ranks."""
    total = 0
    for link, nbytes in links.items():
        source, target = link.split("->")
        if rank_of(source) != rank_of(target):
            total += nbytes
    return total


def sent_between_ranks(stats: dict, phase: str) -> int:
    """Bytes the ranks' MPI layer counted as sent during ``phase`` (measured, not planned)."""
    return sum(n for counters in stats["mpi"]["per_rank"] for key, n in counters["sent"].items()
               if key.split("->")[0] == phase)

