"""A wrapper stopped by SIGTERM, SIGINT or SIGHUP stops its compiler and leaves nothing behind.

The compiler is a stand-in nvcc (a shell script) that records its pid and the pid of a
``sleep`` it waits for, so the test can tell whether the compiler and its own child outlived
the wrapper. The wrapper runs as a separate process (a script that registers a pass which
changes every source, so the rewrite path with its temporary directory is taken), with
TMPDIR pointing at a directory of the test that must be empty afterwards.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

HELPER = """\
import sys
sys.path.insert(0, {repo!r})
from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import registry

def banner(loaded):
    return PassOutput((Edit(loaded.path, 0, 0, "/* rewritten by s2s */\\n"),))

registry.PASSES["fuse"] = banner
sys.exit(main(sys.argv[1:]))
"""

SLOW_NVCC = """\
#!/bin/sh
echo $$ > "{marks}/compiler.pid.tmp" && mv "{marks}/compiler.pid.tmp" "{marks}/compiler.pid"
sleep 60 &
echo $! > "{marks}/sleep.pid.tmp" && mv "{marks}/sleep.pid.tmp" "{marks}/sleep.pid"
wait
"""


def alive(pid: int) -> bool:
    """Is ``pid`` a live process (a zombie nobody reaped yet counts as gone)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def wait_for(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture
def setup(tmp_path):
    marks = tmp_path / "marks"
    bindir = tmp_path / "bin"
    temp = tmp_path / "tmp"
    src = tmp_path / "src"
    for directory in (marks, bindir, temp, src):
        directory.mkdir()
    nvcc = bindir / "nvcc"
    nvcc.write_text(SLOW_NVCC.format(marks=marks))
    nvcc.chmod(0o755)
    (src / "k.cu").write_text("__global__ void k(float *x) { x[0] = 1.0f; }\n")
    helper = tmp_path / "s2s_with_banner.py"
    helper.write_text(HELPER.format(repo=str(REPO)))
    env = dict(os.environ, TMPDIR=str(temp), S2S_REAL_NVCC=str(nvcc))
    for name in ("S2S_WRAPPED", "S2S_PASSES", "S2S_SILENCE", "S2S_VERBOSE"):
        env.pop(name, None)
    return tmp_path, helper, env


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("form", ["nvcc", "launcher"])
@pytest.mark.parametrize("passes", ["fuse", "none"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP],
                         ids=["SIGTERM", "SIGINT", "SIGHUP"])
def test_signal_stops_the_compiler_and_removes_the_temp_dir(setup, signum, passes, form):
    root, helper, env = setup
    compile_args = [f"--s2s-passes={passes}", "-c", str(root / "src" / "k.cu"),
                    "-o", str(root / "k.o")]
    if form == "nvcc":
        argv = ["nvcc", *compile_args]
    else:  # CMake's launcher form: s2s <compiler> <args>
        argv = [compile_args[0], env["S2S_REAL_NVCC"], *compile_args[1:]]
    wrapper = subprocess.Popen([sys.executable, str(helper), *argv], env=env, cwd=root,
                               stderr=subprocess.PIPE)
    try:
        marks = root / "marks"
        started = wait_for(lambda: (marks / "sleep.pid").exists(), 60)
        assert started, wrapper.stderr.read().decode() if wrapper.poll() is not None else ""
        pids = [int((marks / f"{n}.pid").read_text()) for n in ("compiler", "sleep")]
        if passes == "fuse":  # the rewrite path: the copies are in a temp dir now
            assert [p.name[:9] for p in (root / "tmp").iterdir()] == ["s2s-wrap-"]
        wrapper.send_signal(signum)
        code = wrapper.wait(timeout=10)
        assert code == 128 + signum, wrapper.stderr.read().decode()
        assert wait_for(lambda: not any(alive(p) for p in pids), 5), \
            [p for p in pids if alive(p)]
        assert list((root / "tmp").iterdir()) == []
    finally:
        if wrapper.poll() is None:
            wrapper.kill()
            wrapper.wait()
        for name in ("compiler", "sleep"):
            mark = root / "marks" / f"{name}.pid"
            if mark.exists() and alive(int(mark.read_text())):
                os.kill(int(mark.read_text()), signal.SIGKILL)
