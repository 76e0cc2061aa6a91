"""Messages between the ranks: commands from rank 0, data between any two ranks, fatal errors.

Two duplicates of ``MPI.COMM_WORLD`` keep the two kinds of traffic apart: ``commands`` carries rank 0's
runtime calls (pickled, small), ``data`` carries bytes of buffers.  Data moves with ``Isend``/``Irecv``
posted in the order every rank computes the same way (the copy plan is the same on every rank), so the
messages of one pair of ranks match in order (MPI's non-overtaking rule) and need no tags; ``wait``
completes them all.  Waiting polls with a growing sleep instead of a blocking call: the process then
yields the processor to the other ranks of an oversubscribed node, and a wait that exceeds
``S2S_MPI_TIMEOUT`` seconds (default 600) ends the job with a message instead of hanging (a dead rank
ends it earlier: the launcher kills every rank when one dies).

Counters: bytes sent to each rank, per phase (the runtime call that moved them: ``launch``,
``memcpy_htod`` ...), and the command bytes; the session gathers them for ``S2S_STATS``.
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from collections import Counter

from mpi4py import MPI

from runtime.errors import ConfigError

_CMD = 1


def _timeout() -> float:
    text = os.environ.get("S2S_MPI_TIMEOUT", "600")
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"S2S_MPI_TIMEOUT={text!r}: expected seconds") from None
    return value if value > 0 else 600.0


class Transport:
    """This rank's communicators, its pending data requests and its byte counters."""

    def __init__(self, comm=None):
        world = comm or MPI.COMM_WORLD
        self.rank, self.size = world.Get_rank(), world.Get_size()
        self.world = world
        self.commands = world.Dup()
        self.data = world.Dup()
        self.timeout = _timeout()
        self._pending: list = []            # (request or None, completion or None, buffer kept alive)
        self._receives = 0
        self.phase = "setup"
        self.sent: Counter = Counter()      # (phase, destination rank) -> bytes
        self.received: Counter = Counter()  # (phase, source rank) -> bytes
        self.messages = 0
        self.command_bytes = 0
        self.commands_sent = 0
        self.command_seconds = 0.0          # rank 0: time spent pickling and sending commands
        self.command_time: Counter = Counter()      # ... per command name

    # ---- data ----
    def isend(self, addr: int, nbytes: int, dest: int, keep=None) -> None:
        buf = MPI.buffer.fromaddress(addr, nbytes)
        self._pending.append((self.data.Isend([buf, MPI.BYTE], dest), None, keep))
        self.sent[self.phase, dest] += nbytes
        self.messages += 1

    def irecv(self, addr: int, nbytes: int, source: int, then=None, keep=None) -> None:
        buf = MPI.buffer.fromaddress(addr, nbytes)
        self._pending.append((self.data.Irecv([buf, MPI.BYTE], source), then, keep))
        self._receives += 1
        self.received[self.phase, source] += nbytes

    @property
    def receiving(self) -> bool:
        """Whether a receive is pending (a local copy must then wait for it)."""
        return self._receives > 0

    def after_wait(self, action) -> None:
        """Run ``action`` once the pending transfers completed, after the receives' own completions."""
        self._pending.append((None, action, None))

    def wait(self) -> None:
        """Complete every posted send and receive, then run the receives' completions (a staged
        receive's upload to its device)."""
        if not self._pending:
            return
        pending, self._pending, self._receives = self._pending, [], 0
        requests = [p[0] for p in pending if p[0] is not None]
        self._poll(lambda: MPI.Request.Testall(requests), "data from another rank")
        for _request, then, _keep in pending:
            if then is not None:
                then()

    def _poll(self, done, what: str) -> None:
        start = time.monotonic()
        pause = 0.0
        while not done():
            pause = _backoff(start, pause)
            if time.monotonic() - start > self.timeout:
                fatal(self, f"waited {self.timeout:g} s for {what} (S2S_MPI_TIMEOUT); ending the job")

    # ---- commands (rank 0 -> every other rank) ----
    def send_command(self, command: tuple) -> None:
        start = time.perf_counter()
        data = pickle.dumps(command, protocol=pickle.HIGHEST_PROTOCOL)
        for dest in range(1, self.size):
            self.commands.Send([data, MPI.BYTE], dest, _CMD)
        self.command_bytes += len(data) * (self.size - 1)
        self.commands_sent += 1
        took = time.perf_counter() - start
        self.command_seconds += took
        self.command_time[command[0]] += took

    def receive_command(self) -> tuple:
        """The next command from rank 0 (polled: an idle rank sleeps instead of spinning)."""
        status = MPI.Status()
        self._idle_probe(status)
        data = bytearray(status.Get_count(MPI.BYTE))
        self.commands.Recv([data, MPI.BYTE], 0, _CMD)
        self.command_bytes += len(data)
        return pickle.loads(data)

    def _idle_probe(self, status) -> None:
        """Wait for rank 0's next command without a time limit (rank 0 may compute on the host for
        as long as the program likes)."""
        start, pause = time.monotonic(), 0.0
        while not self.commands.Iprobe(0, _CMD, status):
            pause = _backoff(start, pause)

    # ---- collectives used at start and stop ----
    def allgather(self, value):
        return self.world.allgather(value)

    def gather(self, value):
        return self.world.gather(value, root=0)

    def counters(self) -> dict:
        return {"sent": {f"{phase}->{dest}": n for (phase, dest), n in sorted(self.sent.items())},
                "received": {f"{phase}<-{src}": n for (phase, src), n in sorted(self.received.items())},
                "messages": self.messages, "command_bytes": self.command_bytes,
                "commands_sent": self.commands_sent, "command_seconds": self.command_seconds,
                "command_seconds_by_name": dict(self.command_time)}


#: how long a waiting rank polls without sleeping (yielding the core at each poll): a command or
#: message that comes within it is seen at once; S2S_MPI_SPIN_US overrides (microseconds)
_SPIN = float(os.environ.get("S2S_MPI_SPIN_US", "2000") or 0) * 1e-6


def _backoff(start: float, pause: float) -> float:
    """One step of waiting: yield the core while the wait is younger than the spin time, then sleep
    for growing pauses (up to 2 ms), so idle ranks leave the cores to busy ones. Why not a blocking
    MPI call: Open MPI's blocking calls spin at full speed, which on an oversubscribed node takes
    the core from the rank doing the work; a plain sleep from the start (Linux sleeps at least about
    100 us) would add that delay to every launch of a fast kernel (docs/benchmarks.md, "MPI")."""
    if time.monotonic() - start < _SPIN:
        os.sched_yield()
        return pause
    pause = min(0.002, pause + 0.00005)
    time.sleep(pause)
    return pause


def fatal(transport: Transport | None, message: str, code: int = 1) -> None:
    """One line on stderr naming this rank, then end every rank of the job (MPI_Abort)."""
    rank = transport.rank if transport is not None else MPI.COMM_WORLD.Get_rank()
    sys.stdout.flush()
    sys.stderr.write(f"s2s-runtime: rank {rank}: error: {message}\n")
    sys.stderr.flush()
    MPI.COMM_WORLD.Abort(code)
