"""``s2s verify --ranks N``: the rewritten program of the runtime as an MPI job on this machine.

The command comes from the runtime (runtime/mpi/launcher.py: ``mpirun --quiet --noprefix``, more ranks
than cores allowed, running as root allowed through the environment), so the user's ``s2s verify``
line never needs Open MPI's options.  What cannot run is said before anything is built: no mpirun, no
mpi4py for the runtime's Python.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from pathlib import Path

from runtime.errors import BackendUnavailable
from runtime.mpi.launcher import find_mpirun, mpirun_command, mpirun_env
from s2s.verify.differential import VerifyUnavailable


def check_mpi() -> str:
    """The mpirun to use; VerifyUnavailable (exit 2) when this machine cannot run MPI jobs."""
    try:
        mpirun = find_mpirun()
    except BackendUnavailable as error:
        raise VerifyUnavailable(f"--ranks runs the program with mpirun: {error}", id="verify-no-mpi") from None
    if importlib.util.find_spec("mpi4py") is None:
        raise VerifyUnavailable("--ranks needs mpi4py in the Python the s2s runtime runs in (pip install "
                                "mpi4py, or scripts/setup.sh)", id="verify-no-mpi")
    return mpirun


def job(exe: Path, ranks: int, args: Sequence[str], env: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
    """(argv, environment) of ``mpirun -np ranks exe args``.  The ranks see the executable's full path
    as ``argv[0]`` (a single run sees ``./name``; docs/mpi.md)."""
    command = mpirun_command(ranks, [str(exe), *args], mpirun=check_mpi())
    return command, mpirun_env(env)
