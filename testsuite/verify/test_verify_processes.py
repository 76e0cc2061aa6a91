"""``s2s verify`` and the processes it starts (issue 32, item 4).

A daemon the program forks (``setsid``, holding stdout) is killed when the run ends and does
not make verify wait for the timeout; output is kept up to a bound (the rest is counted, said,
and costs no memory); the compiler of a build and what it started die with verify on SIGTERM
and SIGINT, and verify's temporary folders are removed then and at a timeout; ``__FILE__`` and
``__LINE__`` print the same in both builds. Each test failed before.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from s2s.verify import bounded_run
from testsuite.verify.test_verify_runs import (  # noqa: F401  (fixtures)
    alive,
    cuda_toolchain,
    kill_all,
    omp_toolchain,
    passes,
    program,
    survivors,
    verify,
)

DAEMON = """\
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
/* forks a daemon that leaves the process group and keeps stdout open */
int main(int argc, char **argv) {
  int ready[2];
  char byte = 0;
  printf("result 42\\n");
  fflush(stdout);
  if (pipe(ready) != 0) return 2;
  if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      FILE *out = fopen(argv[1], "a");
      fprintf(out, "%d\\n", (int)getpid());
      fclose(out);
      if (write(ready[1], "x", 1) != 1) return 2;
      sleep(100);
    }
    return 0;
  }
  /* the daemon runs (and has said its pid) before the program exits */
  if (read(ready[0], &byte, 1) != 1) return 2;
  return 0;
}
"""

PRINTS_A_LOT = """\
#include <stdio.h>
int main(void) {
  for (int i = 0; i < 100000; i++) printf("line %d of a long output\\n", i);
  return 0;
}
"""

CUDA_PRINTS_WHERE = """\
#include <cstdio>
#include <cuda_runtime.h>
__global__ void twice(float *x)
{
  x[threadIdx.x] *= 2.0f;
}
int main() {
  float host[4] = {1, 2, 3, 4}, *dev;
  cudaMalloc(&dev, sizeof host);
  cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice);
  twice<<<1, 4>>>(dev);
  cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
  cudaFree(dev);
  printf("%s:%d %g\\n", __FILE__, __LINE__, host[3]);
  return 0;
}
"""


def test_a_daemon_holding_stdout_neither_delays_the_run_nor_outlives_it():
    started = time.monotonic()
    proc = bounded_run.run_process(
        ["sh", "-c", "setsid sleep 100 & sleep 100 & echo $!; echo done"], timeout=30)
    pid = int(proc.stdout.split()[0])
    try:
        assert proc.returncode == 0 and proc.stdout.split()[1] == "done"
        assert time.monotonic() - started < 20  # not the timeout: the shell exited at once
        assert survivors([pid]) == []
    finally:
        kill_all([pid])


@pytest.mark.usefixtures("omp_toolchain")
def test_verify_kills_the_programs_daemon_and_compares(capsys, tmp_path):
    pid_file = tmp_path / "pids"
    code, out, err = verify(capsys, "--passes", "same", "--timeout", "60", "--args",
                            str(pid_file), program(tmp_path, DAEMON))
    pids = [int(word) for word in pid_file.read_text().split()]
    try:
        assert code == 0 and "ran longer" not in err, err
        assert len(pids) == 2 and survivors(pids) == []
    finally:
        kill_all(pids)


def test_output_past_the_bound_is_counted_not_kept():
    proc = bounded_run.run_process(["sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x; "
                                    "echo tail >&2"], timeout=60, limit=1000)
    assert proc.stdout == "x" * 1000 and proc.dropped == {"stdout": 2999000, "stderr": 0}
    assert proc.stderr == "tail\n"


def test_a_quarter_gigabyte_printed_costs_no_quarter_gigabyte_of_memory():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    proc = bounded_run.run_process(["head", "-c", str(256 << 20), "/dev/zero"], timeout=120)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert proc.returncode == 0 and proc.dropped["stdout"] == (256 << 20) - bounded_run.OUTPUT_LIMIT
    assert grown < 160 << 10, f"memory grew by {grown >> 10} MiB"


@pytest.mark.usefixtures("omp_toolchain")
def test_verify_says_when_the_output_was_truncated(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(bounded_run, "OUTPUT_LIMIT", 4096)
    code, out, err = verify(capsys, "--passes", "same", program(tmp_path, PRINTS_A_LOT))
    assert code == 0, err
    assert "[verify-output-truncated]" in err and "the original program printed" in err


@pytest.mark.usefixtures("cuda_toolchain")
def test_file_and_line_print_the_same_in_both_cuda_builds(capsys, tmp_path):
    source = program(tmp_path, CUDA_PRINTS_WHERE, "where.cu")
    code, out, err = verify(capsys, "--passes", "same", source)
    assert code == 0 and "outputs: identical" in out, err


# ----------------------------------------------------------------- signals during the build

FAKE_COMPILER = """\
#!/bin/sh
# stands in for clang-16: the build of slow.c starts a child and hangs; others are real
for arg in "$@"; do
  case "$arg" in
    *slow.c) sleep 300 & echo "$$ $!" > "$PIDS"; wait; exit 1 ;;
  esac
