"""A small stand-in for runtime.access.KernelAccess (issue 4), implementing the contract's methods.

Ranges come from plain Python functions of (box, launch) instead of isl maps: tests of the runtime's
coherence logic use it to state exactly which ranges a box touches (including deliberately odd ones);
testsuite/runtime/test_real_access.py drives the same launches with real models from the analysis.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Ranges = Callable[[object, object], list[tuple[int, int]]]


def _normal(ranges):
    """Sorted, disjoint, non-empty half-open ranges (the contract's promise)."""
    out = []
    for lo, hi in sorted(r for r in ranges if r[0] < r[1]):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


@dataclass
class FakeArray:
    elem_size: int
    read: Ranges | None = None
    write: Ranges | None = None


@dataclass
class FakeAccess:
    kernel: str
    params: list[str]
    array_models: dict[str, FakeArray] = field(default_factory=dict)
    partitionable: bool = True
    reason: str | None = None
    calls: int = 0

    conflict: str | None = None

    @property
    def arrays(self) -> tuple[str, ...]:
        return tuple(self.array_models)

    @property
    def models(self) -> dict[str, FakeArray]:
        return self.array_models

    def launch_conflict(self, launch) -> str | None:
        return self.conflict

    def reads(self, array: str) -> bool:
        return self.array_models[array].read is not None

    def writes(self, array: str) -> bool:
        return self.array_models[array].write is not None

    def read_ranges(self, array, box, launch):
        self.calls += 1
        fn = self.array_models[array].read
        return _normal(fn(box, launch)) if fn else []

    def write_ranges(self, array, box, launch):
        self.calls += 1
        fn = self.array_models[array].write
        return _normal(fn(box, launch)) if fn else []

    def to_dict(self) -> dict:
        return {"kernel": self.kernel, "params": list(self.params), "partitionable": self.partitionable,
                "reason": self.reason,
                "arrays": {a: {"elem_size": m.elem_size, "read": None, "write": None, "read_exact": True,
                               "write_exact": True} for a, m in self.array_models.items()}}


# ---- range helpers for the common index patterns ----
def linear_1d(n_param: str, halo: int = 0) -> Ranges:
    """i = blockIdx.x*blockDim.x + threadIdx.x, guarded by i < n; +-halo neighbours clamped."""
    def ranges(box, launch):
        n = launch.scalars[n_param]
        bd = launch.block[0]
        return [(max(0, box.lo[0] * bd - halo), min(n, box.hi[0] * bd + halo))]
    return ranges


def rows_2d(width_param: str, height_param: str, halo_rows: int = 0) -> Ranges:
    """c = y*width + x with x, y from a 2-D grid; rows of the box, +-halo rows (whole rows)."""
    def ranges(box, launch):
        w, h = launch.scalars[width_param], launch.scalars[height_param]
        y0 = max(0, box.lo[1] * launch.block[1] - halo_rows)
        y1 = min(h, box.hi[1] * launch.block[1] + halo_rows)
        x0, x1 = box.lo[0] * launch.block[0], min(w, box.hi[0] * launch.block[0])
        if halo_rows or (x0 == 0 and x1 >= w):
            return [(y0 * w, y1 * w)] if y0 < y1 else []
        return [(y * w + x0, y * w + x1) for y in range(y0, y1)]
    return ranges


def whole(count: Callable[[object], int]) -> Ranges:
    return lambda box, launch: [(0, count(launch))]
