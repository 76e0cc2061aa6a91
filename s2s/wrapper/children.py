"""The compiler processes the wrapper starts, and what happens to them when it is stopped.

A build stops a compiler by signalling it (``make`` on Ctrl-C, a CI timeout's SIGTERM). When
the wrapper is the one signalled, the default would kill the wrapper alone: the compiler and
its own children (nvcc's cicc, gcc's cc1plus) run on as orphans, and the wrapper's temporary
directory stays. So while :class:`Children` is active, SIGTERM, SIGINT and SIGHUP raise
:class:`Interrupted` in the wrapper; the compiler running at that moment gets the same signal
(SIGKILL after a grace period) through its process group -- each compiler starts in a group of
its own, as ninja starts its commands -- and the ``finally`` blocks remove the temporary
files before the wrapper exits with 128 + the signal number.

A compiler in its own process group is not in the terminal's foreground group; with
``stty tostop`` a write to the terminal would then stop it, so the wrapper ignores SIGTTOU
while active (an ignored SIGTTOU lets the write through, and the setting is inherited).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence

SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP")
                if hasattr(signal, name))
#: seconds a signalled compiler has to finish before it is killed
GRACE = 2.0


class Interrupted(BaseException):
    """The wrapper got a termination signal (a BaseException: ``except Exception`` in a
    pass must not swallow it and go on compiling)."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum


class Children:
    """Runs compilers; turns termination signals into :class:`Interrupted` while active."""

    def __init__(self) -> None:
        self.caught: int | None = None
        self._holding = False  # a child is being started: note the signal, raise it later
        self._active = False

    @contextlib.contextmanager
    def active(self) -> Iterator[Children]:
        """Install the handlers for the duration (only the main thread can; elsewhere the
        compilers run as plain children and signals keep their defaults)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = {signum: signal.signal(signum, self._handle) for signum in SIGNALS}
        if hasattr(signal, "SIGTTOU"):
            previous[signal.SIGTTOU] = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        self._active = True
        try:
            yield self
        finally:
            self._active = False
            for signum, handler in previous.items():  # None: one not set from Python
                signal.signal(signum, signal.SIG_DFL if handler is None else handler)

    def _handle(self, signum: int, _frame) -> None:
        if self.caught is not None:
            return  # already stopping
        self.caught = signum
        if not self._holding:
            raise Interrupted(signum)

    def check(self) -> None:
        """Raise the signal that arrived while it could not be raised."""
        if self.caught is not None:
            raise Interrupted(self.caught)

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        """Hold a signal back while the block creates something (a child, a temporary
        directory) that only exists for cleanup once the block has handed it over; the
        signal is raised when the block ends."""
        self._holding = True
        try:
            yield
        finally:
            self._holding = False
        self.check()

    def run(self, command: Sequence[str], env: Mapping[str, str],
            capture: bool) -> subprocess.CompletedProcess:
        """``subprocess.run`` that stops the child (and its children) when interrupted;
        raises OSError when the command cannot be started."""
        self.check()
        pipe = subprocess.PIPE if capture else None
        process = None
        try:
            with self.holding():
                process = subprocess.Popen(command, env=env, stdout=pipe, stderr=pipe,
                                           **(_own_group() if self._active else {}))
            stdout, stderr = process.communicate()
        except BaseException:
            if process is None:
                raise
            if self._active:
                _stop_group(process, self.caught or signal.SIGTERM)
            else:
                process.kill()
                process.wait()
            raise
        return subprocess.CompletedProcess(command, process.returncode, stdout or b"",
                                           stderr or b"")


def _own_group() -> dict:
    """Popen arguments that start the child in a new process group."""
    return {"process_group": 0}


def _stop_group(process: subprocess.Popen, signum: int) -> None:
    """Signal the child's process group, give it GRACE seconds, then kill what is left of the
    group (a grandchild that ignores the signal, or outlives its parent) before reaping the
    child: an unreaped child keeps the group's number from being reused."""
    _signal_group(process.pid, signum)
    deadline = time.monotonic() + GRACE
    while not _exited(process) and time.monotonic() < deadline:
        time.sleep(0.02)
    _signal_group(process.pid, signal.SIGKILL)
    process.wait()
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def _exited(process: subprocess.Popen) -> bool:
    """Has the child exited? Without reaping it where the system can tell (waitid)."""
    if process.returncode is not None:
        return True
    if not hasattr(os, "waitid"):
        return process.poll() is not None  # pragma: no cover (reaps: a tiny reuse window)
    try:
        return os.waitid(os.P_PID, process.pid,
                         os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)