done
exec {real} "$@"
"""


def _sigint_default() -> None:
    """A background job of a shell starts with SIGINT ignored, and Python then installs no
    KeyboardInterrupt for it: the child gets the default, as in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.usefixtures("omp_toolchain")
def test_a_signal_during_the_build_kills_the_compiler_and_removes_the_temp(tmp_path, signum):
    bin_dir, temp = tmp_path / "bin", tmp_path / "tmp"
    bin_dir.mkdir()
    temp.mkdir()
    fake = bin_dir / "clang-16"
    fake.write_text(FAKE_COMPILER.format(real="/usr/bin/clang-16"
                                         if os.path.exists("/usr/bin/clang-16") else "clang-16"))
    fake.chmod(0o755)
    source = program(tmp_path, "int main(void) { return 0; }\n", "slow.c")
    pid_file = tmp_path / "pids"
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", PIDS=str(pid_file),
               TMPDIR=str(temp))
    proc = subprocess.Popen([sys.executable, "-m", "s2s", "verify", "--passes", "omp",
                             str(source)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_sigint_default)
    pids: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while not pid_file.exists() or len(pid_file.read_text().split()) < 2:
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
            time.sleep(0.05)
        pids = [int(word) for word in pid_file.read_text().split()]
        proc.send_signal(signum)
        assert proc.wait(timeout=60) == 128 + signum
        assert survivors(pids) == []
        assert [p.name for p in temp.iterdir() if p.name.startswith("s2s-verify-")] == []
    finally:
        kill_all(pids)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()


@pytest.mark.usefixtures("omp_toolchain")
def test_a_timeout_removes_the_temp_folder(capsys, tmp_path, monkeypatch):
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    source = program(tmp_path, "#include <unistd.h>\nint main(void) { sleep(100); return 0; }\n")
    code, _, err = verify(capsys, "--passes", "same", "--timeout", "1", source)
    assert code == 1 and "ran longer than 1 s" in err
    assert [p.name for p in temp.iterdir() if p.name.startswith("s2s-verify-")] == []



def test_runs_on_other_threads_are_not_killed_as_leftovers():
    """The corpus test builds programs in a thread pool: the end of one run killed every
    process marked by this s2s process, the compilers of the other threads too (their builds
    failed with an empty stderr). The mark is per thread."""
    import concurrent.futures

    from s2s.verify.bounded_run import run_process

    def slow():
        return run_process(["sh", "-c", "sleep 1.5; echo done"], timeout=30)

    def quick():
        return run_process(["sh", "-c", "echo quick"], timeout=30)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        waiting = pool.submit(slow)
        assert pool.submit(quick).result().stdout.strip() == "quick"
        assert waiting.result().stdout.strip() == "done"


DAEMON_WITHOUT_ENVIRONMENT = """\
import os, sys, time
# a daemon of the careful kind: double fork, its own session, an empty environment
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(sys.argv[1] + ".tmp", "w") as out:
            out.write(f"{os.getpid()}\\n")
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
        os.execve("/bin/sleep", ["sleep", "300"], {})
    os._exit(0)
while not os.path.exists(sys.argv[1]):  # the daemon runs before the program exits
    time.sleep(0.01)
print("started", flush=True)
"""


def test_a_daemon_that_sheds_session_and_environment_dies_with_the_run(tmp_path):
    """Verify's run mark was an environment variable: a daemon that calls ``setsid`` and
    clears its environment escaped both the process group and the mark, and ran on after
    verify. The program now runs under a child subreaper (s2s/verify/reaper.py): the daemon
    is re-parented to it, whatever it did to itself, and killed when the program ends."""
    pid_file = tmp_path / "pid"
    script = tmp_path / "daemon.py"
    script.write_text(DAEMON_WITHOUT_ENVIRONMENT)
    proc = bounded_run.run_process([sys.executable, str(script), str(pid_file)], timeout=60)
    assert proc.returncode == 0 and proc.stdout == "started\n", proc.stderr
    pid = int(pid_file.read_text())
    try:
        assert survivors([pid]) == [], f"daemon {pid} outlived the run"
    finally:
        kill_all([pid])
