"""The s2s runtime over MPI: one program, several processes (ranks), each owning its devices.

``mpirun -np N ./prog`` starts N copies of a program rewritten by ``s2s mgpu``.  Rank 0 runs the
program; the other ranks never enter ``main``: the runtime's C library starts them in a loop that
serves rank 0's runtime calls (``session.start``).  Every rank keeps the same bookkeeping (address
space, segment trackers, launch plans) over the devices of all ranks, because every rank applies the
same calls in the same order; data moves only where a copy's source and destination are on different
ranks, with non-blocking point-to-point messages.  Design: docs/mpi.md.

Modules: ``transport`` (mpi4py communicators, pending requests, byte counters, fatal errors),
``devices`` (a rank's view of every device: its own, or a stand-in for another rank's),
``runtime`` (``MpiRuntime``: the runtime whose calls rank 0 sends to the others), ``session``
(start-up checks, the serving loop, shut-down).  mpi4py is imported only here, and only when the
program was started by an MPI launcher.
"""

from __future__ import annotations

import os

#: environment variables by which launchers say how many processes they started
_SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")  # Open MPI; MPICH (hydra)


def launched_size() -> int | None:
    """How many processes an MPI launcher started (None: not started by one, or S2S_MPI=0)."""
    if os.environ.get("S2S_MPI", "1") == "0":
        return None
    for name in _SIZE_VARIABLES:
        text = os.environ.get(name, "")
        if text.isdigit():
            return int(text)
    return None
