"""Calls of host functions that launch kernels on the region's device buffers, split from
:mod:`host_code` (issue 29: transfers across functions).

Rodinia's hotspot and pathfinder hand their device buffers, an array of two among them, to
a helper that runs the time loop: ``int ret = compute_tran_temp(MatrixPower, MatrixTemp,
...);`` then copy ``MatrixTemp[ret]`` back. Such a call is one device operation of the region
that reads and writes every device buffer it is given (every element of an array), as a
launch of a kernel without an access model is: the plan keeps each copy on its side of the
call, and the buffers still go into the pools (the callee uses the pointers it is given).

A *device call* is a statement (expression or declaration) with one call of a function of
the file that launches kernels, directly or through the functions it calls, where:

* every mention of a region buffer in the statement is a whole argument of that call, and
  none is a host buffer (the callee would read it on the host);
* the callee and the functions it calls (the file's, transitively) make no CUDA call but
  launches on the default stream, error checks, synchronisation and events: no copy,
  allocation, free or fill the plan would have to see, no stream to order against;
* none of them names a host buffer of the region (a global the region copies) or assigns
  a global (a pointer kept there would let a later call reach the buffer unseen), nor is a
  template (its instantiations are other functions).

Anything else stays what it was (a host statement whose buffer mentions are refused as
``transfers-escape``, with the reason).

A mixin of ``host_code._Extractor``: reads its ``model``, ``space``, ``arrays``, ``has_value``
and ``_uses``.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.transfers.region import DEVICE, HOST, HostCode, Launch
from s2s.model import Stmt
from s2s.model.cuda_legacy import legacy_equivalent
from s2s.model.host_facts import VALUE_ROLES, VarUse
from s2s.model.span import SourceSpan

#: CUDA calls a device call's callee may make besides its launches
_QUIET = frozenset({"cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName",
                    "cudaDeviceSynchronize", "cudaFuncSetCacheConfig"})
_DEFAULT_STREAMS = frozenset({"0", "NULL", "nullptr", "cudaStreamLegacy"})
#: functions a callee may call without a definition in the file: they touch no device memory
#: and no buffer of the region (its buffers are not passed to them: they are the callee's
#: parameters, given only to launches)
HOST_LIBRARY = frozenset({"printf", "fprintf", "puts", "fputs", "exit", "abort", "fflush", "sqrt",
                          "sqrtf", "ceil", "floor", "fabs", "min", "max", "dim3", "gettimeofday",
                          "clock", "time", "assert"})


class DeviceCalls:
    """Calls of launching host functions as device operations (see the module docstring)."""

    def launching(self, name: str) -> bool:
        """Whether ``name`` is a function of the file that launches kernels (itself or through
        its callees) and does nothing else a region must see."""
        if name not in self.launching_cache:
            functions = [f for f in self.model.functions if f.name == name and f.body is not None]
            self.launching_cache[name] = len(functions) == 1 and name != self.function.name and \
                self._summary(name, set()) == (True, True)
        return self.launching_cache[name]

    def _summary(self, name: str, seen: set[str]) -> tuple[bool, bool]:
        """(whether ``name`` and what it calls make only quiet CUDA calls and name no host
        buffer of the region, whether they launch kernels)."""
        functions = [f for f in self.model.functions if f.name == name and f.body is not None]
        if not functions:
            return name in HOST_LIBRARY or name.startswith("__"), False
        function = functions[0]
        if len(functions) != 1 or function.is_template:
            return False, False
        seen.add(name)
        launches = self.model.in_function("launches", name)
        if any(launch.stream is not None and launch.stream.text.strip() not in _DEFAULT_STREAMS
               for launch in launches):
            return False, False
        if any(legacy_equivalent(c.name) not in _QUIET and not c.name.startswith("cudaEvent")
               for c in self.model.in_function("api_calls", name)):
            return False, False
        outside = [use for use in self.model.in_function("var_uses", name)
                   if not function.span.start <= use.decl < function.span.end]
        # a host buffer of the region read or written there, or a global given a value (a
        # pointer kept for a later call the region would not see as touching the buffer)
        if any(use.name in self.space and self.space[use.name] == HOST or use.role == "assign"
               for use in outside):
            return False, False
        found = bool(launches)
        api = {c.name for c in self.model.in_function("api_calls", name)}
        for callee in {c.name for c in function.calls} - api - {launch.kernel for launch in launches} - seen:
            allowed, launching = self._summary(callee, seen)
            if not allowed:
                return False, False
            found = found or launching
        return True, found

    def device_call(self, stmt: Stmt) -> tuple[str, list[str]] | None:
        """(callee, the device buffers it is given) when ``stmt`` is a device call."""
        if stmt.kind not in ("expr", "decl") or stmt.span.macro is not None:
            return None
        calls = [c for c in stmt.calls if self.launching(c.name)]
        if len(calls) != 1 or calls[0].span.macro is not None:
            return None
        callee, buffers = calls[0].name, []
        for use in self._uses(stmt.span):
            if use.name not in self.space and use.name not in self.arrays:
                continue
            if use.role != "argument" or use.call != callee or self.space.get(use.name) == HOST:
                return None
            buffers += self.arrays.get(use.name, [use.name])
        return (callee, list(dict.fromkeys(buffers))) if buffers else None

    def device_call_op(self, stmt: Stmt) -> Launch | None:
        """The device call's operation: every buffer given is read (where it holds a value)
        and written."""
        callee, buffers = self.device_call(stmt)
        reads = tuple(b for b in buffers if b in self.has_value)
        self.has_value.update(buffers)
        return Launch(callee, reads, tuple(buffers), stmt.span)

    def reached(self, stmt: Stmt) -> Reach | None:
        """What the functions ``stmt`` calls (those of a nested statement too, and what they
        call, the file's functions, templates and members included) do with region buffers
        declared outside them, or None when they name none.

        A function of the file that names a global region buffer (``float *d_in;`` at file
        scope, read by its launches or copied by it) reads or writes it where it is called,
        though the call mentions no buffer: a copy before the call is not dead, nor can one
        move across it (cuda-samples alignedTypes: ``runTest<uint8>(1, MemorySize)``).

        A function whose body is in neither the file nor a header it includes (another
        translation unit's, through ``extern float *d_in;``) may do the same with every
        global buffer of the region: the call reads and writes them all (``Reach.unseen``).
        Only a library's functions (declared in a system header: ``CallSite.system``) are
        known to name none."""
        uses: list[VarUse] = []
        problem: tuple[str, SourceSpan] | None = None
        first = unseen = None
        seen: set[str] = {self.function.name}
        # every call in the statement, those of a nested loop's body too (its own statements:
        # the function's calls filtered by span, once per statement, were quadratic)
        for call in (c for inner in stmt.walk() for c in inner.calls if not c.system):
            for name in self._called_from(call.name, seen):
                facts = self._reach_facts(name)[0]
                if facts.uses and first is None:
                    first = call.name
                if facts.unseen and unseen is None:
                    unseen, first = facts.unseen, first or call.name
                uses += facts.uses
                problem = problem or facts.problem
        extra = self.global_buffers() if unseen is not None else ()
        if not uses and not extra:
            return None
        return Reach(first, tuple(uses), problem, unseen, extra)

    def device_reset(self, stmt: Stmt, calls) -> tuple[str, SourceSpan] | None:
        """A call of ``stmt`` that ends or switches the device's memory (``_DEVICE_STATE``),
        made there or in a function it runs (the file's and its headers', transitively),
        with where: no pool or moved copy of the region may live across it."""
        direct = [c for c in calls if legacy_equivalent(c.name) in _DEVICE_STATE]
        if direct:
            return direct[0].name, direct[0].span
        seen: set[str] = {self.function.name}
        for call in (c for inner in stmt.walk() for c in inner.calls if not c.system):
            for name in self._called_from(call.name, seen):
                for model in (self.model, *self.elsewhere):
                    for api in model.in_function("api_calls", name):
                        if legacy_equivalent(api.name) in _DEVICE_STATE:
                            return f"{api.name}' in '{name}", api.span
        return None

    def global_buffers(self) -> tuple[str, ...]:
        """The region's buffers that are globals (the function mentions them, not as a
        parameter or a local of its own), elements of a global array of device pointers
        included: what a function of another translation unit can name."""
        if self.globals_cache is None:
            outside = {u.name for u in self.model.in_function("var_uses", self.function.name)
                       if not u.local}
            names = [n for n in self.space if n in outside]
            names += [e for base, elements in self.arrays.items() if base in outside for e in elements]
            self.globals_cache = tuple(dict.fromkeys(names))
        return self.globals_cache

    def _called_from(self, name: str, seen: set[str]) -> list[str]:
        """``name`` and the file's functions it calls, transitively, less those in ``seen``
        (which gets them)."""
        out, todo = [], [name]
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                out.append(current)
                todo += self._reach_facts(current)[1]
        return out

    def _reach_facts(self, name: str) -> tuple[Reach, tuple[str, ...]]:
        """The region buffers function ``name`` (of the file, else of a project header it
        includes) names outside its own declarations, the first thing it does that a call of
        it cannot be planned around, and the functions it calls (once per function: every
        statement of the region asks). A global is told by the AST (``VarUse.local``), not by
        where it is declared: a header's function and the file's global are in two files.
        A function of the program with no body in either (not a kernel, not a CUDA call) is
        ``unseen``: its body may name any global."""
        if name not in self.reach_cache:
            uses: list[VarUse] = []
            problem, callees, found = None, set(), False
            for model in (self.model, *self.elsewhere):
                functions = [f for f in model.functions if f.name == name and f.body is not None]
                for function in functions:
                    outside = [u for u in model.in_function("var_uses", name) if not u.local]
                    uses += [u for u in outside if u.name in self.space]
                    problem = problem or (
                        _reach_problem(model, function, outside, self.space)
                        if _may_touch_buffers(function, outside, self.space)
                        else _device_problem(model, name))
                    callees.update(c.name for c in function.calls if not c.system)
                if functions:
                    found = True
                    break
            unseen = None if found or self._not_host_code(name) else name
            self.reach_cache[name] = (Reach(name, tuple(uses), problem, unseen),
                                      tuple(sorted(callees)))
        return self.reach_cache[name]

    def _not_host_code(self, name: str) -> bool:
        """A kernel or device function launched or named in the file, a CUDA call, or a
        library function a template calls dependently (its callee unresolved in the AST)."""
        if self.device_names is None:
            self.device_names = frozenset(
                [k.name for m in (self.model, *self.elsewhere) for k in m.kernels] +
                [d.name for m in (self.model, *self.elsewhere) for d in m.device_functions] +
                [c.name for c in self.model.api_calls] +
                [launch.kernel for launch in self.model.launches])
        return name in self.device_names or name in HOST_LIBRARY or name.startswith("__")

    def reach_op(self, reach: Reach, span: SourceSpan) -> tuple[Launch | HostCode, ...]:
        """The call's operations: it reads (where they hold a value) and writes every device
        buffer it reaches, as a launch without an access model, then every host buffer, as
        host code (what the callee copies between them moves values the plan does not see,
        so both sides are read and written)."""
        names = reach.names()
        ops = []
        for space, kind in ((DEVICE, Launch), (HOST, HostCode)):
            buffers = tuple(n for n in names if self.space[n] == space)
            if buffers:
                reads = tuple(b for b in buffers if b in self.has_value)
                self.has_value.update(buffers)
                ops.append(kind(f"{reach.callee} (calls naming {', '.join(buffers)})", reads,
                                buffers, span))
        return tuple(ops)


@dataclass(frozen=True)
class Reach:
    """The region buffers a call reaches through the globals its callees name."""

    #: the function called in the statement whose callees name them
    callee: str
    uses: tuple[VarUse, ...]
    #: (why the call cannot be an operation of the region, where), or None
    problem: tuple[str, SourceSpan] | None = None
    #: a function it runs whose body is nowhere in sight (another translation unit's), so
    #: that it may name every global buffer of the region; None when every body is seen
    unseen: str | None = None
    #: those global buffers (with ``unseen``)
    globals: tuple[str, ...] = ()

    def names(self) -> list[str]:
        """The region buffers the call reads and writes, each once."""
        return list(dict.fromkeys([u.name for u in self.uses] + list(self.globals)))


#: CUDA calls a function reached through a global buffer may make: copies, fills, checks,
#: events and queries (their effect on the buffers is within "reads and writes every buffer")
_REACH_API = frozenset({"cudaMalloc", "cudaFree", "cudaMemcpy", "cudaMemset", "cudaMemcpyToSymbol",
                        "cudaMemcpyFromSymbol", "cudaGetDevice", "cudaGetDeviceCount",
                        "cudaGetDeviceProperties", "cudaDeviceGetAttribute", "cudaMemGetInfo",
                        "cudaFuncGetAttributes"}) | _QUIET
#: calls that end or replace a buffer given to them
_RELEASES = frozenset({"cudaFree", "cudaFreeHost", "free", "realloc", "cudaMalloc", "cudaMallocHost",
                       "cudaHostAlloc", "cudaMallocManaged"})


#: CUDA calls that cannot change the plan of a region whose buffers they are not given: a
#: stream's or an event's life, its copies, fills and launches on buffers of the caller's
#: own (the calling function names no region buffer and is handed none), queries and
#: waits. A copy on a stream of another buffer is ordered with nothing of the region; a
#: wait or a query only delays. Pooled or not, the region's buffers stay what they are.
_BUFFER_FREE_PREFIXES = ("cudaStream", "cudaEvent", "cudaGet", "cudaOccupancy", "cudaProfiler",
                         "cudaMemcpy", "cudaMemset", "cudaFunc")
_BUFFER_FREE_API = frozenset({"cudaMalloc", "cudaFree", "cudaMallocHost", "cudaFreeHost", "cudaHostAlloc",
                              "cudaHostRegister", "cudaHostUnregister", "cudaHostGetDevicePointer",
                              "cudaDeviceGetAttribute", "cudaMemGetInfo", "cudaDeviceGetLimit",
                              "cudaDeviceSetCacheConfig", "cudaDeviceSetSharedMemConfig",
                              "cudaDriverGetVersion", "cudaRuntimeGetVersion", "cudaLaunchKernel"}) | _QUIET
#: Refused in any function reached, buffers named or not (every other CUDA call too): they
#: act on the device itself, and the plan moves allocations across them.
#: ``cudaDeviceReset`` (and ``cudaThreadExit``) destroy every allocation of the device, a
#: pool allocated before the call and used after it included, where the program's own
#: allocations after it were new; ``cudaSetDevice`` makes later allocations another
#: device's, but the pool allocated before it stays on the first; ``cudaSetDeviceFlags``,
#: ``cudaSetValidDevices`` and ``cudaDeviceSetLimit`` may only succeed before the context
#: exists or its memory is in use, which a hoisted allocation changes; stream capture and
#: graphs (``cudaStreamBeginCapture`` is a stream call, but capturing makes the default
#: stream's copies of the region errors) are refused for the same want of proof.
_CAPTURE = ("cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaStreamIsCapturing",
            "cudaStreamGetCaptureInfo", "cudaThreadExchangeStreamCaptureMode")
#: calls after which the device's allocations are not those before: a reset destroys them
#: all, a device switch makes later ones another device's (the pool stays on the first)
_DEVICE_STATE = frozenset({"cudaDeviceReset", "cudaSetDevice"})
#: CUDA handle types: a value of one names a stream, an event, a graph or an array object, never
#: data a copy moves (a host array of them is bookkeeping, not a buffer the plan could pool)
HANDLE_TYPES = frozenset({"cudaStream_t", "cudaEvent_t", "cudaGraph_t", "cudaGraphExec_t",
                          "cudaArray_t", "cudaTextureObject_t", "cudaSurfaceObject_t"})
#: parameter types that cannot carry a buffer: a number, a flag, a stream or event handle
_SCALAR_WORDS = frozenset({"int", "unsigned", "signed", "long", "short", "char", "bool", "float",
                           "double", "size_t", "const", "volatile", "cudaStream_t", "cudaEvent_t",
                           "dim3", "std::size_t", "int64_t", "uint64_t", "int32_t", "uint32_t"})


def _may_touch_buffers(function, outside: list[VarUse], space: dict[str, str]) -> bool:
    """Whether ``function`` names a region buffer declared outside it, or may be handed one
    (a parameter of a pointer, array, reference or any non-scalar type: a struct may hold
    a buffer): then all of :func:`_reach_problem` applies to it. Else what it does with
    streams, events and buffers of its own cannot change the plan (``_device_problem``)."""
    if any(u.name in space for u in outside):
        return True
    for param in function.params:
        if param.is_pointer and param.type.strip() not in ("cudaStream_t", "cudaEvent_t"):
            return True
        if not set(param.type.replace("&", " & ").split()) <= _SCALAR_WORDS:
            return True
    return False


def _device_problem(model, name: str) -> tuple[str, SourceSpan] | None:
    """Why a call of ``name``, a function that names no region buffer and is handed none,
    still cannot be planned around: a CUDA call acting on the device itself (a reset, a
    device switch, stream capture, or any call not known to be one of a buffer's own)."""
    for call in model.in_function("api_calls", name):
        called = legacy_equivalent(call.name)
        if called in _CAPTURE or not (called in _BUFFER_FREE_API or called.startswith(_BUFFER_FREE_PREFIXES)):
            return f"'{call.name}' in '{name}'", call.span
    return None


def _reach_problem(model, function, outside: list[VarUse], space: dict[str, str]
                   ) -> tuple[str, SourceSpan] | None:
    """Why a call of ``function`` (which names region buffers declared outside it) cannot be
    an operation reading and writing them: a CUDA call other than a copy, fill, check or
    query (streams, device resets), a launch on a stream, a region buffer or a global
    pointer given a value (``sdkCreateTimer(&timer)`` is none: only a region buffer's
    address counts), a region buffer it names copied into anything but a local of its own,
    or a pointer returned (either may keep the buffer past the call), a buffer it reaches or
    is given freed or allocated."""
    name = function.name
    for call in model.in_function("api_calls", name):
        called = legacy_equivalent(call.name)
        if called not in _REACH_API and not called.startswith("cudaEvent"):
            return f"'{call.name}' in '{name}'", call.span
    for launch in model.in_function("launches", name):
        if launch.stream is not None and launch.stream.text.strip() not in _DEFAULT_STREAMS:
            return (f"a launch of '{launch.kernel}' on stream '{launch.stream.text.strip()}' in "
                    f"'{name}'"), launch.span
    params = {p.name for p in function.params}
    reached = set(outside)
    for use in model.in_function("var_uses", name):
        if (use.call in _RELEASES or use.role == "delete") and (use.name in params or use in reached):
            return f"'{use.name}' freed or allocated in '{name}'", use.span
    for use in outside:
        if use.name in space and use.role in VALUE_ROLES or use.pointer and use.role == "assign":
            return f"'{use.name}', declared outside '{name}', given a value there", use.span
    names = {u.name for u in outside if u.name in space}
    uses = model.in_function("var_uses", name)
    locals_ = {u.name for u in uses if u.local}
    aliases = set(names)    # the region buffers it names and the locals given one of them
    for copy in model.in_function("pointer_copies", name):
        if copy.source in names or set(copy.choices) & names:
            if copy.target not in locals_:
                return f"'{copy.target}' given region buffer '{copy.source or copy.choices[0]}' in " \
                       f"'{name}'", copy.span
            aliases.add(copy.target)
    for stmt in function.body.walk():     # (a pointer returned may be a region buffer's alias)
        if stmt.kind == "return" and any(u.pointer and u.name in aliases and stmt.span.contains(u.span)
                                         for u in uses):
            return f"a pointer returned by '{name}'", stmt.span
    return None
