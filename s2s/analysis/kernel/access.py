"""Access model of a kernel: isl access maps per pointer parameter, must/may, partitionability.

From the interpreter's access records (``interp.py``) each pointer parameter gets a read
and a write relation from threads ``[bx, by, bz, tx, ty, tz]`` to element offsets ``A[i]``,
written as isl text over the launch parameters ``[gdx, gdy, gdz, bdx, bdy, bdz, <int
scalars>]``. One record is one disjunct; loop counters, quotients and data values are
existentially quantified.

Non-affine products of parameters (``blockIdx.x*blockDim.x``, ``y*width + x``) are kept in the
text and made affine by *instantiating the launch parameters* (``runtime.access.maptext``):
the runtime knows grid, block and scalar values at every launch, instantiation is exact for
any index polynomial with one thread-dependent factor per term, and it needs no shape
guessing. Delinearization was not used: it recovers ``[y][x]`` only when ``0 <= x < width`` is
provable, and the row structure it would give is found anyway at enumeration time, where the
enumerator cuts the instantiated image into rows of a checked width. The price: enumerators
are built per launch configuration (cached), and static decisions are made on sample launches.

Must/may: a record is *may* when a condition on its path was not modelled or its guard
involves data. Reads may be over-approximated (``read_exact`` False; unknown offsets become
the whole array from offset 0). Writes never are: a write at a non-affine or data-dependent
offset, through an unknown pointer, or shared by threads of different blocks makes the kernel
unpartitionable with a reason. A *may* write is kept in the write map and also added to the
read map, so that the partition's device holds current values of elements it may leave alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s import isl_helpers
from s2s.analysis.kernel.interp import GRID_PARAMS, THREAD_DIMS, interpret
from s2s.analysis.kernel.values import AccessRecord
from s2s.model.kernel_ir import KernelBody

ISL_WORDS = frozenset({"exists", "and", "or", "not", "implies", "mod", "floor", "ceil", "min",
                       "max", "infty", "NaN", "true", "false"})
RESERVED = frozenset(GRID_PARAMS + THREAD_DIMS + ("lx", "ly", "lz", "hx", "hy", "hz"))


@dataclass(frozen=True)
class ArrayAccess:
    """Read and write relations of one pointer parameter (None: no such access)."""

    name: str
    elem_size: int | None
    read: str | None
    write: str | None
    read_exact: bool = True
    write_exact: bool = True


@dataclass(frozen=True)
class KernelAccessModel:
    """What ``s2s inspect --access`` shows and the mgpu rewrite embeds (``to_dict``)."""

    kernel: str
    params: tuple[str, ...]
    map_params: tuple[str, ...]
    arrays: tuple[ArrayAccess, ...]
    partitionable: bool
    reason: str | None
    notes: tuple[str, ...] = ()
    #: unpartitionable only because threads of different blocks write one element: a launch
    #: of a single block is still well defined (``s2s fuse`` completes such a kernel in the
    #: last block of a fused grid)
    cross_block_only: bool = False
    #: set when the launch's own sizes decide whether the kernel's writes are injective
    #: across blocks (``isl_helpers.large_size_conflict``): every reason is a conflict of the
    #: sample launches that large sizes do not have, or (no reason) large sizes bring one;
    #: why, per array. The runtime checks each launch (``KernelAccess.launch_conflict``).
    sizes_decide: tuple[str, ...] = ()

    def array(self, name: str) -> ArrayAccess | None:
        for array in self.arrays:
            if array.name == name:
                return array
        return None

    def to_dict(self) -> dict:
        """The serialized form of the analysis/runtime contract (``runtime.access``)."""
        return {
            "kernel": self.kernel, "params": list(self.params),
            "partitionable": self.partitionable, "reason": self.reason,
            "arrays": {a.name: {"elem_size": a.elem_size, "read": a.read, "write": a.write,
                                "read_exact": a.read_exact, "write_exact": a.write_exact}
                       for a in self.arrays},
        }


def analyze_unit(bodies: tuple[KernelBody, ...]) -> tuple[KernelAccessModel, ...]:
    """Access models of every ``__global__`` kernel among ``bodies`` (device functions inline)."""
    functions = {b.name: b for b in bodies if not b.is_global}
    return tuple(analyze_kernel(b, functions) for b in bodies if b.is_global)


def analyze_kernel(kernel: KernelBody, functions: dict[str, KernelBody]) -> KernelAccessModel:
    outcome = interpret(kernel, functions)
    scalars = tuple(p.name for p in kernel.params if p.kind == "int")
    map_params = GRID_PARAMS + scalars
    reasons = list(outcome.issues)
    clashes = [s for s in scalars if s in RESERVED or s.startswith("_")]
    if clashes:
        reasons.append(f"parameter {clashes[0]} clashes with a name of the access maps")
    out_dim = "_i" if "i" in scalars else "i"
    builder = _MapBuilder(map_params, out_dim, outcome.data_vars)
    fixed = sample_overrides(outcome.records)
    arrays, notes, cross_block, sizes_decide, deferred = [], [], 0, [], 0
    for param in kernel.pointer_params:
        records = [r for r in outcome.records if r.array == param.name]
        array, why = builder.array(param.name, param.elem_size, records)
        reasons += why
        if array.write is not None and not why:
            conflict = isl_helpers.write_conflicts(array.write, fixed)
            if conflict is not None:
                message = _conflict_message(param.name, conflict, records)
                (reasons if conflict[0] == "blocks" else notes).append(message)
                cross_block += conflict[0] == "blocks"
            why_sizes = _sizes_decide(param.name, array.write, conflict, fixed, records)
            sizes_decide += why_sizes
            deferred += bool(why_sizes) and conflict is not None and conflict[0] == "blocks"
        arrays.append(array)
    return KernelAccessModel(kernel.name, tuple(p.name for p in kernel.params), map_params,
                             tuple(arrays), not reasons, reasons[0] if reasons else None,
                             tuple(reasons[1:] + notes),
                             bool(reasons) and cross_block == len(reasons),
                             tuple(sizes_decide) if deferred == cross_block == len(reasons)
                             else ())


def _sizes_decide(name: str, write: str, conflict, fixed: dict[str, int],
                  records: list[AccessRecord]) -> list[str]:
    """Why the launch's sizes decide whether threads of different blocks write one element
    of ``name`` (``isl_helpers.large_size_conflict``), [] when the sample launches decide:
    the sample launches' conflict gone with large sizes (the message of the conflict), or a
    conflict only large sizes show."""
    large = isl_helpers.large_size_conflict(write, fixed)
    if conflict is not None and conflict[0] == "blocks":
        if large is None and isl_helpers.has_size_parameters(write):
            return [f"on a sample launch {_conflict_message(name, conflict, records)}"]
        return []
    if large is not None:
        return [f"on a launch with large sizes {_conflict_message(name, large, records)}"]
    return []


def sample_overrides(records: list[AccessRecord]) -> dict[str, int]:
    """Launch values the sample launches must respect: extent 1 in dimensions no access
    depends on (except the grid's x extent), and ``blockDim.x = c`` when the kernel scales ``blockIdx.x`` by a constant
    ``c`` (``blockIdx.x * TILE + threadIdx.x`` assumes blocks of TILE threads)."""
    used, scales = set(), {}
    polys = [r.index for r in records if r.index is not None]
    polys += [c.poly for r in records for c in r.constraints]
    for poly in polys:
        used |= poly.atoms()
        for mono, coeff in poly.terms:
            if len(mono) == 1 and mono[0] in ("bx", "by", "bz") and abs(coeff) > 1:
                scales[mono[0]] = max(scales.get(mono[0], 0), abs(coeff))
    fixed = {}
    for axis in "xyz":
        pairs = [(f"t{axis}", f"bd{axis}")] + ([(f"b{axis}", f"gd{axis}")] if axis != "x" else [])
        for thread, extent in pairs:  # gridDim.x stays > 1: blocks that ignore blockIdx clash
            if thread not in used and extent not in used:
                fixed[extent] = 1
        if f"b{axis}" in scales and f"bd{axis}" not in fixed:
            fixed[f"bd{axis}"] = scales[f"b{axis}"]
    return fixed


def _conflict_message(name: str, conflict, records: list[AccessRecord]) -> str:
    kind, element, _values = conflict
    atomics = sorted({r.atomic for r in records if r.atomic and r.mode == "write"})
    suffix = f" ({', '.join(atomics)} reduction)" if atomics else ""
    if kind == "blocks":
        return f"threads of different blocks write {name}[{element}]{suffix}"
    return (f"threads of one block write the same element of {name} (e.g. {name}[{element}])"
            f"{suffix}; blocks stay whole on one device, so partitioning is unaffected")


class _MapBuilder:
    """Record -> isl text, by dimension name."""

    def __init__(self, map_params: tuple[str, ...], out_dim: str, data_vars: set[str]):
        self.params = set(map_params)
        self.header = f"[{', '.join(map_params)}] -> "
        self.out_dim = out_dim
        self.data_vars = data_vars
        bounds = [f"0 <= {d} < {g}" for d, g in zip(THREAD_DIMS, ("gdx", "gdy", "gdz", "bdx",
                                                                   "bdy", "bdz"), strict=True)]
        self.domain = " and ".join(bounds)

    def text(self, name: str, pieces: list[str]) -> str | None:
        if not pieces:
            return None
        return self.header + "{ " + "; ".join(dict.fromkeys(pieces)) + " }"

    def piece(self, name: str, record: AccessRecord | None) -> str:
        # a struct member's buffer (``GSD.samples``, kernel.members) is no isl identifier
        tuple_name = name.replace(".", "_") if name not in ISL_WORDS else "A"
        head = f"[{', '.join(THREAD_DIMS)}] -> {tuple_name}[{self.out_dim}] : "
        if record is None or record.index is None:
            return head + f"{self.out_dim} >= 0 and {self.domain}"
        parts = [f"{self.out_dim} = {record.index.to_text()}"]
        parts += [c.to_text() for c in record.constraints]
        atoms = set(record.index.atoms())
        for c in record.constraints:
            atoms |= c.poly.atoms()
        hidden = sorted(a for a in atoms if a not in self.params and a not in THREAD_DIMS)
        body = " and ".join(parts + [self.domain])
        if hidden:
            return head + f"exists ({', '.join(hidden)} : {body})"
        return head + body

    def exact(self, record: AccessRecord) -> bool:
        if record.may or record.index is None or record.index.atoms() & self.data_vars:
            return False
        return not any(c.poly.atoms() & self.data_vars for c in record.constraints)

    def array(self, name: str, elem_size, records: list[AccessRecord]):
        reads, writes, why = [], [], []
        read_exact = write_exact = True
        for record in records:
            where = f" (line {record.span.line})" if record.span is not None else ""
            piece = self.piece(name, record)
            if record.mode == "read":
                reads.append(piece)
                read_exact = read_exact and self.exact(record)
                continue
            if record.index is None:
                why.append(f"writes {name} at an offset that is not affine "
                           f"({record.why}){where}")
            elif record.index.atoms() & self.data_vars:
                why.append(f"writes {name} at a data-dependent offset{where}")
            writes.append(piece)
            if not self.exact(record):
                write_exact = False
                reads.append(piece)
                read_exact = False
        array = ArrayAccess(name, elem_size, self.text(name, reads), self.text(name, writes),
                            read_exact, write_exact)
        return array, why
