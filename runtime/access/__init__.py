"""Kernel access models at run time: which element ranges a box of blocks reads and writes.

The tool (``s2s``) derives each kernel's access maps and serializes them (see
``KernelAccess.to_dict``); partitioned launches load that form here and ask, per partition,
for sorted, disjoint, half-open element ranges. Maps are written over symbolic launch
parameters and instantiated with the launch's values (``maptext.py``); each (kernel, array,
mode, launch values) gets a row plan (``islmaps.py``) and, unless disabled, a native
enumerator compiled with llvmlite (``jit.py``), both cached. The pure-isl enumerator gives the
same ranges and serves when llvmlite is unavailable (``S2S_ACCESS_JIT=0``).

Plans are made per box *pattern* (which grid axes the box spans completely, ``box_pattern``): a
row band of a 2-D grid gets a plan for exactly such bands, usually one interval per box without a
row loop. ``KernelAccess.launch_ranges`` answers every (box, array, mode) of a launch from one
native call (``batch.py``).

Reads may be over-approximated (``read_exact`` False); a read of unknown offsets ends at
``UNBOUNDED``: clip it to the buffer. Writes are exact for a partitionable kernel.
"""

from __future__ import annotations

import ctypes
import operator
import os
import threading
from dataclasses import dataclass, field

from runtime.access.batch import LaunchBatch
from runtime.access.islmaps import (
    NO_FULL_AXES,
    UNBOUNDED,
    box_pattern,
    instantiate_map,
    isl_ranges,
    merge_ranges,
    plan_rows,
    write_conflict,
)
from runtime.access.maptext import split_header
from runtime.partition import Box, Launch

GRID_PARAMS = ("gdx", "gdy", "gdz", "bdx", "bdy", "bdz")


@dataclass(frozen=True)
class ArrayModel:
    """The serialized access of one pointer parameter."""

    elem_size: int | None
    read: str | None
    write: str | None
    read_exact: bool = True
    write_exact: bool = True

    def params(self, mode: str) -> tuple[str, ...]:
        """The launch parameters a map needs (its header), parsed once."""
        found = _PARAMS.get(getattr(self, mode))
        if found is None:
            found = _PARAMS[getattr(self, mode)] = tuple(split_header(getattr(self, mode))[0])
        return found


_PARAMS: dict[str, tuple[str, ...]] = {}


class _Enumerator:
    """Ranges of one instantiated map for any box: a JIT function or the isl fallback."""

    def __init__(self, text: str, values: dict[str, int], grid, use_jit: bool, full=NO_FULL_AXES):
        self.plan = plan_rows(instantiate_map(text, values), grid, full)
        self.function = None
        if use_jit:
            from runtime.access.jit import compile_plan  # llvmlite only when asked for

            self.function = compile_plan(self.plan)
        self.capacity = 256
        self.buffer = (ctypes.c_int64 * (2 * self.capacity))()
        self.bounds = (ctypes.c_int64 * 6)()
        self.lock = threading.Lock()

    def ranges(self, box: Box) -> list[tuple[int, int]]:
        if self.function is None:
            return isl_ranges(self.plan, box)
        with self.lock:
            bounds = self.bounds
            bounds[0:3] = box.lo
            bounds[3:6] = box.hi
            count = self.function(bounds, self.buffer, self.capacity)
            if abs(count) > self.capacity:
                self.capacity = 2 * abs(count)
                self.buffer = (ctypes.c_int64 * (2 * self.capacity))()
                count = self.function(bounds, self.buffer, self.capacity)
            flat = self.buffer[: 2 * abs(count)]
        if count == 1:
            return [(flat[0], flat[1])]
        pairs = list(zip(flat[::2], flat[1::2], strict=True))
        return pairs if count >= 0 else merge_ranges(pairs)


_CACHE: dict[tuple, _Enumerator] = {}
_CACHE_LOCK = threading.Lock()


def jit_enabled() -> bool:
    """Whether enumerators are compiled (read once, at import: ``S2S_ACCESS_JIT=0`` disables)."""
    return _JIT


_JIT = os.environ.get("S2S_ACCESS_JIT", "1") not in ("0", "false", "no")


