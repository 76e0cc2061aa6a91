"""Workers that run cases in child processes, with CPU limits and crash detection;
the worker's own entry point."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from s2s.verify.fuzz.cases import Case, CaseOptions, make_case, run_inprocess, run_subprocess
from s2s.verify.fuzz.checks import Failure, last_line, signal_name, tail
from s2s.verify.fuzz.corpus import DEFAULT_CASE_TIMEOUT, REPO_ROOT, SAMPLES_ROOT
from s2s.verify.fuzz.steps import CaseResult, known_defect, run_case

# --------------------------------------------------------------------------------------------
# Workers: cases in-process in child processes, with time limits and crash detection
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FuzzConfig:
    case_options: CaseOptions = CaseOptions()
    case_timeout: float = DEFAULT_CASE_TIMEOUT
    verify_timeout: float = 10.0
    keep: str | None = None  # keep every case's directory under here (else only failures')
    samples: str = str(SAMPLES_ROOT)

    def to_json(self) -> dict:
        data = asdict(self)
        data["case_options"]["force_verify"] = sorted(self.case_options.force_verify)
        data["case_options"]["force_subprocess"] = sorted(self.case_options.force_subprocess)
        return data

    @classmethod
    def from_json(cls, data: dict) -> FuzzConfig:
        co = dict(data["case_options"])
        co["force_verify"] = frozenset(co["force_verify"])
        co["force_subprocess"] = frozenset(co["force_subprocess"])
        return cls(CaseOptions(**co), data["case_timeout"], data["verify_timeout"],
                   data["keep"], data["samples"])


def _case_env(case: Case) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("S2S_SILENCE", None)
    env.pop("S2S_CUDA_PATH", None)
    env["S2S_FUSE_NVCC"] = "1" if case.nvcc else "0"
    return env


def execute(request: dict, config: FuzzConfig, on_step: Callable[[str], None]) -> CaseResult:
    """Run one request (``{"seed": N}``, optionally with ``data`` (base64) and ``only``)."""
    case = make_case(request["seed"], config.case_options, Path(config.samples))
    if "data" in request:
        case.mutant.data = base64.b64decode(request["data"])
    if "force" in request:  # minimisation: the same steps as the failing case
        for key, value in request["force"].items():
            setattr(case, key, value)
    env = _case_env(case)
    if case.subprocess or request.get("subprocess"):
        # wall limit far off: the watchdog judges the run by its CPU time (Watchdog)
        runner = lambda argv: run_subprocess(  # noqa: E731
            argv, config.case_timeout * Watchdog.WALL_FACTOR, env)
    else:
        os.environ.clear()
        os.environ.update(env)
        runner = run_inprocess
    root = Path(tempfile.mkdtemp(prefix=f"s2s-fuzz-{case.seed}-"))
    result = None
    try:
        result = run_case(case, root, runner, on_step, request.get("only"),
                          config.verify_timeout)
        return result
    finally:
        if config.keep and (result is None or result.failures or request.get("keep")):
            dest = Path(config.keep) / f"seed-{case.seed}"
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(root, dest, symlinks=True)
        shutil.rmtree(root, ignore_errors=True)


def worker_main(config_json: str) -> int:
    """``python -m s2s.verify.fuzz worker CONFIG``: one request per stdin line, JSON replies."""
    config = FuzzConfig.from_json(json.loads(config_json))
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # stray writes to fd 1 must not corrupt the protocol
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115

    def say(message: dict) -> None:
        proto.write(json.dumps(message) + "\n")
        proto.flush()

    import s2s.cli.main  # noqa: F401  (import once, before the first case is timed)

    say({"ready": True})
    for line in sys.stdin:
        request = json.loads(line)
        if "selftest" in request:  # the pool's own tests: crash, hang or crawl on purpose
            say({"step": f"selftest {request['selftest']}"})
            _selftest(request, say)
            continue
        try:
            result = execute(request, config, lambda step: say({"step": step}))
            say({"result": result.to_json()})
        except Exception:  # noqa: BLE001 - a bug of the fuzzer: report it, keep going
            say({"error": traceback.format_exc()})
    return 0


def _selftest(request: dict, say: Callable[[dict], None]) -> None:
    """The pool's own tests: ``segv`` crashes, ``hang`` waits forever (no CPU), ``spin`` works
    forever, ``crawl`` runs ``seconds`` of wall time on a sliver of CPU (a loaded machine) and
    then answers."""
    kind = request["selftest"]
    if kind == "segv":
        import ctypes

        ctypes.string_at(0)
    end = time.monotonic() + request.get("seconds", 3600.0)
    while time.monotonic() < end:
        if kind == "spin":
            continue
        busy = time.process_time() + 0.01
        while kind == "crawl" and time.process_time() < busy:
            pass
        time.sleep(0.2 if kind == "crawl" else 1.0)
    say({"result": CaseResult(-1, f"selftest {kind}", []).to_json()})


class Worker:
    def __init__(self, config: FuzzConfig):
        self.config = config
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "s2s.verify.fuzz", "worker", json.dumps(config.to_json())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, cwd=REPO_ROOT,
            start_new_session=True, text=True, bufsize=1)
        self.ready = False

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()

    def stderr_tail(self) -> str:
        self.log.seek(0)
        return tail(self.log.read().decode("utf-8", errors="replace"), 300)

    def request(self, request: dict, timeout: float) -> tuple[CaseResult | None, str, str]:
        """(result, last step, problem): problem is "", "hang", "crash" or "error:...";
        ``self.expired`` says why a hang was called (:class:`Watchdog`)."""
        fired = threading.Event()
        self.expired = ""

        def expire(reason: str = "") -> None:
            self.expired = reason or f"the worker did not start in {max(timeout, 120.0):.0f} s"
            fired.set()
            self.kill()

        step = "start"
        if not self.ready:  # the worker imports s2s first: not part of the case's time
            timer = threading.Timer(max(timeout, 120.0), expire)
            timer.start()
            try:
                line = self.proc.stdout.readline()
            finally:
                timer.cancel()
            if not line:
                self.proc.wait()
                return None, step, "hang" if fired.is_set() else "crash"
            self.ready = True
        timer = Watchdog(self.proc.pid, timeout, expire)
        timer.start()
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    break
                message = json.loads(line)
                if "step" in message:
                    step = message["step"]
                elif "result" in message:
                    return CaseResult.from_json(message["result"]), step, ""
                elif "error" in message:
                    return None, step, "error:" + message["error"]
        except (BrokenPipeError, OSError):
            pass
        finally:
            timer.cancel()
        self.proc.wait()
        return None, step, "hang" if fired.is_set() else "crash"


class Watchdog(threading.Thread):
    """Calls ``expire(reason)`` when a case's worker hangs: a limit on the CPU time of the
    worker and its children, not on wall time. Why: on a machine loaded 20 times over, cases
    that do bounded work (``fuse`` on horner.cu: 50 s of CPU for its four runs) took more than
    their wall limit and were reported as hangs. A case is a hang when its process tree used
    more than ``limit`` CPU seconds (work without end), when it made no CPU progress for
    ``stall`` seconds after ``limit`` of wall time (a blocked wait: a FIFO, a lock), or after
    ``WALL_FACTOR`` times ``limit`` of wall time whatever the load."""

    WALL_FACTOR = 10.0
    POLL = 0.5

    def __init__(self, pid: int, limit: float, expire: Callable[[str], None]):
        super().__init__(daemon=True)
        self.pid, self.limit, self.expire = pid, limit, expire
        self.stall = max(2.0, min(30.0, limit / 4))
        self.done = threading.Event()

    def cancel(self) -> None:
        self.done.set()

    def run(self) -> None:
        start = time.monotonic()
        base = tree_cpu_seconds(self.pid)
        progress_at, last = start, 0.0
        while not self.done.wait(self.POLL):
            now = time.monotonic()
            used = tree_cpu_seconds(self.pid) - base
            if used > last + 0.05:
                progress_at, last = now, used
            wall = now - start
            if used > self.limit:
                reason = f"the case used more than {self.limit:.0f} s of CPU ({wall:.0f} s wall)"
            elif wall > self.limit and now - progress_at > self.stall:
                reason = (f"the case made no progress for {now - progress_at:.0f} s "
                          f"({wall:.0f} s wall, {used:.0f} s of CPU)")
            elif wall > self.limit * self.WALL_FACTOR:
                reason = f"the case did not finish in {wall:.0f} s wall ({used:.0f} s of CPU)"
            else:
                continue
            self.expire(reason)
            return


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) of ``pid``, its waited-for children and its live
    descendants, from /proc (0.0 where /proc cannot be read)."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    stats: dict[int, tuple[int, float]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0.0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # after the command's ")": state, ppid, ... utime (12th), stime, cutime, cstime
        stats[int(entry)] = (int(fields[1]), sum(int(v) for v in fields[11:15]) / ticks)
    children: dict[int, list[int]] = {}
    for child, (parent, _) in stats.items():
        children.setdefault(parent, []).append(child)
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        total += stats.get(current, (0, 0.0))[1]
        todo.extend(children.get(current, ()))
    return total


class Pool:
    """``jobs`` workers; ``run(requests)`` yields one CaseResult per request, as they finish."""

    def __init__(self, config: FuzzConfig = FuzzConfig(), jobs: int = 2):
        self.config = config
        self.jobs = max(1, jobs)

    def run(self, requests: Iterable[dict]) -> Iterator[CaseResult]:
        import queue

        todo: queue.Queue = queue.Queue()
        for request in requests:
            todo.put(request)
        done: queue.Queue = queue.Queue()

        def serve() -> None:
            worker = Worker(self.config)
            try:
                while True:
                    try:
                        request = todo.get_nowait()
                    except queue.Empty:
                        return
                    timeout = request.get("timeout", self.config.case_timeout)
                    start = time.perf_counter()
                    result, step, problem = worker.request(request, timeout)
                    if result is None:
                        result = self._lost(request, step, problem, worker,
                                            time.perf_counter() - start)
                        worker.close()
                        worker = Worker(self.config)
                    done.put(result)
            finally:
                worker.close()

        threads = [threading.Thread(target=serve, daemon=True) for _ in range(self.jobs)]
        total = todo.qsize()
        for thread in threads:
            thread.start()
        for _ in range(total):
            yield done.get()
        for thread in threads:
            thread.join()

    def _lost(self, request: dict, step: str, problem: str, worker: Worker,
              seconds: float) -> CaseResult:
        """The result of a request whose worker died or ran out of time."""
        seed = request.get("seed", -1)
        try:
            case = make_case(seed, self.config.case_options, Path(self.config.samples)) \
                if "seed" in request else None
        except Exception:  # noqa: BLE001
            case = None
        result = CaseResult(seed, case.sample.name if case else "?",
                            list(case.mutant.steps) if case else [],
                            subprocess=bool(case and case.subprocess),
                            verify=bool(case and case.verify),
                            nesting=dict(case.mutant.nesting) if case else {})
        result.seconds = seconds
        if problem == "hang":
            failure = Failure("hang", step, worker.expired)
        elif problem.startswith("error:"):
            failure = Failure("fuzzer-error", step, last_line(problem[6:]))
        else:
            code = worker.proc.returncode
            failure = Failure("crash", step, f"worker exit status {code} "
                              f"({signal_name(code) if code else 'no reply'}); "
                              f"{worker.stderr_tail()}")
        failure.known = known_defect(failure, result.nesting)
        result.failures = [failure]
        return result


def fuzz(seeds: Iterable[int], config: FuzzConfig = FuzzConfig(), jobs: int = 2
         ) -> Iterator[CaseResult]:
    """Run the cases of ``seeds`` on ``jobs`` workers; results in completion order."""
    return Pool(config, jobs).run({"seed": seed} for seed in seeds)



def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["worker"] and len(argv) == 2:
        return worker_main(argv[1])
    print("usage: python -m s2s.verify.fuzz worker CONFIG_JSON (see scripts/bench_fuzz.py)",
          file=sys.stderr)
    return 2
