"""Faults of an MPI job: a killed rank, a rank whose runtime call fails alone, ranks with different
devices, no mpi4py.  Each ends every rank with a non-zero exit and one message, within seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from mpi_support import build_sample, job_env, missing

from runtime.mpi.launcher import mpirun_command

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))


@pytest.fixture(scope="module")
def hotspot(tmp_path_factory) -> Path:
    return build_sample("hotspot", tmp_path_factory.mktemp("hotspot"))


def _job_processes(marker: str) -> dict[int, str]:
    """pid -> OMPI_COMM_WORLD_RANK of the ranks whose environment holds ``marker``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            env = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"S2S_TEST_JOB={marker}".encode() in env:
            rank = next((e.split(b"=", 1)[1].decode() for e in env if e.startswith(b"OMPI_COMM_WORLD_RANK=")), "")
            if rank:
                found[int(entry.name)] = rank
    return found


def _python_started(pid: int) -> bool:
    try:
        return "libpython" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.parametrize("victim_rank", ["0", "1"])
def test_killed_rank_ends_the_job_within_seconds(hotspot, victim_rank):
    """SIGKILL to one rank (the program's, or a serving one) in the middle of a long run: mpirun and
    the other rank are gone within 10 s, non-zero, and mpirun names the rank."""
    marker = uuid.uuid4().hex
    env = job_env(1, S2S_TEST_JOB=marker)
    proc = subprocess.Popen(mpirun_command(2, [str(hotspot), "500", "300", "1000000"], quiet=False), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        victim = None
        while victim is None and time.monotonic() < deadline:
            ranks = _job_processes(marker)
            started = all(_python_started(pid) for pid in ranks) and len(ranks) == 2
            victim = next((pid for pid, rank in ranks.items() if rank == victim_rank), None) if started else None
            time.sleep(0.2)
        assert victim is not None, "the ranks never started"
        time.sleep(2.0)                          # inside the time loop by now
        assert proc.poll() is None, proc.communicate()
        os.kill(victim, signal.SIGKILL)
        killed = time.monotonic()
        _, stderr = proc.communicate(timeout=30)
        took = time.monotonic() - killed
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode != 0
    assert took < 10, took
    said = [line for line in stderr.splitlines() if f"rank {victim_rank}" in line]
    assert len(said) == 1 and "exited on signal 9 (Killed)" in said[0], stderr
    time.sleep(0.5)
    assert _job_processes(marker) == {}, "a rank outlived the job"


def test_rank_that_fails_alone_ends_the_job_with_its_message(hotspot, tmp_path):
    """Rank 1's compiler fails (rank 0's works): one line naming rank 1 and the failure, exit non-zero."""
    env = job_env(1)
    command = mpirun_command(2, [str(hotspot), "64", "64", "2"],
                             [{}, {"S2S_CXX": "/bin/false", "S2S_CPU_CACHE": str(tmp_path / "cache")}])
    start = time.monotonic()
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert time.monotonic() - start < 60
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("s2s-runtime: rank 1: error: load_module: building the emulator"), lines


def test_different_device_counts_are_refused_at_start(hotspot):
    command = mpirun_command(2, [str(hotspot), "64", "64", "2"], [{"S2S_DEVICES": "1"}, {"S2S_DEVICES": "2"}])
    proc = subprocess.run(command, env=job_env(1), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""                     # main never ran
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines == ["s2s-runtime: error: the ranks have different devices (rank 0: 1 cpu device(s), "
                     "rank 1: 2 cpu device(s)); every rank needs the same backend and device count "
                     "(S2S_BACKEND, S2S_DEVICES, GPUs per node)"], proc.stderr


def test_missing_mpi4py_is_said_once_at_start(hotspot, tmp_path):
    """mpirun with a Python where mpi4py cannot be imported (a stand-in package that fails)."""
    fake = tmp_path / "nompi" / "mpi4py"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ImportError("No module named \'mpi4py\'")\n')
    proc = subprocess.run(
        mpirun_command(2, [str(hotspot), "64", "64", "2"]), capture_output=True, text=True, timeout=120,
        env=job_env(1, S2S_RUNTIME_PYTHONPATH=str(fake.parent)))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "mpi4py" in lines[0] and "with 2 processes" in lines[0], proc.stderr
