"""Every isl operation of the tool, in one place.

Access maps are written over symbolic launch parameters with products such as
``bdx*bx`` that isl cannot hold (see ``s2s/analysis/affine.py``); every operation here therefore
instantiates the parameters first, through ``runtime.access`` (the tool may import the
runtime, never the reverse). Decisions that must hold for all launches are taken on a panel
of sample launches (:data:`SAMPLE_LAUNCHES`) with distinct small values, chosen so that
block, grid and scalar sizes differ from one another in both orders; the runtime repeats the
injectivity check exactly for the actual launch (``KernelAccess.launch_conflict``).
Comparisons are mathematical (``is_equal``), never textual.
"""

from __future__ import annotations

from runtime.access.islmaps import instantiate_map, write_conflict
from runtime.access.maptext import split_header

GRID_PARAMS = ("gdx", "gdy", "gdz", "bdx", "bdy", "bdz")
_PRIMES = (5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61)
#: (grid, block, scalar values in parameter order) of the sample launches.
SAMPLE_LAUNCHES = (
    ((3, 2, 2), (4, 3, 2), _PRIMES),
    ((4, 3, 1), (8, 2, 1), tuple(reversed(_PRIMES))),
    ((2, 2, 1), (32, 4, 1), tuple(range(64, 80))),
)


def sample_values(text: str, fixed: dict[str, int] | None = None) -> list[dict[str, int]]:
    """Launch values of the sample panel for the parameters of ``text``; ``fixed`` overrides
    (a kernel that never reads ``threadIdx.y`` is sampled with ``blockDim.y = 1``: launching
    it with more would make every ``y`` thread repeat the same work)."""
    names = split_header(text)[0]
    scalars = [n for n in names if n not in GRID_PARAMS]
    out = []
    for grid, block, values in SAMPLE_LAUNCHES:
        known = dict(zip(GRID_PARAMS, (*grid, *block), strict=True))
        known.update(zip(scalars, values, strict=False))
        known.update(fixed or {})
        out.append({n: known.get(n, 1) for n in names})
    return out


def write_conflicts(text: str, fixed: dict[str, int] | None = None
                    ) -> tuple[str, int, dict] | None:
    """The first sample launch where two threads write one element of the ``text`` map:
    (``'blocks'`` or ``'threads'``, the element, the launch values); None if injective on all.
    A ``'blocks'`` conflict anywhere wins over a ``'threads'`` one."""
    within = None
    for values in sample_values(text, fixed):
        found = write_conflict(instantiate_map(text, values))
        if found is None:
            continue
        if found[0] == "blocks":
            return found[0], found[1], values
        within = within or (found[0], found[1], values)
    return within


#: scalar values of the large-size launches: distinct, and larger than any sample grid extent
_LARGE_SCALARS = tuple(4096 + 64 * k + p for k, p in enumerate(_PRIMES))


#: The fusion legality's extra panel: the first sample grid with large scalar values. A
#: guard ``if (ei < n)`` over ``ei = bx * 512 + tx`` (a block size written as a constant)
#: leaves only block 0's threads active when ``n`` is a small prime, so a consumer reading
#: what other blocks wrote (``c[iS[row] + Nr * col]``, Rodinia srad) would look like one
#: block's business; with large sizes every block takes part.
LARGE_SAMPLE = (SAMPLE_LAUNCHES[0][0], SAMPLE_LAUNCHES[0][1], _LARGE_SCALARS)


def large_size_conflict(text: str, fixed: dict[str, int] | None = None
                        ) -> tuple[str, int, dict] | None:
    """The first sample grid where threads of two blocks write one element of the map
    ``text`` when its integer parameters (sizes, row widths, plane strides) are large, as
    ``write_conflicts`` gives it; None when there is none, or when the map has no integer
    parameter (then the sample launches alone decide).

    Sizes decide both ways: a conflict on the small sample launches may vanish with large
    sizes (``out[y * width + x]`` with ``width`` below the grid's threads in x), and a write
    that only block 0's threads reach on them (``if (tid < n) *flag = 1`` with ``blockDim.x``
    fixed at 512) is made by every block when ``n`` is large. Only the launch's own sizes
    settle it; the runtime checks each launch (``KernelAccess.launch_conflict``)."""
    names = split_header(text)[0]
    scalars = [n for n in names if n not in GRID_PARAMS]
    if not scalars:
        return None
    for values in sample_values(text, fixed):
        values.update(zip(scalars, _LARGE_SCALARS, strict=False))
        found = write_conflict(instantiate_map(text, values))
        if found is not None and found[0] == "blocks":
            return found[0], found[1], values
    return None


