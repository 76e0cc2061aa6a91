"""Run one program for ``s2s verify``: in a session of its own, with bounded output.

Why not ``subprocess.run``: it kills only the program at a timeout, so what the program forked
(a daemon, worker processes) outlives verify; ``communicate`` waits until every holder of the
output pipes has closed them, so a daemon that keeps stdout open makes verify wait its whole
timeout and then report a slow program; and it keeps all output in memory (1 GB printed, 4.5
GB of memory). Here:

- the program runs under a reaper (:mod:`s2s.verify.reaper`), a child subreaper: whatever
  the program started is re-parented to it, whatever session or environment it made for
  itself, and killed when the program ends or the run is stopped (a daemon that calls
  ``setsid`` and clears its environment escaped the two means below);
- the program starts in a new session (its own process group), and the whole group is killed
  with SIGKILL when the run ends for any reason: it exited, it timed out, or verify itself was
  interrupted (SIGTERM, SIGHUP and Ctrl-C reach verify as exceptions, see
  :mod:`s2s.cli.signals`), so no daemon and no compiler outlives verify. A daemon leaves the
  group (``setsid``) but keeps its environment, where the run put a token of its own
  (``S2S_VERIFY_RUN``, the same for every run of one thread of an s2s process): every process
  of this user holding it is killed too;
- the wait ends when the direct child has exited and its pipes are drained, or ``EXIT_GRACE``
  seconds after it exited, whichever is first: a daemon holding the pipes delays nothing;
- each stream keeps its first ``limit`` bytes; the rest is read and dropped, counted in
  :attr:`BoundedProcess.dropped` so that the caller can say the comparison was truncated.
"""

from __future__ import annotations

import errno
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path

from s2s import deep_stack

#: bytes of each stream (stdout, stderr) kept per run
OUTPUT_LIMIT = 32 * 1024 * 1024
#: seconds the pipes are still read after the program exited (what it wrote last)
EXIT_GRACE = 0.5
_CHUNK = 1 << 16
#: the environment variable that marks every process a run starts (see kill_marked); one value
#: per thread of an s2s process, so that both versions a verify compares (run one after the
#: other on one thread) see the same environment, while runs on other threads (the corpus
#: test builds programs in a thread pool) are never killed as another run's leftovers
_MARK = "S2S_VERIFY_RUN"
_TOKEN = secrets.token_hex(8)


def _token() -> str:
    return f"{_TOKEN}-{threading.get_ident():x}"
#: the program's parent: a child subreaper that kills its descendants when it ends
REAPER = str(Path(__file__).resolve().with_name("reaper.py"))
#: seconds the reaper is given to kill and reap the program's descendants
REAPER_GRACE = 5.0
#: how often the child's exit is checked while its pipes are quiet
_POLL = 0.05


class BoundedProcess(subprocess.CompletedProcess):
    """A finished run; ``dropped`` maps 'stdout'/'stderr' to the bytes read past the limit."""

    def __init__(self, args, returncode, stdout, stderr, dropped: dict[str, int]):
        super().__init__(args, returncode, stdout, stderr)
        self.dropped = dropped


def run_process(argv: Sequence[str], *, executable: str | os.PathLike | None = None,
                timeout: float | None = None, env: Mapping[str, str] | None = None,
                cwd: str | os.PathLike | None = None,
                limit: int | None = None) -> BoundedProcess:
    """Run ``argv`` with its output captured as text (undecodable bytes replaced), as the
    module says. Raises ``subprocess.TimeoutExpired`` after ``timeout`` seconds, once the
    program's whole process group is dead. ``limit``: bytes kept per stream (OUTPUT_LIMIT)."""
    limit = OUTPUT_LIMIT if limit is None else limit
    value = _token()
    token = f"{_MARK}={value}"
    marked = dict(os.environ if env is None else env)
    marked[_MARK] = value
    here = threading.current_thread()
    program = os.fspath(executable) if executable is not None else argv[0]
    relative = os.sep in program and not os.path.isabs(program) and cwd is not None
    found = os.path.join(cwd, program) if relative else program
    if shutil.which(found, path=marked.get("PATH", os.defpath)) is None:  # as Popen would
        raise FileNotFoundError(errno.ENOENT, "no such program", program)
    proc = subprocess.Popen([sys.executable, "-I", "-S", REAPER, program, *argv],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=marked,
                            cwd=None if cwd is None else str(cwd), start_new_session=True)
    _live[proc.pid] = (here, token.encode())
    kept = {"stdout": bytearray(), "stderr": bytearray()}
    dropped = {"stdout": 0, "stderr": 0}
    try:
        _raise_if_stopped(here)
        _collect(proc, kept, dropped, limit, timeout, list(argv))
    finally:
        end_reaper(proc)  # it kills what the program started, daemons that left included
        kill_group(proc.pid)  # the leader is not reaped yet: the group's number is still its
        kill_marked(token.encode())
        _live.pop(proc.pid, None)
        proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            pipe.close()
    _raise_if_stopped(here)
    text = {name: data.decode("utf-8", errors="replace") for name, data in kept.items()}
    return BoundedProcess(list(argv), proc.returncode, text["stdout"], text["stderr"], dropped)


