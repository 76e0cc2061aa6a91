"""SIGTERM and SIGHUP end a run the way Ctrl-C does: through an exception, so cleanup runs.

By default SIGTERM kills the interpreter on the spot, leaving the ``.s2s-*.tmp`` file of an
in-place write behind. Raised as :class:`Terminated` in the main thread instead, it reaches
``main``, which removes the temp files still being written (``s2s.output.PENDING``) and exits
with 128 + the signal number, as a shell reports a killed command.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Terminated(BaseException):
    """A termination signal arrived (a BaseException: no ``except Exception`` swallows it)."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum


def _raise(signum: int, _frame) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def terminate_on_signals() -> Iterator[None]:
    """Install the handlers for the duration (only the main thread may install them)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _raise) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