def has_size_parameters(text: str) -> bool:
    """Whether the map ``text`` has an integer parameter besides the grid's."""
    return any(n not in GRID_PARAMS for n in split_header(text)[0])


def maps_equal(first: str, second: str, values: dict[str, int]) -> bool:
    """Whether two map texts denote the same relation for the given launch values."""
    a, b = instantiate_map(first, values), instantiate_map(second, values)
    return a.is_equal(b.align_params(a.get_space()))


def map_is_empty(text: str, values: dict[str, int]) -> bool:
    return instantiate_map(text, values).is_empty()


# --- fusion: relations between the accesses of two launches ---------------------------------

def _instantiated(texts: list[str], values: dict[str, int], array: str):
    """The union of the maps ``texts`` (one kernel's accesses of one buffer, possibly through
    several parameters) with the range tuple renamed to ``array`` so that maps of different
    kernels (whose parameters have different names) can be compared."""
    import islpy as isl

    result = None
    for text in texts:
        names = split_header(text)[0]
        m = instantiate_map(text, {n: values[n] for n in names})
        m = m.set_tuple_name(isl.dim_type.out, array)
        result = m if result is None else result.union(m)
    return result


def access_scope(first: list[str], first_values: dict, second: list[str], second_values: dict
                 ) -> str:
    """Who touches an element of both access sets: ``'thread'`` when every element common to
    the two relations is accessed by the same thread in both, ``'block'`` when by threads of
    one block, else ``'grid'`` (threads of different blocks: a global barrier)."""
    import islpy as isl

    a = _instantiated(first, first_values, "S2S_BUF")
    b = _instantiated(second, second_values, "S2S_BUF")
    pairs = b.apply_range(a.reverse())          # thread of the second -> thread of the first
    if pairs.is_empty():
        return "thread"
    same_thread = isl.Map("{ [bx, by, bz, tx, ty, tz] -> [bx, by, bz, tx, ty, tz] }")
    if pairs.is_subset(same_thread):
        return "thread"
    same_block = isl.Map("{ [bx, by, bz, tx, ty, tz] -> [bx, by, bz, ux, uy, uz] }")
    return "block" if pairs.is_subset(same_block) else "grid"


def covered_by_same_thread(reads: list[str], read_values: dict, writes: list[str],
                           write_values: dict, per_block: bool = False) -> bool:
    """Whether every (thread, element) of ``reads`` is in ``writes`` (``per_block``: every
    (block, element)), and ``writes`` gives each thread (block) at most one element: then a
    register (a shared variable) can carry the element from the first access to the second."""
    import islpy as isl

    r = _instantiated(reads, read_values, "S2S_BUF")
    w = _instantiated(writes, write_values, "S2S_BUF")
    if per_block:
        r = r.project_out(isl.dim_type.in_, 3, 3)
        w = w.project_out(isl.dim_type.in_, 3, 3)
    return r.is_subset(w) and w.is_single_valued()


# --- fusion by recomputation ------------------------------------------------------------------

def reads_within_writes(reads: list[str], read_values: dict, writes: list[str],
                        write_values: dict) -> bool:
    """Whether every element the ``reads`` maps touch is written by the ``writes`` maps (each
    instantiated with its own launch's values): the producer's must-write set covers them."""
    r = _instantiated(reads, read_values, "S2S_BUF")
    w = _instantiated(writes, write_values, "S2S_BUF")
    return r.range().is_subset(w.range())


def injective(text: str, values: dict[str, int]) -> bool:
    """Whether no two threads of the launch ``values`` write one element of the map ``text``."""
    return write_conflict(instantiate_map(text, values)) is None