def end_reaper(proc: subprocess.Popen) -> None:
    """Have the reaper (:mod:`s2s.verify.reaper`) kill and reap the program's descendants, if
    it has not done so already (the program exited: it did), waiting for it at most
    ``REAPER_GRACE`` seconds; what it leaves, the process group and the mark kill after."""
    if _exited(proc.pid):
        return
    try:
        os.kill(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + REAPER_GRACE
    while not _exited(proc.pid) and time.monotonic() < deadline:
        time.sleep(_POLL / 5)


class Stopped(BaseException):
    """The thread running a program was told to stop (its caller was interrupted): a
    BaseException, so that no ``except Exception`` goes on to the next build or run."""


#: the programs running now: pid -> (the thread waiting for it, its environment token)
_live: dict[int, tuple[threading.Thread, bytes]] = {}
#: threads whose caller was interrupted: they start nothing more
_stopped: weakref.WeakSet[threading.Thread] = weakref.WeakSet()


def stop_thread(thread: threading.Thread) -> None:
    """Kill what ``thread`` is running now (group and marked processes) and make its further
    :func:`run_process` calls raise :class:`Stopped`. Called from another thread: the main
    thread when a signal interrupts its wait for the deep-stack worker (s2s.deep_stack)."""
    _stopped.add(thread)
    for pid, (owner, token) in list(_live.items()):
        if owner is thread:
            kill_group(pid)
            kill_marked(token)


deep_stack.INTERRUPT_HOOKS.append(stop_thread)


def _raise_if_stopped(thread: threading.Thread) -> None:
    if thread in _stopped:
        raise Stopped(f"{thread.name} was stopped")


def _collect(proc: subprocess.Popen, kept: dict[str, bytearray], dropped: dict[str, int],
             limit: int, timeout: float | None, argv: list[str]) -> None:
    """Read both pipes until they close or the program has exited plus EXIT_GRACE; raise
    TimeoutExpired when the program is still running at ``timeout``."""
    deadline = None if timeout is None else time.monotonic() + timeout
    ended_by = None  # the time reading stops once the child has exited
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, "stdout")
        selector.register(proc.stderr, selectors.EVENT_READ, "stderr")
        while selector.get_map():
            now = time.monotonic()
            if ended_by is None and _exited(proc.pid):
                ended_by = now + EXIT_GRACE
            if ended_by is not None and now >= ended_by:
                return
            if ended_by is None and deadline is not None and now >= deadline:
                raise subprocess.TimeoutExpired(argv, timeout)
            for key, _ in selector.select(_POLL):
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                room = max(0, limit - len(kept[key.data]))
                kept[key.data] += chunk[:room]
                dropped[key.data] += len(chunk) - min(room, len(chunk))
    while not _exited(proc.pid):  # the pipes closed, the child may still run (closed them itself)
        if deadline is not None and time.monotonic() >= deadline:
            raise subprocess.TimeoutExpired(argv, timeout)
        time.sleep(_POLL)


def _exited(pid: int) -> bool:
    """Has the child exited? Without reaping it, so that its process group cannot be
    reused before the group is killed."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def kill_marked(token: bytes, rounds: int = 5) -> list[int]:
    """SIGKILL this user's processes whose environment holds ``token``: what the run started
    and moved out of its process group (a daemon calls ``setsid``). A process that forks
    while it is being killed is caught by the next round. Returns the pids signalled; empty
    where /proc is missing."""
    killed: list[int] = []
    for _ in range(rounds):
        found = [pid for pid in _pids() if pid != os.getpid() and _environ_has(pid, token)]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except (ProcessLookupError, PermissionError):
                pass
    return killed


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _environ_has(pid: int, token: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return token in handle.read(1 << 20).split(b"\0")
    except OSError:  # gone, or another user's
        return False


def kill_group(pgid: int) -> None:
    """SIGKILL every process of the group ``pgid``; a group already gone is not an error."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
