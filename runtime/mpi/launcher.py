"""The ``mpirun`` command line and environment for running a program of the runtime on N local ranks
(``s2s verify --ranks``, the tests, scripts/bench_mpi.py).

Open MPI refuses to run as root and to start more ranks than cores unless told; both are the caller's
business here, not the user's: the environment gets ``OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)`` when running
as root, and ``--oversubscribe`` is added when there are more ranks than cores.  ``--quiet`` leaves out
Open MPI's multi-line banners, so a failing rank's one-line message is what the user reads.
``--noprefix``: Open MPI called by its absolute path (``/usr/bin/mpirun``) otherwise acts as if given
``--prefix /usr`` and puts ``/usr/lib`` first on the ranks' ``LD_LIBRARY_PATH``, where a different
libpython than the one the runtime's C library was linked with may be found (docs/mpi.md).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence

from runtime.errors import BackendUnavailable


def find_mpirun() -> str:
    """``S2S_MPIRUN`` or ``mpirun`` on PATH; BackendUnavailable when neither is an executable."""
    wanted = os.environ.get("S2S_MPIRUN") or "mpirun"
    found = shutil.which(wanted)
    if found is None:
        raise BackendUnavailable(f"no mpirun found ({wanted!r} is not an executable; install Open MPI: "
                                 "apt-get install openmpi-bin libopenmpi-dev, or set S2S_MPIRUN)")
    return found


def mpirun_command(ranks: int, argv: Sequence[str], per_rank_env: Sequence[Mapping[str, str]] | None = None,
                   mpirun: str | None = None, quiet: bool = True) -> list[str]:
    """``mpirun -np ranks argv``; with ``per_rank_env`` (one mapping per rank) an MPMD line giving each
    rank its own variables (``-np 1 -x NAME=VALUE ... argv : ...``).  ``quiet=False`` keeps Open MPI's
    own reports (the one naming a rank killed by a signal is its only message about that)."""
    command = [mpirun or find_mpirun(), *(["--quiet"] if quiet else []), "--noprefix"]
    if ranks > (os.cpu_count() or 1):
        command.append("--oversubscribe")
    if per_rank_env is None:
        return [*command, "-np", str(ranks), *argv]
    if len(per_rank_env) != ranks:
        raise ValueError(f"{len(per_rank_env)} environments for {ranks} ranks")
    for k, env in enumerate(per_rank_env):
        if k:
            command.append(":")
        command += ["-np", "1"]
        for name, value in env.items():
            command += ["-x", f"{name}={value}"]
        command += list(argv)
    return command


def mpirun_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for mpirun: ``base`` (default os.environ) plus what running as root needs."""
    env = dict(os.environ if base is None else base)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env
