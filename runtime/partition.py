"""Splitting a launch grid into boxes of blocks, one per device.

``Box`` and ``Launch`` are the types of the access contract (``runtime.access`` re-exports them): one
definition, so the boxes this module makes and the launch values ``runtime.launch`` collects go to
``KernelAccess.read_ranges`` / ``write_ranges`` / ``launch_conflict`` as they are.  They live here, in a
module without dependencies, because the access package needs isl and the runtime's plain (unpartitioned)
paths do not.

Why 1-D along the outermost dimension first: kernels map blockIdx.y (or .z) to rows of row-major arrays,
so a split along y gives each device a contiguous band of memory and one segment per written array.  A
2-D split is used when asked for, or when no single dimension has at least P blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.errors import ConfigError

Dim3 = tuple[int, int, int]


@dataclass(frozen=True)
class Box:
    """A box of blocks, half-open per dimension (x, y, z): [lo, hi)."""
    lo: Dim3
    hi: Dim3

    @property
    def blocks(self) -> int:
        return max(0, self.hi[0] - self.lo[0]) * max(0, self.hi[1] - self.lo[1]) * max(0, self.hi[2] - self.lo[2])

    @property
    def empty(self) -> bool:
        return self.blocks == 0


@dataclass(frozen=True)
class Launch:
    """Launch-time values an access model needs: grid and block sizes, integer scalars by name."""
    grid: Dim3
    block: Dim3
    scalars: dict[str, int] = field(default_factory=dict)

    def values(self, names) -> dict[str, int]:
        """Values of the map parameters ``names`` (gdx..bdz and scalar names); KeyError names a missing one."""
        grid, block, scalars = self.grid, self.block, self.scalars
        known = {"gdx": grid[0], "gdy": grid[1], "gdz": grid[2],
                 "bdx": block[0], "bdy": block[1], "bdz": block[2]}
        try:
            return {n: int(known[n] if n in known else scalars[n]) for n in names}
        except KeyError as missing:
            raise KeyError(f"launch has no value for {missing.args[0]}") from None


LaunchConfig = Launch   # the name this module used before the access package was merged


def dim3(value) -> Dim3:
    items = (int(value),) if isinstance(value, int) else tuple(int(v) for v in value)
    if not 1 <= len(items) <= 3:
        raise ConfigError(f"dimension {value!r}: expected 1 to 3 values")
    return (items + (1, 1, 1))[:3]  # type: ignore[return-value]


def _cuts(extent: int, parts: int) -> list[int]:
    """parts+1 boundaries splitting [0, extent) as evenly as possible."""
    return [extent * k // parts for k in range(parts + 1)]


def _boxes_along(grid: Dim3, axis: int, parts: int) -> list[Box]:
    cuts = _cuts(grid[axis], parts)
    out = []
    for k in range(parts):
        lo, hi = [0, 0, 0], list(grid)
        lo[axis], hi[axis] = cuts[k], cuts[k + 1]
        out.append(Box(tuple(lo), tuple(hi)))  # type: ignore[arg-type]
    return out


def _factor(parts: int, ex: int, ey: int) -> tuple[int, int]:
    """px * py == parts with the pieces as square as the grid allows."""
    best = (parts, 1)
    best_score = None
    for px in range(1, parts + 1):
        if parts % px:
            continue
        py = parts // px
        score = (px > ex) + (py > ey), abs(ex / px - ey / py)
        if best_score is None or score < best_score:
            best, best_score = (px, py), score
    return best


def split_grid(grid, parts: int, mode: str = "auto") -> list[Box]:
    """``parts`` boxes covering ``grid`` (some may be empty when the grid has fewer blocks than parts).

    mode: ``auto`` (1-D along the outermost dimension with >= parts blocks, else 2-D), ``1d``, ``2d``.
    """
    grid = dim3(grid)
    if parts < 1:
        raise ConfigError(f"cannot split a grid into {parts} parts")
    if mode not in ("auto", "1d", "2d"):
        raise ConfigError(f"partition mode {mode!r}: expected auto, 1d or 2d")
    if parts == 1:
        return [Box((0, 0, 0), grid)]
    outer = next((a for a in (2, 1, 0) if grid[a] > 1), 0)
    if mode == "1d" or (mode == "auto" and any(grid[a] >= parts for a in (2, 1, 0))):
        axis = next((a for a in (2, 1, 0) if grid[a] >= parts), outer) if mode == "auto" else outer
        return _boxes_along(grid, axis, parts)
    px, py = _factor(parts, grid[0], grid[1])
    xs, ys = _cuts(grid[0], px), _cuts(grid[1], py)
    return [Box((xs[i], ys[j], 0), (xs[i + 1], ys[j + 1], grid[2])) for j in range(py) for i in range(px)]
