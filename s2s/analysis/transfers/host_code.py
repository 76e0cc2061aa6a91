"""Straight-line CUDA host regions from the model: buffers, operations, refusals.

A *region* is the top-level statement list of one host function that calls ``cudaMalloc``,
``cudaMemcpy`` or launches kernels. Every top-level statement gets a role:

* ``device-alloc`` ``cudaMalloc((void **)&d, size)`` / ``device-free`` ``cudaFree(d)``;
* ``host-alloc`` ``T *h = (T *)malloc(size);`` / ``host-free`` ``free(h)``;
* ``copy`` ``cudaMemcpy(dst, src, size, kind)`` between a host and a device buffer;
* ``launch`` a kernel launch: its device-buffer arguments are read or written as the kernel's
  access analysis says (a parameter without a model is read and written);
* ``host``: any other statement that reads or writes host buffers (their array accesses
  inside the statement, nested loops included) -- a CPU kernel;
* ``neutral``: statements touching no buffer (declarations, error checks, printing).

API calls may sit alone in an expression statement or as the single argument of a
function-like macro (``CHECK(cudaMemcpy(...))``): the rewrite then replaces the whole macro
call and keeps the wrapper. Writes are taken as updates (read too) once a buffer has a
value: a kernel or loop writing part of a buffer must not lose the rest.

What cannot be followed is refused with an :class:`UnsupportedConstruct` (span, stable id):
CUDA memory calls under control flow, or host code next to launches in a loop
(``transfers-control-flow``; a loop or branch that only launches kernels is one operation, see
:mod:`~s2s.analysis.transfers.host_loops`), buffers used through
expressions (``&h``, host aliases, returns: ``transfers-escape``; slices ``d + k``, copies of
part of a buffer, pointer choices and aliases of device buffers are followed: ``host_slices``,
``host_choices``), ``realloc`` (``transfers-realloc``), streams and
other memory calls on region buffers (``transfers-unsupported-call``), API calls produced by a
macro body (``transfers-in-macro``). A forward ``goto`` to a cleanup label at the end of
the function is an exit path (``host_exits``; other jumps: ``transfers-control-flow``). Buffers that cannot go into a pool (allocated by other
means, not freed in the region, sizes not known where the pool is made) stay as they are;
their transfers are planned but not fused.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from s2s.analysis.kernel.access import KernelAccessModel, analyze_unit
from s2s.analysis.transfers.host_args import CallArgs, normalized_text
from s2s.analysis.transfers.host_body import (
    LOOPS,
    LoopBody,
    barrier_ops,
    body_region,
    clip_barriers,
    read_loop_body,
)
from s2s.analysis.transfers.host_calls import HANDLE_TYPES, DeviceCalls, Reach
from s2s.analysis.transfers.host_checks import BufferChecks
from s2s.analysis.transfers.host_choices import Choices
from s2s.analysis.transfers.host_exits import (
    GotoExit,
    before_exits,
    check_frees,
    check_region,
    goto_exits,
    seen_by_caller,
    unwrapped,
)
from s2s.analysis.transfers.host_frames import CheckedCalls
from s2s.analysis.transfers.host_loops import loop_op
from s2s.analysis.transfers.host_slices import Slices
from s2s.analysis.transfers.host_streams import NULL_STREAMS, Streams, stream_text
from s2s.analysis.transfers.region import (
    DEVICE,
    DEVICE_POOL,
    HOST,
    HOST_POOL,
    Alloc,
    Buffer,
    Copy,
    Free,
    HostCode,
    Launch,
    Op,
    RegionGraph,
    build_region_graph,
)
from s2s.diagnostics import UnsupportedConstruct
from s2s.model import SourceSpan, Stmt
from s2s.model.access import ArrayRef, PointerCopy
from s2s.model.cuda import ApiCall
from s2s.model.cuda import Launch as LaunchSite
from s2s.model.cuda_legacy import legacy_equivalent
from s2s.model.host import HostFunction
from s2s.model.host_facts import HostArg, VarUse
from s2s.model.span import SpanIndex
from s2s.model.unit import TranslationUnit

MEMORY_CALLS = {"cudaMalloc", "cudaMemcpy", "cudaFree"}
#: allocations of page-locked host memory: region host buffers outside the host pool
PINNED_ALLOCS = {"cudaMallocHost", "cudaHostAlloc"}
#: calls that write a device buffer in place like a kernel (``cudaMemset(d, value, bytes)``):
#: an operation of the region, not a transfer; the call stays where it is and, the pooled
#: buffer's variable being assigned its slot of the pool, addresses the pool (base + offset)
DEVICE_FILLS = {"cudaMemset"}
NEUTRAL_API = {"cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaDeviceSynchronize",
               "cudaDeviceReset", "cudaGetErrorName", "cudaSetDevice", "cudaGetDeviceCount"}
#: Kernels ``s2s fuse`` made: their stages run in program order, and a buffer that has no value
#: before the fused launch was written by an earlier stage before a later one read it (the
#: original program read nothing uninitialised, or transfers would have refused it), though the
#: access analysis of the fused kernel, seeing the stages' reads and writes together, says read.
FUSED_PREFIX = "s2s_fused_"
_KIND_SPACES = {"cudaMemcpyHostToDevice": (DEVICE, HOST), "cudaMemcpyDeviceToHost": (HOST, DEVICE)}


def is_copy(call: ApiCall) -> bool:
    """A copy the plan may move and merge: ``cudaMemcpy``, or ``cudaMemcpyAsync`` on the default
    stream. The latter is ordered with the default stream's launches and copies as
    ``cudaMemcpy`` is; the rewrite makes it synchronous, one of the schedules the program
    already allowed (the host could not rely on it running later)."""
    if call.name == "cudaMemcpy":
        return len(call.args) == 4
    return call.name == "cudaMemcpyAsync" and (len(call.args) == 4 or len(call.args) == 5 and
                                               call.args[4].text.strip() in NULL_STREAMS)


@dataclass(frozen=True)
class RegionStatement:
    """A top-level statement of the region and what it does to the buffers."""

    stmt: Stmt
    role: str
    buffer: str | None = None
    wrapper: str | None = None
    call: ApiCall | None = None
    launch: LaunchSite | None = None
    op: int | None = None
    #: the launches of a ``loop`` statement (a loop or branch that launches kernels)
    launches: tuple[LaunchSite, ...] = ()
    #: the last of the statement's operations when it has several (``op`` the first): a loop
    #: whose body copies is a host and a device operation (``host_body``)
    last_op: int | None = None
    #: an ``element-loop``: (body statement, memory call, array) for each call (``host_slices``)
    parts: tuple = ()
    #: a ``reaching-call``: the region buffers its callees name (``host_calls.Reach``)
    reach: object = None


@dataclass(frozen=True)
class HostRegion:
    """A function's region: statements with roles, the buffers (with their byte-size
    expressions), the region graph, and which buffers may go into the pools."""

    function: str
    statements: tuple[RegionStatement, ...]
    buffers: tuple[Buffer, ...]
    sizes: dict[str, str]
    ops: tuple[Op, ...]
    graph: RegionGraph
    host_pooled: frozenset[str]
    device_pooled: frozenset[str]
    alloc_at: dict[str, int]
    free_at: dict[str, int]
    allocation_spans: dict[str, SourceSpan] = field(default_factory=dict)
    #: buffer -> the kernel (operation of the graph) of the first loop that rotates it: from
    #: there on its copies are not fused with others (``host_loops``)
    unfused: dict[str, int] = field(default_factory=dict)
    #: statement -> the statement it moves before: declarations the pools need (``host_hoist``)
    hoisted: dict[int, int] = field(default_factory=dict)
    #: the regions of the bodies of loops that copy (``host_body``), in statement order
    loops: tuple[HostRegion, ...] = ()
    #: for the region of a loop's body, which loop (its pools are the function's)
    body_of: str | None = None
    #: (buffer, function, call) for each buffer allocated and freed here that stays out of the
    #: pools because the call may run ``function``, whose body is not in sight
    kept_out: tuple[tuple[str, str, SourceSpan], ...] = ()
    #: forward ``goto`` jumps to a cleanup label (``host_exits``)
    exits: tuple[GotoExit, ...] = ()
    #: with jumps: the buffers the caller sees, which hold on each jump's path what the
    #: program left there (``host_exits.check_seen_values``)
    seen_by_caller: frozenset[str] = frozenset()

    def statement_of_kernel(self, kernel: int) -> int:
        op = self.graph.op_of_kernel[kernel]
        return next(i for i, s in enumerate(self.statements)
                    if s.op is not None and s.op <= op <= (s.op if s.last_op is None else s.last_op))


def find_regions(model: TranslationUnit, source: bytes, elsewhere: tuple[TranslationUnit, ...] = ()
                 ) -> tuple[list[HostRegion], list[UnsupportedConstruct]]:
    """Every host function with CUDA memory calls, as a region or as a refusal. ``elsewhere``:
    the models of the project headers the file includes (read in its context), whose functions
    a call of the file may run (``host_calls.reached``)."""
    accesses = {m.kernel: m for m in analyze_unit(model.kernel_bodies)}
    index = _UnitIndex(model)
    regions, refusals = [], []
    planned = set(planned_before(model))
    for function in model.functions:
        calls = [c for c in model.in_function("api_calls", function.name) if c.name in MEMORY_CALLS or is_copy(c)]
        if function.body is None or not calls or function.name in planned:
            continue
        try:
            regions.append(_Extractor(model, source, function, accesses, index,
                                      elsewhere=elsewhere).extract())
        except UnsupportedConstruct as refusal:
            refusals.append(refusal)
    return regions, refusals


def planned_before(model: TranslationUnit) -> dict[str, SourceSpan]:
    """The functions that declare the pools of an earlier transfers rewrite (``char
    *s2s_device_pool = NULL;``), each with that declaration: their copies and allocations
    were planned then, and a second plan would only see the pools' slots as aliases of the
    pools (it warned "'h_u' is aliased or reassigned" while changing nothing)."""
    found = {}
    for use in model.var_uses:
        if use.name in (HOST_POOL, DEVICE_POOL) and use.decl == use.span.start:
            found.setdefault(use.function, use.span)
    return found


class _UnitIndex:
    """The unit's pointer copies and host array references by position, built once for all
    the regions of a file (every statement used to scan both whole lists)."""

    def __init__(self, model: TranslationUnit):
        self.pointer_copies: SpanIndex[PointerCopy] = SpanIndex(model.pointer_copies)
        self.array_refs: SpanIndex[ArrayRef] = SpanIndex(r for r in model.array_refs if r.directive is None)
        self.var_uses: SpanIndex[VarUse] = SpanIndex(model.var_uses)
        self.host_args: SpanIndex[HostArg] = SpanIndex(model.host_args)


@dataclass
class _Extractor(BufferChecks, CallArgs, Choices, Slices, CheckedCalls, DeviceCalls, Streams):
    model: TranslationUnit
    source: bytes
    function: HostFunction
    accesses: dict[str, KernelAccessModel]
    index: _UnitIndex
    space: dict[str, str] = field(default_factory=dict)
    sizes: dict[str, str] = field(default_factory=dict)
    #: buffer -> its size as a kernel-IR tree from the AST, where known (``size_trees``)
    size_trees: dict[str, object] = field(default_factory=dict)
    local: set[str] = field(default_factory=set)
    alloc_at: dict[str, int] = field(default_factory=dict)
    free_at: dict[str, int] = field(default_factory=dict)
    wrapped_host: set[str] = field(default_factory=set)
    allocation_spans: dict[str, SourceSpan] = field(default_factory=dict)
    has_value: set[str] = field(default_factory=set)
    #: top-level statement index -> the host buffers it allocates (``float *a = malloc(..),
    #: *b = malloc(..);`` allocates two)
    host_alloc_at: dict[int, list[str]] = field(default_factory=dict)
    #: variable -> indices of the region statements that declare or assign it
    changed: dict[str, list[int]] | None = None
    #: buffer (allocated here) -> the variables its size expression mentions
    size_words: dict[str, set[str]] = field(default_factory=dict)
    pool_start: int | None = None
    #: buffer -> index in ``ops`` of the first loop rotating it
    unfused: dict[str, int] = field(default_factory=dict)
    #: array of device pointers -> its elements allocated here (``float *d[2]``: "d[0]", "d[1]")
    arrays: dict[str, list[str]] = field(default_factory=dict)
    #: the loops whose body copies (``host_body``); None while reading such a body (no nesting)
    bodies: list[LoopBody] | None = field(default_factory=list)
    #: statement -> the statement it moves before (``host_hoist``)
    hoisted: dict[int, int] = field(default_factory=dict)
    #: function -> whether a call of it is a device call (``host_calls``)
    launching_cache: dict[str, bool] = field(default_factory=dict)
    #: function -> the region buffers it names outside its declarations (``host_calls``)
    reach_cache: dict[str, tuple[Reach, tuple[str, ...]]] = field(default_factory=dict)
    #: the models of the project headers the file includes (``find_regions``)
    elsewhere: tuple[TranslationUnit, ...] = ()
    #: page-locked host buffer -> its ``cudaMallocHost``/``cudaHostAlloc`` call
    pinned: dict[str, ApiCall] = field(default_factory=dict)
    #: the region's global buffers (``host_calls.global_buffers``)
    globals_cache: tuple[str, ...] | None = None
    #: the names of the file's kernels, device functions and CUDA calls (``host_calls``)
    device_names: frozenset[str] | None = None
    #: global buffer -> (the function with no body in sight that a call may run, the call):
    #: such a function may free or re-point the buffer, so it stays out of the pools
    unseen_reach: dict[str, tuple[str, SourceSpan]] = field(default_factory=dict)
    #: launches and copies kept as written on a blocking stream (``host_streams``)
    stream_work: list = field(default_factory=list)
    #: stream variable (name, declaration) -> why it is not a blocking stream (None: it is)
    stream_verdicts: dict = field(default_factory=dict)

    # -- classification -------------------------------------------------------------

    def extract(self) -> HostRegion:
        exits = goto_exits(self.function.name, self.function.body.children)
        top = unwrapped(self.function.body.children)
        calls = SpanIndex(self.model.in_function("api_calls", self.function.name))
        launches = SpanIndex(self.model.in_function("launches", self.function.name))
        self._collect_buffers(top, calls)
        for name, index in self.alloc_at.items():
            if self.space[name] == HOST:
                self.host_alloc_at.setdefault(index, []).append(name)
        statements, ops = self.statements_of(top, calls, launches)
        self.check_stream_order(statements)
        self._live_to_exit(len(statements), calls)
        own = self._own_variables() if exits else set()
        check_region(self.function.name, exits, statements, own, self.space)
        buffers = self.whole_arrays([Buffer(name, self.space[name], 1, name in self.local,
                                            name not in self.unseen_reach and self._poolable(name, statements) and
                                            before_exits(exits, self.alloc_at[name], statements))
                                            for name in self.space])
        pairs = [op for body in self.bodies for op in body.ops if isinstance(op, Copy)]
        graph = build_region_graph(buffers, ops, shared_device=True, pairs=pairs)
        kernel_of = {op: k for k, op in enumerate(graph.op_of_kernel)}
        graph = clip_barriers(graph, statements)
        unfused = {name: kernel_of[op] for name, op in self.unfused.items()}
        host_pooled = frozenset(b.name for b in buffers if b.space == HOST and b.can_move)
        device_pooled = frozenset(b.name for b in buffers if b.space == DEVICE and b.can_move)
        check_frees(self.function.name, exits, statements, self.free_at, (host_pooled, device_pooled))
        loops = tuple(body_region(self, b, host_pooled, device_pooled,
                                  {n for n, op in self.unfused.items() if op < b.first_op})
                      for b in self.bodies)
        return HostRegion(self.function.name, tuple(statements), tuple(buffers), dict(self.sizes), tuple(ops),
                          graph, host_pooled, device_pooled, dict(self.alloc_at), dict(self.free_at),
                          dict(self.allocation_spans), unfused, dict(self.hoisted), loops,
                          kept_out=tuple((name, *self.unseen_reach[name]) for name in self.space
                                         if name in self.unseen_reach and name in self.local
                                         and name in self.free_at),
                          exits=exits, seen_by_caller=seen_by_caller(exits, self.space, own))

    def _live_to_exit(self, end: int, calls: SpanIndex[ApiCall]) -> None:
        """In ``main``, a device buffer allocated here that no ``cudaFree`` names lives until
        the program exits (the OLCF training programs free none): its free is placed past the
        last statement, so it can join the pool, which is then not freed either (as the
        buffers were not)."""
        if self.function.name != "main":
            return
        freed = {use.name for call in calls.inside(self.function.span)
                 if call.name == "cudaFree"
                 for use in self.index.var_uses.inside(call.span)}
        for name in self.local:
            if self.space.get(name) == DEVICE and name in self.alloc_at and \
                    name not in self.free_at and name not in freed:
                self.free_at[name] = end

    def _own_variables(self) -> set[str]:
        """The variables declared in the function body (not parameters, not globals): no
        caller sees the buffers they hold after it returns."""
        params = {p.name for p in self.function.params}
        return {use.name for use in self.index.var_uses.inside(self.function.span)
                if use.local and use.name not in params}

    def statements_of(self, top, calls: SpanIndex[ApiCall], launches: SpanIndex[LaunchSite]
                      ) -> tuple[list[RegionStatement], list[Op]]:
        """The statements of ``top`` with their roles, and the region's operations."""
        statements, ops = [], []
        for index, stmt in enumerate(top):
            # (a call whose span equals the statement's is inside it too)
            entry = self._classify(index, stmt, calls.inside(stmt.span), launches.inside(stmt.span))
            if entry.role == "device-alloc":
                ops.append(Alloc(entry.buffer, entry.call.span))
            if entry.role == "copy-loop":
                body = read_loop_body(self, index, stmt, calls, launches)
                new = barrier_ops(body, self.space, self.has_value)
                self.has_value.update(n for op in new for n in op.writes)
                self.bodies.append(dataclasses.replace(body, first_op=len(ops)))
            else:
                op = self._op(entry, index, len(ops))
                new = [] if op is None else list(op) if isinstance(op, tuple) else [op]
            if new:
                self._note_kept_copy(entry, new)
                ops.extend(new)
                # a copy the plan does not move (one side not followed) stays as written
                role = "opaque-copy" if entry.role == "copy" and not isinstance(new[0], Copy) else entry.role
                entry = RegionStatement(entry.stmt, role, entry.buffer, entry.wrapper, entry.call,
                                        entry.launch, len(ops) - len(new), entry.launches, len(ops) - 1,
                                        entry.parts)
            elif entry.role == "copy":  # neither side followed (members, parameters): it stays too
                entry = dataclasses.replace(entry, role="opaque-copy")
            statements.append(entry)
        self._check_device_resets(top, calls, statements)
        return statements, ops

    def _note_kept_copy(self, entry: RegionStatement, new: list[Op]) -> None:
        """A copy on a blocking stream the plan keeps as written (part of a buffer, a side not
        followed) is stream work like a launch (``host_streams``)."""
        if entry.role != "copy" or isinstance(new[0], Copy) or self.copy_stream(entry.call) is None:
            return
        accesses = [(name, True, False) for op in new for name in getattr(op, "reads", ())] + \
            [(name, True, True) for op in new for name in getattr(op, "writes", ())]
        self.note_stream_work(self.copy_stream(entry.call), entry.call.span,
                              self._arg_uses(entry.call.span, entry.call.name, 4), accesses)

    def _check_device_resets(self, top, calls: SpanIndex[ApiCall], statements: list[RegionStatement]
                             ) -> None:
        """Refuse a reset or a device switch between two operations of the region: the
        pool allocated before it would be destroyed by ``cudaDeviceReset`` (or be another
        device's after ``cudaSetDevice``) where the program's own allocations after it
        were new; a copy moved across it would land in memory the reset freed. Before the
        first operation on the device or after the last one it changes nothing of the plan
        (host code around it, a result printed and freed, is the host's memory)."""
        with_ops = [i for i, entry in enumerate(statements)
                    if entry.op is not None and entry.role not in ("host", "host-alloc", "host-free")]
        if not with_ops:
            return
        # (a loop at either end switching devices between its own operations, a per-GPU
        # ``for (g..) { cudaSetDevice(g); cudaMalloc(&d[g], n); }``, puts its buffers on
        # several devices, which one pool cannot hold)
        ends = [i for i in (with_ops[0], with_ops[-1]) if statements[i].role in ("element-loop", "loop")]
        for index in sorted({*range(with_ops[0] + 1, with_ops[-1]), *ends}):
            reset = self.device_reset(top[index], calls.inside(top[index].span))
            if reset is not None:
                self._refuse(f"'{reset[0]}' (line {reset[1].line}) between operations of the region: "
                             "it ends or switches the device's allocations, so no pool or moved copy "
                             "may live across it", top[index].span, "transfers-unsupported-call")

    def _refuse(self, message: str, span: SourceSpan, id: str):
        raise UnsupportedConstruct(f"{message}; the transfers of '{self.function.name}' are left as "
                                   "written", span, id)

    def refuse_loop(self, message: str, span: SourceSpan):
        self._refuse(message, span, "transfers-control-flow")

    def _collect_buffers(self, top: tuple[Stmt, ...], calls: SpanIndex[ApiCall]) -> None:
        for index, stmt in enumerate(top):
            for call in calls.inside(stmt.span):
                if call.name == "cudaMalloc":
                    name = self._address_of(call) if len(call.args) == 2 else None
                    # &d[k] in a loop over an array of device pointers: every element (host_slices)
                    names = [name] if name is not None else \
                        self.element_allocation(call, index) if len(call.args) == 2 else []
                    if not names:
                        self._refuse(*self._unfollowed_allocation(call))
                    for name in names:
                        self._device_buffer(name, call, index)
                elif call.name in PINNED_ALLOCS and len(call.args) >= 2 and \
                        (stmt.kind in ("expr", "decl") or stmt.span.macro is not None):
                    self._pinned_buffer(call, index)    # (one under a loop or branch is not followed)
        if self.arrays:
            self.check_arrays({launch.kernel for launch in self.model.in_function("launches", self.function.name)})
        allocations = [a for a in self.model.in_function("allocations", self.function.name)
                       if a.kind == "malloc" and a.size_bytes is not None]
        statement_of: dict[int, int] = {}  # allocation -> first top-level statement holding it
        by_span = SpanIndex(range(len(allocations)), lambda k: allocations[k].span)
        for i, stmt in enumerate(top):
            for k in by_span.inside(stmt.span):
                statement_of.setdefault(k, i)
        for k, alloc in enumerate(allocations):
            index = statement_of.get(k)
            if index is None or top[index].kind != "decl":
                continue
            self.space[alloc.name], self.sizes[alloc.name] = HOST, alloc.size_bytes.text
            self._size_tree(alloc.name, alloc.span, alloc.kind, 0)
            self.size_words[alloc.name] = {u.name for u in self._uses(alloc.size_bytes.span)}
            self.local.add(alloc.name)
            self.alloc_at[alloc.name] = index
            self.allocation_spans[alloc.name] = alloc.span
        for call in self.model.in_function("api_calls", self.function.name):
            if not self.planned_copy(call):
                continue
            for position, arg in enumerate(call.args[:2]):
                name = self._variable(call.span, call.name, position)
                if name and name not in self.space and name not in self.aliases():
                    kind_spaces = _KIND_SPACES.get(call.args[3].text.strip())
                    if kind_spaces is None:
                        self._refuse(f"'{arg.text}' is not allocated here and the copy kind does not say "
                                     "where it lives", call.span, "transfers-copy-kind")
                    self.space[name] = kind_spaces[call.args.index(arg)]
                    self.sizes[name] = call.args[2].text
                    self._size_tree(name, call.span, call.name, 2)

    def _device_buffer(self, name: str, call: ApiCall, index: int) -> None:
        """Record ``name``, allocated by ``cudaMalloc`` call ``call`` in statement ``index``."""
        if name in self.space:
            self._refuse(f"'{name}' is allocated twice", call.span, "transfers-realloc")
        if "[" in name:
            self.arrays.setdefault(name.split("[")[0], []).append(name)
        self.space[name], self.sizes[name] = DEVICE, call.args[1].text
        self._size_tree(name, call.span, call.name, 1)
        self.size_words[name] = {u.name for u in self._arg_uses(call.span, call.name, 1)}
        self.local.add(name)
        self.alloc_at[name] = index

    def _pinned_buffer(self, call: ApiCall, index: int) -> None:
        """Record the page-locked host buffer ``cudaMallocHost(&h, size)`` (or
        ``cudaHostAlloc``) allocates in statement ``index``: a host buffer of the region whose
        storage is not the host pool's (it stays where it is, as its ``cudaFreeHost``; its
        copies are planned like any host buffer's). A target other than one variable is
        not followed (the statement is refused where it names a region buffer)."""
        name = self._address_of(call)
        if name is None or "[" in name:
            return
        if name in self.space:
            self._refuse(f"'{name}' is allocated twice", call.span, "transfers-realloc")
        self.space[name], self.sizes[name] = HOST, call.args[1].text
        self._size_tree(name, call.span, call.name, 1)
        self.size_words[name] = {u.name for u in self._arg_uses(call.span, call.name, 1)}
        self.alloc_at[name] = index
        self.pinned[name] = call

    def _api_statement(self, stmt: Stmt, call: ApiCall) -> str | None:
        """The wrapper macro's name (or None) when ``stmt`` is just ``call`` or ``M(call)``
        with the call spelled in the macro's argument. (A macro call is not in the AST, so
        its shape is read from the statement's text; this decides nothing about variables.)"""
        text = stmt.span.text(self.source).strip().rstrip(";").strip()
        if call.span.macro is None:
            if stmt.kind == "expr" and normalized_text(text) == normalized_text(call.span.text(self.source)):
                return None
            checking = self.checking_function(stmt, call)
            if checking is not None:
                return checking
            self._refuse(f"'{call.name}' is part of a larger statement", call.span, "transfers-unsupported-call")
        match = re.match(r"^([A-Za-z_]\w*)\s*\((.*)\)$", text, re.S)
        if match and re.match(rf"^\s*{call.name}\s*\(", match.group(2)) and call.args and \
                all(normalized_text(a.text) in normalized_text(match.group(2)) for a in call.args):
            return match.group(1)
        if call.name not in text:
            self._refuse(f"'{call.name}' comes from the body of macro '{call.span.macro}'", call.span,
                         "transfers-in-macro")
        self._refuse(f"'{call.name}' is part of a larger statement", call.span, "transfers-unsupported-call")

    def _classify(self, index: int, stmt: Stmt, calls: list[ApiCall],
                  launches: list[LaunchSite]) -> RegionStatement:
        memory = [c for c in calls if c.name in MEMORY_CALLS or self.planned_copy(c) or
                  c.name in DEVICE_FILLS and self._mentions(c)]
        control = stmt.kind not in ("expr", "decl") and stmt.span.macro is None
        reach = self.reached(stmt)
        if reach is not None and (memory or launches):
            self._refuse_reach(reach, stmt, f"in a statement with {'a launch' if launches else 'a CUDA memory call'}")
        frame = self.checked_call(stmt, memory, launches) if control and memory else None
        control = control and frame is None
        parts = self.element_loop_calls(stmt, memory) if control and memory and self.bodies is not None \
            and not launches else None
        if parts is not None:
            return RegionStatement(stmt, "element-loop", parts=tuple(parts))
        if control and memory:
            if self.bodies is None:
                self.refuse_loop(f"'{memory[0].name}' in a loop or branch nested in a loop that copies (only "
                                 "launches are followed there)", memory[0].span)
            if stmt.kind not in LOOPS or stmt.body is None:
                self.refuse_loop(f"'{memory[0].name}' under a '{stmt.kind}' statement (only loops with a "
                                 "straight-line body are planned, as regions of their own)", memory[0].span)
            return RegionStatement(stmt, "copy-loop")
        if control and launches:
            self._check_calls(calls)
            return RegionStatement(stmt, "loop", launches=tuple(launches))
        if launches:
            if len(launches) > 1 or memory:
                self._refuse("several launches or calls in one statement", launches[0].span,
                             "transfers-unsupported-call")
            return RegionStatement(stmt, "launch", launch=launches[0])
        self._check_calls([c for c in calls if not self._pinned_call(c)])
        if memory:
            call = memory[0]
            if len(memory) > 1:
                self._refuse("several CUDA memory calls in one statement", call.span, "transfers-unsupported-call")
            wrapper = frame if frame is not None else self._api_statement(stmt, call)
            if call.name == "cudaMalloc":
                return RegionStatement(stmt, "device-alloc", self._address_of(call), wrapper, call)
            if call.name in DEVICE_FILLS:
                return RegionStatement(stmt, "memset", self._plain(call.span, call.name, 0, call.args[0].text),
                                       wrapper, call)
            if call.name == "cudaFree":
                return RegionStatement(stmt, "device-free", self._plain(call.span, call.name, 0,
                                                                        call.args[0].text), wrapper, call)
            return RegionStatement(stmt, "copy", None, wrapper, call)
        pinned = self._pinned_statement(stmt, calls, index)
        if pinned is not None:
            return pinned
        host_alloc = self.host_alloc_at.get(index)
        if host_alloc is not None:
            self._check_uses(stmt, allowed=set(host_alloc))
            return RegionStatement(stmt, "host-alloc", host_alloc[0])
        freed = self._host_free(stmt)
        if freed is not None:
            self.free_at[freed] = index
            return RegionStatement(stmt, "host-free", freed)
        if reach is not None:
            if reach.problem is not None:
                self._refuse_reach(reach, stmt, f"and makes {reach.problem[0]} (line {reach.problem[1].line})")
            if any(u.name in self.space or u.name in self.arrays for u in self._uses(stmt.span)):
                self._refuse_reach(reach, stmt, "in a statement naming region buffers itself")
            for name in reach.globals:
                self.unseen_reach.setdefault(name, (reach.unseen, stmt.span))
            return RegionStatement(stmt, "reaching-call", reach=reach)
        if self.device_call(stmt) is not None:
            return RegionStatement(stmt, "device-call")
        self._check_uses(stmt)
        return RegionStatement(stmt, "host")

    def _refuse_reach(self, reach: Reach, stmt: Stmt, why: str) -> None:
        if not reach.uses:
            self._refuse(f"'{reach.callee}', called here {why}, runs '{reach.unseen}', whose body is not in "
                         f"this file or a header it includes: it may read or write global region buffer "
                         f"'{reach.globals[0]}', which the plan cannot follow there", stmt.span,
                         "transfers-escape")
        use = reach.uses[0]
        self._refuse(f"'{reach.callee}', called here {why}, reaches region buffer '{use.name}' (line "
                     f"{use.span.line}), declared outside it: the call reads or writes it, which the plan "
                     "cannot follow there", stmt.span, "transfers-escape")

    def _check_calls(self, calls: list[ApiCall]) -> None:
        for call in calls:
            known = MEMORY_CALLS | DEVICE_FILLS | NEUTRAL_API
            if legacy_equivalent(call.name) not in known and call.name.startswith("cuda") \
                    and not self.planned_copy(call) and self._mentions(call):
                if self.copy_stream(call) is not None:
                    self.refuse_stream_copy(call)
                handles = self._handle_array(call)
                if handles is not None:
                    self._refuse(f"'{call.name}' writes '{handles[0]}', a host array of {handles[1]} "
                                 "handles (not data a copy moves): the pass does not follow an array "
                                 "of CUDA handles", call.span, "transfers-unsupported-call")
                self._refuse(f"'{call.name}' on a region buffer is not supported", call.span,
                             "transfers-unsupported-call")

    def _handle_array(self, call: ApiCall) -> tuple[str, str] | None:
        """The host buffer ``call`` names whose elements are CUDA handles (``cudaStream_t
        *streams = malloc(..); cudaStreamCreate(&streams[i]);``) and their type; None when it
        names no such buffer. It is allocated like data, but what the call does to it is
        not a transfer: the refusal says so instead of calling it a region buffer."""
        named = {u.name for u in self._uses(call.span) if u.call == call.name and self.space.get(u.name) == HOST}
        for alloc in self.model.in_function("allocations", self.function.name):
            if alloc.name in named and alloc.element_type.strip() in HANDLE_TYPES:
                return alloc.name, alloc.element_type.strip()
        return None

    def planned_copy(self, call: ApiCall) -> bool:
        """A copy the plan may move and merge: one on the default stream (``is_copy``) or a
        ``cudaMemcpyAsync`` on a blocking stream of the function (``host_streams``)."""
        return is_copy(call) or self.blocking_copy(call)

    def _pinned_call(self, call: ApiCall) -> bool:
        """``call`` allocates or frees a page-locked buffer of the region (``_pinned_buffer``)."""
        if call.name in PINNED_ALLOCS:
            return any(c is call for c in self.pinned.values())
        return call.name == "cudaFreeHost" and len(call.args) == 1 and \
            self._variable(call.span, call.name, 0) in self.pinned

    def _pinned_statement(self, stmt: Stmt, calls: list[ApiCall], index: int) -> RegionStatement | None:
        """The statement that is only the ``cudaMallocHost`` of a page-locked buffer (its
        ``host-alloc``) or only its ``cudaFreeHost`` (its ``host-free``), alone or as the
        argument of a checking macro or function; None for any other."""
        pinned = [c for c in calls if self._pinned_call(c)]
        if not pinned or stmt.kind not in ("expr", "decl") and stmt.span.macro is None:
            return None
        call = pinned[0]
        if len(pinned) > 1:
            self._refuse("several CUDA memory calls in one statement", call.span, "transfers-unsupported-call")
        self._check_calls([c for c in calls if c is not call])
        self._api_statement(stmt, call)     # (refuses a call that is part of a larger statement)
        if call.name == "cudaFreeHost":
            name = self._variable(call.span, call.name, 0)
            self.free_at[name] = index
            return RegionStatement(stmt, "host-free", name, call=call)
        name = next(n for n, c in self.pinned.items() if c is call)
        if any(u.name in self.space and u.name != name for u in self._uses(stmt.span)):
            self._refuse(f"'{call.name}' in a statement naming other region buffers", call.span,
                         "transfers-unsupported-call")
        return RegionStatement(stmt, "host-alloc", name, call=call)

    def _host_free(self, stmt: Stmt) -> str | None:
        """The host buffer a statement that is only ``free(h)`` or ``delete[] h`` frees."""
        if stmt.kind == "expr" and not stmt.calls:
            uses = self._uses(stmt.span)
            if len(uses) == 1 and uses[0].role == "delete" and self.space.get(uses[0].name) == HOST:
                return uses[0].name
        if stmt.kind != "expr" or len(stmt.calls) != 1 or stmt.calls[0].name != "free":
            return None
        call = stmt.calls[0]
        name = self._variable(call.span, "free", 0) if len(call.args) == 1 else None
        if name is not None and self.space.get(name) == HOST and \
                (call.span.start, call.span.end) == (stmt.span.start, stmt.span.end):
            return name
        return None

    # -- operations -------------------------------------------------------------------

    def _op(self, entry: RegionStatement, index: int, number: int) -> Op | None:
        """The operation of a statement (``number``: its index in the region's ops)."""
        span = entry.stmt.span
        if entry.role == "copy":
            call = entry.call
            for position in (0, 1):
                chosen = self._candidates(call.span, call.name, position)
                if chosen:
                    return self._chosen_copy(call, position, chosen) or None
            sliced = self.slice_copy(call)     # part of a buffer: stays as written (host_slices)
            if sliced is not None:
                return sliced
            dst, src = (self._plain(call.span, call.name, k, call.args[k].text) for k in (0, 1))
            if not dst or not src:
                return self._opaque_copy(call, dst, src)
            for name in (dst, src):
                if not self._same_size(call, name):
                    self._refuse(f"the copy of '{call.args[2].text}' bytes may not cover '{name}' "
                                 f"('{self.sizes[name]}' bytes)", call.span, "transfers-partial-copy")
            self.has_value.add(dst)
            return Copy(dst, src, None, call.span)
        if entry.role == "memset":
            return self._fill_op(entry.call, entry.buffer)
        if entry.role == "device-free":
            if not entry.buffer:  # a pointer the region does not follow (a member, a parameter)
                return None
            self.free_at[entry.buffer] = index
            return Free(entry.buffer, span)
        if entry.role == "host-free":
            return Free(entry.buffer, span)
        if entry.role == "launch":
            return self._launch_op(entry.launch)
        if entry.role == "loop":
            return loop_op(self, entry.stmt, list(entry.launches), number)
        if entry.role == "element-loop":
            return self.element_loop_ops(entry.stmt, index, entry.parts)
        if entry.role == "host":
            return self._host_op(entry.stmt)
        if entry.role == "device-call":
            return self.device_call_op(entry.stmt)
        if entry.role == "reaching-call":
            return self.reach_op(entry.reach, entry.stmt.span)
        return None

    def _launch_op(self, launch: LaunchSite) -> Launch | None:
        reads, writes = [], []
        for name, read, write in self.launch_accesses(launch, self.has_value):
            if read or (write and name in self.has_value):
                reads.append(name)
            if write:
                writes.append(name)
                self.has_value.add(name)
        if not reads and not writes:
            return None
        return Launch(launch.kernel, tuple(reads), tuple(writes), launch.span)

    def launch_accesses(self, launch: LaunchSite, has_value: set[str]):
        """``(buffer, read, write)`` for each region buffer argument of ``launch``, from the
        kernel's access model (a parameter without one is read and written); ``has_value``:
        the buffers holding a value when it runs (see :data:`FUSED_PREFIX`)."""
        uses = self.check_stream_launch(launch)
        model = self.accesses.get(launch.kernel)
        kernel = self.model.kernel(launch.kernel)
        found = []
        for position, arg in enumerate(launch.args):
            for name in self._candidates(launch.span, launch.kernel, position) or \
                    [self.sliced_buffer(launch.span, launch.kernel, position) or
                     self._plain(launch.span, launch.kernel, position, arg.text, arg.span)]:
                if name:
                    found.extend(self._argument_access(launch, model, kernel, has_value, name, position, arg))
        if uses is not None:
            self.note_stream_work(stream_text(launch.stream), launch.span, uses,
                                  [(name, True, write) for name, _, write in found])
        yield from found

    def _argument_access(self, launch: LaunchSite, model, kernel, has_value: set[str], name: str,
                         position: int, arg):
        """``launch_accesses`` of region buffer ``name`` as argument ``position``."""
        if self.space[name] != DEVICE:
            self._refuse(f"host buffer '{name}' is passed to kernel '{launch.kernel}'", arg.span,
                         "transfers-escape")
        param = kernel.params[position].name if kernel and position < len(kernel.params) else None
        access = model.array(param) if model and param else None
        read = access is None or access.read is not None
        write = access is None or access.write is not None
        if name in self.local and name not in has_value:
            # a buffer allocated here that holds nothing yet: what the kernel reads of it
            # was written by the kernel itself (``tmp[i] = 0; tmp[i] += ..``, which the
            # access model calls a read; an earlier stage of a fused kernel, see
            # FUSED_PREFIX), or is undefined in the program too: no value to move
            read = False
        yield name, read, write

    def _host_op(self, stmt: Stmt) -> HostCode | None:
        refs = [r for r in self.index.array_refs.inside(stmt.span) if self.space.get(r.root) == HOST]
        # reads of a buffer that holds nothing yet (a fill through a readwrite call) read nothing
        reads = [r.root for r in refs if r.root in self.has_value]
        writes = [r.root for r in refs if r.writes]
        self.has_value.update(writes)
        if not reads and not writes:
            return None
        name = f"host code at line {stmt.span.line}"
        return HostCode(name, tuple(dict.fromkeys(reads)), tuple(dict.fromkeys(writes)), stmt.span)
