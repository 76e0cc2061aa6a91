"""Replay a CUDA program's device work on the runtime's cpu devices: the fusion checker.

The straight-line statements of ``main`` are followed in order: scalar and ``dim3``
declarations are evaluated (``s2s/analysis/host_eval.py``; sizes can be overridden to keep
runs small), ``cudaMalloc``/``cudaMemset``/``cudaMemcpy`` act on runtime buffers, and every
launch runs its kernel from the program's own source on an emulated device. Host loops are
not run: a host-to-device copy uploads deterministic dyadic data chosen by the host array's
name, so an original and a fused program get the same inputs. The result holds every
device-to-host copy (the program's outputs), the number of launches, and the modelled
global-memory traffic of each launch.

Traffic model: per launch and buffer, the distinct elements the kernel's access maps read
plus those they write over the whole grid (instantiated with the launch's values), times the
element size; an atomically updated element counts as one write (the read-modify-write
happens in the L2 cache). Values a fused kernel keeps in registers or shared memory are not
in its maps, so they cost nothing. The minimum is each input (uploaded and read) read once
plus each output (copied back) written once, as the union of the footprints of all launches.

A second minimum accounts for global barriers the computation cannot avoid
(:func:`_barrier_minimum`): the launches are split into phases at each dependence that both
crosses blocks (isl, at the launch's sizes) and carries a *reduced* value (written by a
reduce or nested map-reduce kernel, or computed from one): no thread can have it before
every block is done. Inputs are then read once per phase that needs them: a value made by
maps from inputs in an earlier phase is recomputed from those inputs (their footprints count
again), a reduced value crosses the barrier through memory (read in the later phase, written
once). GEMVER: ``w = alpha B x`` needs all of ``x``, which needs all of ``B``, so ``A`` and
the vectors of ``B`` are read on both sides.
"""

from __future__ import annotations

import os
import re
import zlib
from dataclasses import dataclass, field

import numpy as np

from runtime.access import Box, KernelAccess
from runtime.access import Launch as AccessLaunch
from runtime.api import Runtime
from s2s.analysis.fuse.kernels import facts_key, kernel_facts
from s2s.analysis.fuse.types import element_type
from s2s.analysis.host_eval import EvalError, as_dim3, declare, evaluate, numeric_macros
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load
from s2s.isl_helpers import GRID_PARAMS, access_scope


class ReplayError(RuntimeError):
    """The program does something the replay does not model."""


@dataclass
class Replay:
    outputs: list = field(default_factory=list)      # (buffer, float32 or float64 array)
    launches: list = field(default_factory=list)     # kernel names in order
    bytes: int = 0
    minimum: int = 0
    #: the minimum when inputs needed on both sides of a necessary global barrier count once
    #: per side (see the module docstring)
    minimum_barriers: int = 0
    exact_model: bool = True
    #: the template instantiations the cpu-device module was compiled with
    instantiated: tuple = ()


