"""Kernel access models at run time: which element ranges a box of blocks reads and writes.

The tool (``s2s``) derives each kernel's access maps and serializes them (see
``KernelAccess.to_dict``); partitioned launches load that form here and ask, per partition,
for sorted, disjoint, half-open element ranges. Maps are written over symbolic launch
parameters and instantiated with the launch's values (``maptext.py``); each (kernel, array,
mode, launch values) gets a row plan (``islmaps.py``) and, unless disabled, a native
enumerator compiled with llvmlite (``jit.py``), both cached. The pure-isl enumerator gives the
same ranges and serves when llvmlite is unavailable (``S2S_ACCESS_JIT=0``).

Reads may be over-approximated (``read_exact`` False); a read of unknown offsets ends at
``UNBOUNDED``: clip it to the buffer. Writes are exact for a partitionable kernel.
"""

from __future__ import annotations

import ctypes
import os
import threading
from dataclasses import dataclass, field

from runtime.access.islmaps import (
    UNBOUNDED,
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

    def __init__(self, text: str, values: dict[str, int], grid, use_jit: bool):
        self.plan = plan_rows(instantiate_map(text, values), grid)
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
    #: [launch object, jit flag, {(array, mode): enumerator}]: the partitions of one launch
    #: ask with the same Launch object, so they skip even the key computation.
    _last: list = field(default_factory=lambda: [None, None, {}], compare=False, repr=False)

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

    def reads(self, array: str) -> bool:
        return self.models[array].read is not None

    def writes(self, array: str) -> bool:
        return self.models[array].write is not None

    def read_ranges(self, array: str, box: Box, launch: Launch, jit: bool | None = None):
        return self._ranges(array, "read", box, launch, jit)

    def write_ranges(self, array: str, box: Box, launch: Launch, jit: bool | None = None):
        return self._ranges(array, "write", box, launch, jit)

    def enumerator(self, array: str, mode: str, launch: Launch, jit: bool | None = None):
        """The cached enumerator of (kernel, array, mode, launch values), None if no access."""
        use_jit = _JIT if jit is None else jit
        last = self._last
        if last[0] is launch and last[1] == use_jit:
            found = last[2].get((array, mode))
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
        local = (array, mode, tuple(values[n] for n in names), launch.grid, use_jit)
        found = self._found.get(local)
        if found is None:
            key = (text, local[2], launch.grid, use_jit)
            with _CACHE_LOCK:
                found = _CACHE.get(key)
                if found is None:
                    found = _CACHE[key] = _Enumerator(text, values, launch.grid, use_jit)
            self._found[local] = found
        last[2][(array, mode)] = found
        return found

    def _ranges(self, array: str, mode: str, box: Box, launch: Launch, jit: bool | None):
        enumerator = self.enumerator(array, mode, launch, jit)
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
