"""All element ranges of one launch from one native call.

A partitioned launch asks for the read and write ranges of every array for every box: 12 queries for
a three-array stencil on 4 devices.  Asked one by one, each query pays a ctypes call and Python list
building (about 1-2 us) on top of its native enumeration, which for boxes that span the grid's width
is a handful of instructions (``islmaps.plan_rows`` with ``full``).  A ``LaunchBatch`` holds, for a
fixed list of (enumerator, box) queries, the table the native driver (``jit.batch_driver``) walks:
enumerator addresses, box bounds and per-query counts in preallocated int64 arrays, and one output
buffer that all queries fill in turn.  ``run`` is then one foreign call plus cutting the output into
the per-query lists.  Queries without a native enumerator (the pure-isl fallback) are enumerated one
by one with isl; queries of an access that does not exist give ``[]``.
"""

from __future__ import annotations

import ctypes
import threading

from runtime.access.islmaps import merge_ranges

Int64Array = ctypes.c_int64


class LaunchBatch:
    """The queries of one launch (see the module docstring); ``run`` returns their ranges in order."""

    def __init__(self, items):
        """``items``: (enumerator or None, box) per query, in the order ``run`` answers them."""
        self.size = len(items)
        self.native: list[int] = []          # positions answered by the native driver
        self.other: list[tuple[int, object, object]] = []   # (position, isl enumerator, box)
        functions, bounds = [], []
        for position, (enumerator, box) in enumerate(items):
            if enumerator is None:
                continue
            if enumerator.function is None:
                self.other.append((position, enumerator, box))
                continue
            self.native.append(position)
            functions.append(ctypes.cast(enumerator.function, ctypes.c_void_p).value)
            bounds += [*box.lo, *box.hi]
        count = len(self.native)
        self._functions = (Int64Array * max(count, 1))(*functions)
        self._bounds = (Int64Array * max(6 * count, 1))(*bounds)
        self._counts = (Int64Array * max(count, 1))()
        self.capacity = 16 * max(count, 1)
        self._out = (Int64Array * (2 * self.capacity))()
        self._lock = threading.Lock()
        if count:
            from runtime.access.jit import batch_driver  # llvmlite only when there is native work

            self._driver = batch_driver()

    def run(self) -> list[list[tuple[int, int]]]:
        """Sorted, disjoint, half-open ranges of every query."""
        results: list[list[tuple[int, int]]] = [[] for _ in range(self.size)]
        if self.native:
            with self._lock:
                counts, flat = self._call()
            pos = 0
            for position, count in zip(self.native, counts, strict=True):
                if count == 1:
                    results[position] = [(flat[pos], flat[pos + 1])]
                    pos += 2
                elif count:
                    end = pos + 2 * abs(count)
                    pairs = list(zip(flat[pos:end:2], flat[pos + 1:end:2], strict=True))
                    results[position] = pairs if count > 0 else merge_ranges(pairs)
                    pos = end
        for position, enumerator, box in self.other:
            results[position] = enumerator.ranges(box)
        return results

    def _call(self) -> tuple[list[int], list[int]]:
        """(per-query counts, the flat output) from one driver call; grows the buffer and repeats when
        the ranges did not fit."""
        count = len(self.native)
        total = self._driver(count, self._functions, self._bounds, self._out, self.capacity, self._counts)
        if total > self.capacity:
            self.capacity = 2 * total
            self._out = (Int64Array * (2 * self.capacity))()
            total = self._driver(count, self._functions, self._bounds, self._out, self.capacity,
                                 self._counts)
        return self._counts[:count], self._out[:2 * total]
