"""``s2s verify``: how the two versions are run and what counts as the same behaviour.

Output lines left out of the comparison (``--ignore-lines``), the same ``argv[0]`` for both
versions, failures that are identical in both versions (the original itself fails, or crashes:
nothing about the rewrite is shown), a hung program's forked children killed with it at
``--timeout``, and command-line mistakes reported as usage errors. The OpenMP programs are
built with clang-16's host offload; the CUDA ones run through the host shim. Each test failed
before these were handled.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import registry
from s2s.verify import omp_harness
from testsuite.verify.test_cuda_verify import verify, verify_json

TIMED = """\
#include <stdio.h>
int main(void) {
  printf("start\\n");
  printf("Time: 0.0123 s\\n");
  printf("result %d\\n", 42);
  return 0;
}
"""

PRINTS_ITS_NAME = """\
#include <stdio.h>
int main(int argc, char **argv) {
  printf("usage: %s N\\n", argv[0]);
  return 0;
}
"""

FAILS = """\
#include <stdio.h>
int main(void) {
  printf("cannot open input\\n");
  return 3;
}
"""

CRASHES = """\
#include <signal.h>
#include <stdio.h>
int main(void) {
  printf("before the crash\\n");
  fflush(stdout);
  raise(SIGSEGV);
  return 0;
}
"""

#: the parent writes its pid and its forked child's to argv[1], then both sleep far past the
#: timeout; a grandchild started through sh in the background as well
FORKS_AND_HANGS = """\
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
  pid_t child = fork();
  if (child == 0) { sleep(100); return 0; }
  FILE *out = fopen(argv[1], "a");
  fprintf(out, "%d %d\\n", (int)getpid(), (int)child);
  fclose(out);
  char command[4200];
  snprintf(command, sizeof command, "sleep 100 & echo $! >> '%s'", argv[1]);
  system(command);
  sleep(100);
  return 0;
}
"""

CUDA_PRINTS_ITS_NAME = """\
#include <cstdio>
#include <cuda_runtime.h>
__global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }
int main(int argc, char **argv) {
  float host[4] = {1, 2, 3, 4}, *dev;
  cudaMalloc(&dev, sizeof host);
  cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice);
  twice<<<1, 4>>>(dev);
  cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
  cudaFree(dev);
  printf("%s %g\\n", argv[0], host[3]);
  return argc > 1 ? 4 : 0;
}
"""


def replacing(old: bytes, new: str):
    def run_pass(loaded):
        at = loaded.source.find(old)
        return PassOutput(() if at < 0 else (Edit(loaded.path, at, len(old), new),))
    return run_pass


@pytest.fixture
def omp_toolchain():
    problem = omp_harness.toolchain_problem()
    if problem:
        pytest.skip(problem)


@pytest.fixture
def cuda_toolchain(monkeypatch):
    if shutil.which("g++") is None:
        pytest.skip("no g++ to build CUDA host code against the shim")
    from runtime.capi_build import build_library
    from runtime.errors import BackendUnavailable

    try:
        build_library()
    except BackendUnavailable as error:
        pytest.skip(f"the runtime's C interface is unavailable: {error}")
    monkeypatch.setenv("S2S_CPU_THREADS", "2")


@pytest.fixture(autouse=True)
def passes(monkeypatch):
    """``same`` changes nothing; ``slower`` changes only the timing; ``wrong`` the result."""
    monkeypatch.setitem(registry.PASSES, "same", lambda loaded: PassOutput(()))
    monkeypatch.setitem(registry.PASSES, "slower", replacing(b"0.0123", "0.0456"))
    monkeypatch.setitem(registry.PASSES, "wrong", replacing(b", 42)", ", 43)"))


def program(tmp_path: Path, text: str, name: str = "prog.c") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# --------------------------------------------------------------------------
# --ignore-lines
# --------------------------------------------------------------------------


def test_ignored_lines_are_not_compared(capsys, tmp_path, omp_toolchain):
    source = program(tmp_path, TIMED)
    code, _, err = verify(capsys, "--passes", "slower", source)
    assert code == 1 and "line 2: expected 'Time: 0.0123 s', got 'Time: 0.0456 s'" in err
    code, out, err = verify(capsys, "--passes", "slower", "--ignore-lines", r"^Time: [\d.]+ s$",
                            source)
    assert code == 0, err
    assert "outputs: identical; verdict: OK" in out
    # The other lines are still compared, and keep their line numbers.
    code, _, err = verify(capsys, "--passes", "slower,wrong", "--ignore-lines", "^Time:",
                          "--ignore-lines", "never matches", source)
    assert code == 1
    assert "line 3: expected 'result 42', got 'result 43' [verify-output]" in err


def test_output_differences_leave_out_ignored_lines():
    ignore = [r"^Time:"]
    assert omp_harness.output_differences("a\nTime: 1\nb\n", "a\nTime: 2\nb\n", ignore=ignore) == []
    assert omp_harness.output_differences("a\nTime: 1\nb\n", "a\nb\n", ignore=ignore) == []
    assert omp_harness.output_differences("Time: 1\nx 1\n", "x 2\n", ignore=ignore) == [
        "line 2: expected 'x 1', got 'x 2' (its line 1)"]
    assert omp_harness.output_differences("a\nTime: 1\nb\n", "a\n", ignore=ignore) == [
        "line count differs: expected 2, got 1, not counting ignored lines "
        "(first missing line 3: 'b')"]
    # Without patterns nothing changes.
    assert omp_harness.output_differences("a\nTime: 1\n", "a\nTime: 2\n") == [
        "line 2: expected 'Time: 1', got 'Time: 2'"]


def test_invalid_pattern_is_a_usage_error(capsys, tmp_path):
    code, out, err = verify(capsys, "--ignore-lines", "Time: (", program(tmp_path, TIMED))
    assert code == 2 and out == ""
    assert "error: --ignore-lines 'Time: (' is not a valid regular expression: missing ), " \
           "unterminated subpattern at position 6 [usage]" in err
    assert "Traceback" not in err


# --------------------------------------------------------------------------
# --args
# --------------------------------------------------------------------------


def test_unbalanced_quote_in_args_is_a_usage_error(capsys, tmp_path):
    code, out, err = verify(capsys, "--args", 'a "b', program(tmp_path, TIMED))
    assert code == 2 and out == ""
    assert "error: --args 'a \"b' is not a shell-quoted argument list: no closing quotation " \
           "[usage]" in err
    code, _, err = verify(capsys, "--args", "a\\", program(tmp_path, TIMED))
    assert code == 2 and "no escaped character [usage]" in err


# --------------------------------------------------------------------------
# argv[0]
# --------------------------------------------------------------------------


def test_both_versions_run_under_one_name(capsys, tmp_path, omp_toolchain):
    code, out, err = verify(capsys, "--passes", "same", program(tmp_path, PRINTS_ITS_NAME))
    assert code == 0, err
    assert "outputs: identical; verdict: OK" in out


def test_run_with_a_given_argv0(tmp_path, omp_toolchain):
    source = program(tmp_path, PRINTS_ITS_NAME)
    omp_harness.build(source, tmp_path / "built")
    assert omp_harness.run(tmp_path / "built", argv0="./prog").stdout == "usage: ./prog N\n"
    assert omp_harness.run(tmp_path / "built").stdout == f"usage: {tmp_path / 'built'} N\n"


def test_cuda_versions_run_under_one_name(capsys, tmp_path, cuda_toolchain):
    source = program(tmp_path, CUDA_PRINTS_ITS_NAME, "name.cu")
    code, [verdict], err = verify_json(capsys, "--passes", "same", source)
    assert code == 0, err
    assert verdict["ok"] and verdict["differences"] == []


# --------------------------------------------------------------------------
# failures alike in both versions
# --------------------------------------------------------------------------


def test_an_original_that_fails_is_not_verified(capsys, tmp_path, omp_toolchain):
    code, out, err = verify_json(capsys, "--passes", "same", program(tmp_path, FAILS))
    assert code == 1 and not out[0]["ok"] and out[0]["differences"] == []
    assert "error: the original program exits with 3: nothing to compare (the rewritten one " \
           "exits with it too) [verify-original-fails]" in err
    assert "[verify-exit-status]" not in err


def test_identical_crashes_fail(capsys, tmp_path, omp_toolchain):
    code, out, err = verify(capsys, "--passes", "same", program(tmp_path, CRASHES))
    assert code == 1 and "verdict: FAILED" in out
    assert "error: the original program was killed by signal 11 (SIGSEGV) " \
           "[verify-signal-original]" in err
    assert "error: the rewritten program was killed by signal 11 (SIGSEGV) " \
           "[verify-signal-rewritten]" in err
    assert "[verify-original-fails]" not in err and "[verify-exit-status]" not in err


def test_a_crash_of_the_rewrite_alone_says_so(capsys, tmp_path, omp_toolchain, monkeypatch):
    monkeypatch.setitem(registry.PASSES, "crash", replacing(b"return 0;", "raise(SIGSEGV);"))
    source = program(tmp_path, CRASHES.replace("  raise(SIGSEGV);\n", ""))
    code, _, err = verify(capsys, "--passes", "crash", source)
    assert code == 1 and "exit status differs: original 0, rewritten -11" in err
    assert "[verify-signal-rewritten]" in err and "[verify-signal-original]" not in err


def test_cuda_original_that_fails_is_not_verified(capsys, tmp_path, cuda_toolchain):
    source = program(tmp_path, CUDA_PRINTS_ITS_NAME, "name.cu")
    code, _, err = verify(capsys, "--passes", "same", "--args", "x", source)
    assert code == 1 and "the original program exits with 4: nothing to compare" in err


# --------------------------------------------------------------------------
# --timeout kills what the program forked
# --------------------------------------------------------------------------


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def survivors(pids: list[int], wait: float = 5.0) -> list[int]:
    """The ``pids`` still running after up to ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_timeout_kills_the_forked_children_too(capsys, tmp_path, omp_toolchain):
    pid_file = tmp_path / "pids"
    source = program(tmp_path, FORKS_AND_HANGS)
    started = time.monotonic()
    code, _, err = verify(capsys, "--passes", "same", "--timeout", "2", "--args", str(pid_file),
                          source)
    pids = [int(word) for word in pid_file.read_text().split()]
    try:
        assert time.monotonic() - started < 60
        assert code == 1 and "the original program ran longer than 2 s" in err
        assert "the rewritten program ran longer than 2 s" in err
        assert len(pids) == 6  # parent, child and grandchild of each version
        assert survivors(pids) == []
    finally:
        kill_all(pids)


def test_background_children_die_when_the_program_ends(tmp_path):
    proc = omp_harness.run_process(
        ["sh", "-c", "sleep 100 >/dev/null 2>&1 & echo $!"], timeout=30)
    pid = int(proc.stdout)
    try:
        assert proc.returncode == 0 and survivors([pid]) == []
    finally:
        kill_all([pid])
