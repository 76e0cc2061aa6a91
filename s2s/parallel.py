"""Files processed in parallel for ``-j N`` (issue 30, item 3).

libclang is no place for threads in one process (and the walks over its cursors hold the
GIL), so the translation units of a run are parsed and extracted in worker processes: forked
from the run (the tool, libclang and the passes already loaded; nothing is pickled but each
file's result), each handed the index of a file. Results come back in the order of the files,
whatever order the workers finish in, so a run's output is that of ``-j 1`` byte for byte.
A worker that dies, or a result that cannot be sent back, is that file's work done again in
the run's own process: ``-j`` never changes an outcome, only when it is known.
:func:`gathered`, for work whose results are all wanted at once, has the run itself take a
share (the items no worker started).

``-j 1`` is the default: the compiler launcher is run by ``make -j`` many at once already,
and each worker holds a copy of the run's memory; ``-j 0`` means one worker per CPU core.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

from s2s.diagnostics import UsageError

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")

#: the work of the run being forked: (function, items); workers read it by index
_WORK: list = []


def jobs_from(value: str | int | None) -> int:
    """``-j VALUE`` as a number of workers: a positive number, or 0 for one per core."""
    try:
        jobs = int(value if value is not None else 1)
    except ValueError:
        raise UsageError(f"-j takes a number of jobs, not {value!r}") from None
    if jobs < 0:
        raise UsageError(f"-j takes a number of jobs (0: one per core), not {jobs}")
    return jobs or os.cpu_count() or 1


def ordered_map(function: Callable[[T], R], items: Sequence[T], jobs: int) -> Iterator[R]:
    """``function(item)`` for each item, in order: in this process for one job or one item,
    else on ``jobs`` forked workers (yielding each result as soon as it and those before it
    are known)."""
    if jobs <= 1 or len(items) <= 1:
        for item in items:
            yield function(item)
        return
    # (imported here: a run of one job, the usual one, starts without multiprocessing)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods():
        for item in items:
            yield function(item)
        return
    _WORK[:] = [function, items]
    try:
        with ProcessPoolExecutor(min(jobs, len(items)),
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            futures: list[Future] = [pool.submit(_run_one, index) for index in range(len(items))]
            for index, future in enumerate(futures):
                yield _outcome(future, function, items[index])
    finally:
        _WORK.clear()


def gathered(function: Callable[[T], R], items: Sequence[T], jobs: int) -> list[R]:
    """``[function(item) for item in items]`` on ``jobs`` processes at once: ``jobs - 1``
    forked workers take the items from the front, and the run's own process takes those no
    worker has started, from the back, while it waits. Where every result is wanted before
    anything is done with them (a program's loads, its checks, its diffs), this keeps the
    run's own core busy instead of waiting, and the results it makes need no pickling: on the
    50,000-line program each load sent back is a model of some 15,000 objects, pickled by a
    worker and read back by the run (0.84 s of the run's own CPU at ``-j 2`` when the workers
    loaded all 11 files)."""
    if jobs <= 1 or len(items) <= 1:
        return [function(item) for item in items]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods():
        return [function(item) for item in items]
    done: dict[int, R] = {}
    _WORK[:] = [function, items]
    try:
        with ProcessPoolExecutor(min(jobs - 1, len(items)),
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            futures: list[Future] = [pool.submit(_run_one, index) for index in range(len(items))]
            for index in reversed(range(len(items))):
                if futures[index].cancel():         # no worker took it: done here
                    done[index] = function(items[index])
            for index, future in enumerate(futures):
                if index not in done:
                    done[index] = _outcome(future, function, items[index])
    finally:
        _WORK.clear()
    return [done[index] for index in range(len(items))]


def _run_one(index: int):
    function, items = _WORK
    return function(items[index])


def _outcome(future: Future, function: Callable[[T], R], item: T) -> R:
    """The worker's result; where the worker died or its result could not come back, the
    same work done here (the function itself never raises for a file's problems)."""
    try:
        return future.result()
    except Exception:  # noqa: BLE001 - BrokenProcessPool, a pickling error: redo it here
        return function(item)