def fill(name: str, nbytes: int, dtype=np.float32) -> np.ndarray:
    """Deterministic dyadic data for the host array ``name`` (exact in float and double, so
    sums do not depend on the order of atomic updates)."""
    seed = zlib.crc32(name.encode()) % 11
    k = np.arange(nbytes // np.dtype(dtype).itemsize, dtype=np.int64)
    return (0.25 * ((k * 7 + seed) % 13 - 6)).astype(dtype)


def _dtypes(model) -> dict[str, type]:
    """Device buffer -> numpy element type, from the parameter types of the kernels it is
    passed to (``double *`` gives float64; anything else is treated as 4-byte floats); for a
    template kernel the types of the instantiation the launch runs (``T *`` of
    ``k<double>``)."""
    found: dict[str, type] = {}
    for launch in model.launches:
        kernel = model.kernel(launch.kernel)
        params = kernel.params if kernel else ()
        types = launch.instance_types or [p.type for p in params]
        for param, ptype, arg in zip(params, types, launch.args, strict=False):
            if param.is_pointer and element_type(ptype) == "double":
                found.setdefault(arg.text.strip(), np.float64)
    return found


def replay(path: str, source: bytes | None = None, overrides: dict | None = None,
           runtime: Runtime | None = None, *, module_source: bytes | None = None,
           traffic: bool = True, instantiate: tuple = ()) -> Replay:
    """Replay ``main`` of ``path`` (or of ``source``). ``module_source`` compiles the kernels
    from another text that defines them all (a fused file keeps every original kernel, so
    the original and the fused program can share one cpu-device compile); without
    ``traffic`` the modelled bytes are left at 0 (the outputs alone are compared).
    ``instantiate`` adds template instantiations to those the launches name: a fused file
    launches fewer (its stages instantiate the templates), and passing the original's
    (``Replay.instantiated``) keeps the two replays on one compiled module."""
    loaded = load(path, ParseOptions(), source=source)
    if loaded.model is None:
        raise ReplayError(f"{path} does not parse")
    model, source = loaded.model, loaded.source
    facts = kernel_facts(model)
    rt = runtime or Runtime("cpu", 1, threads=2)
    instantiate = sorted({_callee(launch) for launch in model.launches if launch.template_args}
                         | set(instantiate))
    module = rt.load_module(source=(module_source or source).decode(), name=os.path.basename(path),
                            instantiate=instantiate,
                            include_dirs=[os.path.dirname(os.path.abspath(path))])
    env = dict(numeric_macros(source))
    main = model.function("main")
    state = _State(rt, module, facts, env, Replay(instantiated=tuple(instantiate)), {}, {}, {},
                   {}, [], _dtypes(model), traffic, source)
    for stmt in _taken(main.body.children, env):
        if stmt.kind == "decl":
            for name in declare(stmt.span.text(source), env):
                if overrides and name in overrides:
                    env[name] = overrides[name]
        elif stmt.kind in ("expr", "do"):  # "do": a CUDA_CHECK(...) style macro
            _statement(state, model, stmt)
    if not traffic:
        return state.result
    outputs = {name for name, _data in state.result.outputs}
    state.result.minimum = sum(_count(r) * 4 for r in state.min_reads.values()) + \
        sum(_count(r) * 4 for b, r in state.min_writes.items() if b in outputs)
    state.result.minimum_barriers = _barrier_minimum(state, outputs)
    return state.result


@dataclass
class _State:
    rt: Runtime
    module: object
    facts: dict
    env: dict
    result: Replay
    buffers: dict
    uploaded: dict
    min_reads: dict
    min_writes: dict
    footprints: list     # per launch: (facts, launch values, {param: buffer}, reads, writes)
    dtypes: dict         # buffer -> numpy element type
    traffic: bool = True
    source: bytes = b""  # the file's text (a called function's declarations)
    #: a called function's parameter -> the caller's name it is bound to (host data is
    #: chosen, and outputs are named, by the caller's names)
    aliases: dict = field(default_factory=dict)


#: runtime calls that give or move device data (the others are left out: the replay is
#: serialized, and host memory is the replay's own data)
_DATA = frozenset({"alloc", "memcpy", "memset", "launch"})
#: allocations of host memory (pinned): the replay's host data is its own
_HOST_ALLOC = frozenset({"cudaMallocHost", "cudaHostAlloc"})
#: how deep calls of the file's functions doing device work are followed
_DEPTH = 8


def _statement(state: _State, model, stmt, depth: int = 0) -> None:
    """The launches, runtime calls and calls of the file's functions that do device work
    (launch wrappers, copy helpers: their bodies are replayed with the call's arguments) of
    one statement, in the order they are written."""
    work = [(launch.span.start, "launch", launch) for launch in model.launches
            if stmt.span.contains(launch.span)]
    work += [(call.span.start, "api", call) for call in model.api_calls
             if stmt.span.contains(call.span)]
    work += [(call.span.start, "call", call) for call in _calls_below(stmt)
             if _does_device_work(model, call.name)]
    for _at, kind, item in sorted(work, key=lambda w: w[0]):
        if kind == "launch":
            _launch(state, item)
        elif kind == "api":
            _api(state, item)
        else:
            _call(state, model, item, depth)


def _taken(stmts, env: dict):
    """``stmts`` in order, with each ``if`` or ``switch`` whose condition the replay can
    evaluate replaced by the statements of the branch or the cases it takes (a launch in a
    switch case: issue 29, cuda-samples' launches sit in branches); one whose condition it
    cannot evaluate is left out, as every branch was before. Lazy: a declaration before the
    branch is in ``env`` when its condition is evaluated."""
    for stmt in stmts:
        if stmt.kind not in ("if", "switch") or stmt.cond is None or stmt.init is not None:
            yield stmt
            continue
        try:
            value = evaluate(stmt.cond.text, env)
        except EvalError:
            continue
        taken = list(_statements_of(stmt.body if value else stmt.orelse)) if stmt.kind == "if" \
            else _case_statements(stmt.body, value, env)
        if not any(inner.kind in _JUMPS for part in taken for inner in part.walk()):
            yield from _taken(taken, env)     # (a jump out of it: left out, as before)


_JUMPS = frozenset({"break", "continue", "return", "goto"})


def _statements_of(part) -> tuple:
    if part is None:
        return ()
    return part.children if part.kind == "block" else (part,)


def _case_statements(body, value, env: dict) -> list:
    """The statements a ``switch`` on ``value`` runs: from its matching ``case`` label (or
    ``default``) to the first ``break`` at the switch's level, through later labels (a
    fall-through). Nothing when a label's value cannot be evaluated."""
    flat = []                                 # (label kind, label value text, statement)
    for stmt in _statements_of(body):
        while stmt.kind in ("case", "default") and stmt.children:
            flat.append((stmt.kind, stmt.cond.text if stmt.cond is not None else None, None))
            stmt = stmt.children[-1]
        flat.append((None, None, stmt))
    start = None
    try:
        for at, (kind, text, _stmt) in enumerate(flat):
            if kind == "case" and evaluate(text, env) == value:
                start = at
                break
    except EvalError:
        return []
    if start is None:
        start = next((at for at, (kind, _t, _s) in enumerate(flat) if kind == "default"), None)
    taken = []
    for _kind, _text, stmt in flat[start:] if start is not None else ():
        if stmt is not None and stmt.kind == "break":
            break
        if stmt is not None:
            taken.append(stmt)
    return taken


def _calls_below(stmt) -> list:
    """The calls of ``stmt`` and of the statements nested in it (a ``do { } while (0)``
    checking macro)."""
    return [call for inner in stmt.walk() for call in inner.calls]


def _does_device_work(model, name: str, seen: frozenset = frozenset()) -> bool:
    """Whether the file's function ``name`` launches, copies, allocates or sets device
    memory, itself or through the file's functions it calls."""
    function = model.function(name)
    if function is None or function.body is None or name in seen or name == "main":
        return False
    if model.in_function("launches", name) or any(
            c.category in _DATA for c in model.in_function("api_calls", name)):
        return True
    return any(_does_device_work(model, c.name, seen | {name}) for c in function.calls)


def _call(state: _State, model, call, depth: int) -> None:
    """Replay the body of the file's function ``call`` names with its parameters bound to the
    call's arguments: a pointer parameter to the buffer its argument names, a scalar one to
    its argument's value. Its own straight-line statements run as ``main``'s do."""
    function = model.function(call.name)
    if depth >= _DEPTH:
        raise ReplayError(f"calls of '{call.name}' nested more than {_DEPTH} deep")
    if len(call.args) != len(function.params):
        raise ReplayError(f"call of '{call.name}' with {len(call.args)} arguments for "
                          f"{len(function.params)} parameters")
    env, buffers, aliases = dict(state.env), dict(state.buffers), dict(state.aliases)
    for param, arg in zip(function.params, call.args, strict=True):
        name = _name(arg.text)
        state.aliases[param.name] = aliases.get(name, name)
        if name in state.buffers:
            state.buffers[param.name] = state.buffers[name]
            if param.name in state.dtypes:
                state.dtypes.setdefault(name, state.dtypes[param.name])
        else:
            try:
                state.env[param.name] = evaluate(arg.text, env)
            except EvalError:
                state.env.pop(param.name, None)   # a value the replay does not know
    try:
        for stmt in _taken(function.body.children, state.env):
            if stmt.kind == "decl":
                declare(stmt.span.text(state.source), state.env)
            elif stmt.kind in ("expr", "do"):
                _statement(state, model, stmt, depth + 1)
    finally:
        state.env, state.aliases = env, aliases
        state.buffers = {**state.buffers, **{p.name: buffers[p.name] for p in function.params
                                             if p.name in buffers}}
        for param in function.params:
            if param.name not in buffers:
                state.buffers.pop(param.name, None)


def _callee(launch) -> str:
    """The kernel a launch runs: ``scale<float>`` for a template launched with arguments."""
    return f"{launch.kernel}<{launch.template_args}>" if launch.template_args else launch.kernel


def _name(text: str) -> str:
    return re.sub(r"\(\s*void\s*\*\*\s*\)|[&\s]", "", text)


def _api(state: _State, call) -> None:
    """One runtime call: allocations, sets and copies act on the runtime's buffers (the
    ``Async`` forms as the plain ones: the replay runs everything in order); a call that
    moves device data in a way not modelled here stops the replay (it is never skipped)."""
    args, env, rt = [a.text for a in call.args], state.env, state.rt
    name = call.name.removesuffix("Async")
    if name not in ("cudaMalloc", "cudaMemset", "cudaMemcpy"):
        if call.category in _DATA and call.name not in _HOST_ALLOC:
            raise ReplayError(f"{call.name} at line {call.span.line} is not modelled")
        return
    if name == "cudaMalloc":
        size = int(evaluate(args[1], env))
        state.buffers[_name(args[0])] = (rt.malloc(size), size)
    elif name == "cudaMemset":
        buf, _size = state.buffers[_name(args[0])]
        rt.memset(buf, int(evaluate(args[1], env)), int(evaluate(args[2], env)))
    elif name == "cudaMemcpy":
        nbytes, kind = int(evaluate(args[2], env)), args[3]
        if "HostToDevice" in kind:
            name = _name(args[0])
            host = _name(args[1])
            rt.memcpy_htod(state.buffers[name][0], fill(state.aliases.get(host, host), nbytes,
                                                        state.dtypes.get(name, np.float32)))
            state.uploaded[name] = True
        elif "DeviceToHost" in kind:
            dtype = state.dtypes.get(_name(args[1]), np.float32)
            out = np.empty(nbytes // np.dtype(dtype).itemsize, dtype=dtype)
            rt.memcpy_dtoh(out, state.buffers[_name(args[1])][0])
            state.result.outputs.append((state.aliases.get(_name(args[1]), _name(args[1])), out))
        elif "DeviceToDevice" in kind:
            rt.memcpy_dtod(state.buffers[_name(args[0])][0], state.buffers[_name(args[1])][0],
                           nbytes)
        else:
            raise ReplayError(f"cudaMemcpy kind {kind} not modelled")


def _launch(state: _State, launch) -> None:
    facts = state.facts.get(facts_key(state.facts, launch)) or state.facts[launch.kernel]
    env = state.env
    try:
        grid, block = as_dim3(evaluate(launch.grid.text, env)), as_dim3(evaluate(launch.block.text, env))
        shared = int(evaluate(launch.shared_bytes.text, env)) if launch.shared_bytes else 0
    except EvalError as error:
        raise ReplayError(f"launch of {launch.kernel}: {error}") from error
    args, scalars, pointers = [], {}, {}
    for (name, kind), arg in zip(facts.params, launch.args, strict=True):
        if kind == "pointer":
            buffer = state.buffers[arg.text.strip()]
            args.append(buffer[0])
            pointers[name] = (arg.text.strip(), buffer[1] // 4)
        else:
            value = evaluate(arg.text, env)
            value = int(value) if kind == "int" else float(value)
            args.append(value)
            if kind == "int":
                scalars[name] = value
    state.rt.launch(state.module[_callee(launch)], grid.as_tuple(), block.as_tuple(), args,
                    shared=shared)
    state.result.launches.append(launch.kernel)
    if state.traffic:
        _traffic(state, facts, grid, block, scalars, pointers)


def _traffic(state: _State, facts, grid, block, scalars, pointers) -> None:
    access = KernelAccess.from_dict(facts.access.to_dict())
    launch = AccessLaunch(grid.as_tuple(), block.as_tuple(), scalars)
    box = Box((0, 0, 0), grid.as_tuple())
    values = dict(zip(GRID_PARAMS, (*grid.as_tuple(), *block.as_tuple()), strict=True))
    footprint = (facts, values | scalars, {p: b for p, (b, _n) in pointers.items()}, {}, {})
    state.footprints.append(footprint)
    for param, (buffer, length) in pointers.items():
        array = facts.access.array(param)
        if array is None:
            continue
        reads = _clip(access.read_ranges(param, box, launch), length) if array.read else []
        writes = _clip(access.write_ranges(param, box, launch), length) if array.write else []
        if facts.atomic_writes(param):
            reads = []
        if not (array.read_exact and array.write_exact):
            state.result.exact_model = False
        state.result.bytes += 4 * (_count(reads) + _count(writes))
        if reads:
            footprint[3][buffer] = _merge(footprint[3].get(buffer, []) + reads)
        if writes:
            footprint[4][buffer] = _merge(footprint[4].get(buffer, []) + writes)
        if state.uploaded.get(buffer) and reads:
            state.min_reads[buffer] = _merge(state.min_reads.get(buffer, []) + reads)
        if writes:
            state.min_writes[buffer] = _merge(state.min_writes.get(buffer, []) + writes)


@dataclass
class _Origin:
    """The last writer of a buffer: its phase, whether the value is reduced, and (when it is
    not) the input footprints it is computed from."""

    launch: int
    phase: int
    reduced: bool
    sources: dict


def _barrier_minimum(state: _State, outputs: set) -> int:
    origin: dict[str, _Origin] = {}
    phase_reads: dict[int, dict] = {}
    crossing: dict[str, list] = {}
    for k, (facts, values, buffers, reads, writes) in enumerate(state.footprints):
        phase = 0
        for buffer in reads:
            made = origin.get(buffer)
            if made is not None:
                phase = max(phase, made.phase + (made.reduced and _crosses_blocks(
                    state.footprints[made.launch], (facts, values, buffers), buffer)))
        needed = phase_reads.setdefault(phase, {})
        reduced = facts.kind in ("reduce", "nested")
        sources: dict = {}
        for buffer, ranges in reads.items():
            made = origin.get(buffer)
            if made is None:
                if state.uploaded.get(buffer):
                    needed[buffer] = _merge(needed.get(buffer, []) + ranges)
                    sources[buffer] = _merge(sources.get(buffer, []) + ranges)
                continue
            reduced = reduced or made.reduced
            for src, rng in (made.sources.items() if not made.reduced else ()):
                sources[src] = _merge(sources.get(src, []) + rng)
            if made.phase == phase:
                continue
            if made.reduced:
                needed[buffer] = _merge(needed.get(buffer, []) + ranges)
                crossing[buffer] = state.footprints[made.launch][4][buffer]
            else:
                for src, rng in made.sources.items():
                    needed[src] = _merge(needed.get(src, []) + rng)
        for buffer in writes:
            origin[buffer] = _Origin(k, phase, reduced, {} if reduced else sources)
    total = sum(_count(r) for needed in phase_reads.values() for r in needed.values())
    total += sum(_count(r) for b, r in state.min_writes.items() if b in outputs)
    total += sum(_count(r) for b, r in crossing.items() if b not in outputs)
    return 4 * total


def _crosses_blocks(first, second, buffer: str) -> bool:
    """Whether ``second`` reads elements of ``buffer`` that other blocks of ``first`` wrote."""
    def maps(footprint, mode):
        facts, buffers = footprint[0], footprint[2]
        arrays = [facts.access.array(p) for p, b in buffers.items() if b == buffer]
        return [getattr(a, mode) for a in arrays if a is not None and getattr(a, mode)]

    writes, reads = maps(first, "write"), maps(second, "read")
    if not writes or not reads:
        return True
    return access_scope(writes, first[1], reads, second[1]) == "grid"


def _clip(ranges, length: int):
    return [(max(0, lo), min(hi, length)) for lo, hi in ranges if lo < length and hi > 0]


def _merge(ranges):
    out = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _count(ranges) -> int:
    return sum(hi - lo for lo, hi in ranges)


def compare(first: Replay, second: Replay, tolerance: float = 0.0) -> list[str]:
    """Differences between the outputs of two replays ([] when equal within ``tolerance``,
    relative to the largest magnitude of each output; 0 means bit-for-bit)."""
    problems = []
    if len(first.outputs) != len(second.outputs):
        return [f"{len(first.outputs)} outputs vs {len(second.outputs)}"]
    for (name, a), (_n, b) in zip(first.outputs, second.outputs, strict=True):
        if tolerance == 0.0:
            if not np.array_equal(a, b, equal_nan=True):
                bad = int(np.flatnonzero(a != b)[0])
                problems.append(f"{name}[{bad}]: {a[bad]!r} vs {b[bad]!r}")
        else:
            scale = max(float(np.max(np.abs(a))) if a.size else 0.0, 1e-30)
            err = float(np.max(np.abs(a - b))) / scale if a.size else 0.0
            if not err <= tolerance:
                problems.append(f"{name}: relative difference {err:.3g} > {tolerance}")
    return problems
