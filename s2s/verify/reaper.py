"""Run one program as a child subreaper, and kill everything it started when it ends.

``python -I -S reaper.py EXECUTABLE ARGV0 ARGS...`` (started by :mod:`s2s.verify.bounded_run`;
standard library only, no s2s import, so it starts in a few milliseconds).

Why: a daemon that double-forks, calls ``setsid`` and clears its environment leaves the
program's session and sheds any mark verify put in its environment, so neither the process
group nor the mark finds it. Descendants cannot shed their ancestry: this process asks the
kernel to be their *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so every orphan of
the program's tree is re-parented here instead of to init. When the program exits (or this
process gets SIGTERM: verify's timeout, verify interrupted), every descendant is killed and
reaped, in rounds until none is left, and this process ends as the program did (its exit
status, or the same signal), so verify sees the program's own status.
"""

import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


class _Ended(Exception):
    """SIGTERM: the run is over, whatever the program is doing."""


def _ended(_signum, _frame):
    raise _Ended


def _children() -> list[int]:
    """This process's live children (the program and the orphans re-parented here)."""
    me, found = os.getpid(), []
    try:
        with open(f"/proc/{me}/task/{me}/children") as handle:
            return [int(pid) for pid in handle.read().split()]
    except OSError:
        pass
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    if int(handle.read().rsplit(b")", 1)[1].split()[1]) == me:
                        found.append(int(name))
            except (OSError, IndexError, ValueError):
                pass
    return found


def _descendants() -> list[int]:
    """Every live process below this one (children first), from /proc's parent links."""
    parents: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    ppid = int(handle.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(name))
    out, todo = [], [os.getpid()]
    while todo:
        for child in parents.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return out


def kill_all() -> None:
    """SIGKILL every descendant and reap what was re-parented here, until none is left."""
    for _ in range(500):
        for pid in _descendants() or _children():
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                return
        time.sleep(0.01)


def main(argv: list[str]) -> int:
    executable, program = argv[0], argv[1:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGTERM, _ended)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            os.execvp(executable, program)
        except OSError as error:
            os.write(2, f"cannot run {executable}: {error.strerror}\n".encode())
            os._exit(127)
    status = None
    try:
        status = os.waitpid(pid, 0)[1]
    except _Ended:
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    kill_all()
    if status is None:
        return 128 + signal.SIGTERM
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