@dataclass(frozen=True)
class KernelAccess:
    """The access model of one kernel (see the module docstring and the contract)."""

    kernel: str
    params: tuple[str, ...]
    partitionable: bool
    reason: str | None
    models: dict[str, ArrayModel]
    _found: dict = field(default_factory=dict, compare=False, repr=False)
    #: [launch object, jit flag, {(array, mode, pattern): enumerator}]: the partitions of one
    #: launch ask with the same Launch object, so they skip even the key computation.
    _last: list = field(default_factory=lambda: [None, None, {}], compare=False, repr=False)
    #: [launch object, jit flag, boxes, LaunchBatch]: the last ``launch_ranges`` question.
    _batch: list = field(default_factory=lambda: [None, None, (), None], compare=False, repr=False)

    @property
    def arrays(self) -> tuple[str, ...]:
        return tuple(self.models)

    @classmethod
    def from_dict(cls, data: dict) -> KernelAccess:
        models = {name: ArrayModel(a.get("elem_size"), a.get("read"), a.get("write"),
                                   a.get("read_exact", True), a.get("write_exact", True))
                  for name, a in data["arrays"].items()}
        return cls(data["kernel"], tuple(data["params"]), bool(data["partitionable"]), data.get("reason"), models)

    def to_dict(self) -> dict:
        return {
            "kernel": self.kernel, "params": list(self.params),
            "partitionable": self.partitionable, "reason": self.reason,
            "arrays": {name: {"elem_size": m.elem_size, "read": m.read, "write": m.write,
                              "read_exact": m.read_exact, "write_exact": m.write_exact}
                       for name, m in self.models.items()},
        }

    @property
    def queries(self) -> tuple[tuple[str, str], ...]:
        """(array, mode) of every map, in model order: the order of ``launch_ranges``' answers."""
        found = self._found.get("queries")
        if found is None:
            found = self._found["queries"] = tuple(
                (name, mode) for name, model in self.models.items() for mode in ("read", "write")
                if getattr(model, mode) is not None)
        return found

    def reads(self, array: str) -> bool:
        return self.models[array].read is not None

    def writes(self, array: str) -> bool:
        return self.models[array].write is not None

    def read_ranges(self, array: str, box: Box, launch: Launch, jit: bool | None = None):
        return self._ranges(array, "read", box, launch, jit)

    def write_ranges(self, array: str, box: Box, launch: Launch, jit: bool | None = None):
        return self._ranges(array, "write", box, launch, jit)

    def launch_ranges(self, boxes, launch: Launch, jit: bool | None = None) -> list[list[tuple[int, int]]]:
        """The ranges of every query (``queries``) for every box, box-major: the answer for box b and
        query q is at ``b * len(queries) + q``. One native call for all of them (``batch.py``); the
        prepared call is kept for the next question with the same Launch object and Box objects."""
        use_jit = _JIT if jit is None else jit
        last = self._batch
        if (last[0] is launch and last[1] == use_jit and len(last[2]) == len(boxes)
                and all(map(operator.is_, boxes, last[2]))):
            return last[3].run()
        items = []
        for box in boxes:
            full = box_pattern(box, launch.grid)
            items += [(self.enumerator(array, mode, launch, use_jit, full), box) for array, mode in self.queries]
        batch = LaunchBatch(items)
        last[:] = [launch, use_jit, tuple(boxes), batch]
        return batch.run()

    def enumerator(self, array: str, mode: str, launch: Launch, jit: bool | None = None, full=NO_FULL_AXES):
        """The cached enumerator of (kernel, array, mode, launch values, box pattern), None if no
        access. ``full``: the axes along which the boxes it will be asked about span the whole grid
        (``box_pattern``); the default plan serves any box."""
        use_jit = _JIT if jit is None else jit
        last = self._last
        if last[0] is launch and last[1] == use_jit:
            found = last[2].get((array, mode, full))
            if found is not None:
                return found
        else:
            last[0], last[1], last[2] = launch, use_jit, {}
        model = self.models[array]
        text = getattr(model, mode)
        if text is None:
            return None
        names = model.params(mode)
        values = launch.values(names)
        local = (array, mode, tuple(values[n] for n in names), launch.grid, use_jit, full)
        found = self._found.get(local)
        if found is None:
            key = (text, local[2], launch.grid, use_jit, full)
            with _CACHE_LOCK:
                found = _CACHE.get(key)
                if found is None:
                    found = _CACHE[key] = _Enumerator(text, values, launch.grid, use_jit, full)
            self._found[local] = found
        last[2][(array, mode, full)] = found
        return found

    def _ranges(self, array: str, mode: str, box: Box, launch: Launch, jit: bool | None):
        enumerator = self.enumerator(array, mode, launch, jit, box_pattern(box, launch.grid))
        return [] if enumerator is None else enumerator.ranges(box)

    def launch_conflict(self, launch: Launch) -> str | None:
        """Exact check for one launch: why threads of different blocks write one element,
        or None. (``partitionable`` was decided on sample launches by the tool.) The answer is
        cached per array and launch values, so repeated launches pay a dictionary lookup."""
        for name, model in self.models.items():
            if model.write is None:
                continue
            values = launch.values(model.params("write"))
            key = ("conflict", name, tuple(values.values()))
            if key not in self._found:
                found = write_conflict(instantiate_map(model.write, values))
                self._found[key] = (f"threads of different blocks write {name}[{found[1]}]"
                                    if found is not None and found[0] == "blocks" else None)
            if self._found[key] is not None:
                return self._found[key]
        return None


def clear_cache() -> None:
    """Forget every enumerator (benchmarks of the build cost); live KernelAccess objects keep
    the ones they already looked up."""
    with _CACHE_LOCK:
        _CACHE.clear()


__all__ = ["UNBOUNDED", "Box", "KernelAccess", "Launch", "clear_cache", "jit_enabled"]
