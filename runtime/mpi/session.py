"""Start, serve and stop an MPI job of the runtime (called from the C library, runtime/csrc).

``start`` runs in every rank before ``main`` (a constructor of libs2s_runtime.so, when an MPI launcher
started the program): it checks that mpi4py can be imported and that every rank has the same devices,
creates the ``MpiRuntime``, and then either returns to the program (rank 0) or serves rank 0's commands
until rank 0 stops (the others), returning the exit code.  ``stop`` runs when rank 0's program exits:
it tells the other ranks to leave, gathers their byte counters for ``S2S_STATS`` and finalizes MPI.

Failures say one line each and never leave a rank waiting: a problem at start is the same on every
rank (every rank sees every rank's devices) and only rank 0 reports it; a rank whose command fails
where rank 0's did not ends the job with its own message (``transport.fatal``: MPI_Abort); a rank that
dies is noticed by the launcher, which ends the others.
"""

from __future__ import annotations

import os
import sys

from runtime.errors import RuntimeFailure
from runtime.mpi import launched_size

NO_SESSION, ROOT = -2, -1
_state: dict = {"runtime": None, "transport": None}


def _launcher_rank() -> int:
    for name in ("OMPI_COMM_WORLD_RANK", "PMI_RANK"):
        text = os.environ.get(name, "")
        if text.isdigit():
            return int(text)
    return 0


def _say(message: str) -> None:
    sys.stderr.write(f"s2s-runtime: error: {message}\n")
    sys.stderr.flush()


def start() -> int:
    """NO_SESSION (not under an MPI launcher, or one process), ROOT (rank 0: run the program), or the
    exit code of a rank that served rank 0 (or of every rank when the job cannot start)."""
    size = launched_size()
    if size is None or size < 2:
        return NO_SESSION
    try:
        from runtime.mpi.runtime import MpiRuntime
        from runtime.mpi.transport import Transport
    except ImportError as error:
        if _launcher_rank() == 0:
            _say(f"started by an MPI launcher with {size} processes, but MPI cannot be used from Python "
                 f"({error}); install mpi4py built for this MPI (scripts/setup.sh does), or run the "
                 "program without mpirun (S2S_MPI=0 ignores the launcher)")
        return 2
    transport = Transport()
    try:
        runtime = MpiRuntime(transport)
    except RuntimeFailure as error:           # the same on every rank (every rank saw every view)
        if transport.rank == 0:
            _say(str(error))
        _finalize()
        return 2
    _state["runtime"], _state["transport"] = runtime, transport
    if transport.rank == 0:
        return ROOT
    return serve(runtime)


def runtime():
    """The MpiRuntime of this process (rank 0), or None without a session."""
    return _state["runtime"]


def serve(runtime) -> int:
    """The loop of a rank other than 0: apply rank 0's commands until it says stop."""
    from runtime.mpi.transport import fatal
    transport, mine = runtime.mpi, None
    while True:
        name, payload, theirs = transport.receive_command()
        if mine is not None and theirs is None:
            fatal(transport, mine)           # rank 0 succeeded where this rank failed
        if name == "stop":
            transport.gather(transport.counters())
            break
        mine = None
        try:
            runtime.apply(name, payload)
        except RuntimeFailure as error:
            mine = f"{name}: {_first_lines(error)}"
        except Exception as error:            # a bug: say it here, end the job
            fatal(transport, f"internal error in {name}: {type(error).__name__}: {error}")
    _finalize()
    return 0


def _first_lines(error: BaseException, count: int = 4) -> str:
    lines = str(error).strip().splitlines() or [type(error).__name__]
    return " | ".join(lines[:count])


def stop(write_stats=None) -> int:
    """Rank 0 at exit: the other ranks leave their loop, their counters join the statistics, MPI ends."""
    runtime = _state["runtime"]
    if runtime is None:
        return 0
    transport = runtime.mpi
    transport.send_command(("stop", (), runtime.outcome))
    runtime.rank_counters = transport.gather(transport.counters())
    if write_stats is not None:
        write_stats()
    _state["runtime"] = None
    _finalize()
    return 0


def _finalize() -> None:
    from mpi4py import MPI
    if not MPI.Is_finalized():
        MPI.Finalize()
