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
from s2s.analysis.fuse_kernels import kernel_facts
from s2s.analysis.host_eval import EvalError, as_dim3, declare, evaluate, numeric_macros
from s2s.frontend.extract import load
from s2s.frontend.parse import ParseOptions


class ReplayError(RuntimeError):
    """The program does something the replay does not model."""


@dataclass
class Replay:
    outputs: list = field(default_factory=list)      # (buffer, float32 array)
    launches: list = field(default_factory=list)     # kernel names in order
    bytes: int = 0
    minimum: int = 0
    exact_model: bool = True


def fill(name: str, nbytes: int) -> np.ndarray:
    """Deterministic dyadic float32 data for the host array ``name``."""
    seed = zlib.crc32(name.encode()) % 11
    k = np.arange(nbytes // 4, dtype=np.int64)
    return (0.25 * ((k * 7 + seed) % 13 - 6)).astype(np.float32)


def replay(path: str, source: bytes | None = None, overrides: dict | None = None,
           runtime: Runtime | None = None) -> Replay:
    loaded = load(path, ParseOptions(), source=source)
    if loaded.model is None:
        raise ReplayError(f"{path} does not parse")
    model, source = loaded.model, loaded.source
    facts = kernel_facts(model)
    rt = runtime or Runtime("cpu", 1, threads=2)
    module = rt.load_module(source=source.decode(), name=os.path.basename(path),
                            include_dirs=[os.path.dirname(os.path.abspath(path))])
    env = dict(numeric_macros(source))
    main = model.function("main")
    state = _State(rt, module, facts, env, Replay(), {}, {}, {}, {})
    for stmt in main.body.children:
        if stmt.kind == "decl":
            for name in declare(stmt.span.text(source), env):
                if overrides and name in overrides:
                    env[name] = overrides[name]
        elif stmt.kind in ("expr", "do"):  # "do": a CUDA_CHECK(...) style macro
            _statement(state, model, stmt)
    outputs = {name for name, _data in state.result.outputs}
    state.result.minimum = sum(_count(r) * 4 for r in state.min_reads.values()) + \
        sum(_count(r) * 4 for b, r in state.min_writes.items() if b in outputs)
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


def _statement(state: _State, model, stmt) -> None:
    for launch in model.launches:
        if stmt.span.contains(launch.span):
            _launch(state, launch)
    for call in model.api_calls:
        if stmt.span.contains(call.span):
            _api(state, call)


def _name(text: str) -> str:
    return re.sub(r"\(\s*void\s*\*\*\s*\)|[&\s]", "", text)


def _api(state: _State, call) -> None:
    args, env, rt = [a.text for a in call.args], state.env, state.rt
    if call.name == "cudaMalloc":
        size = int(evaluate(args[1], env))
        state.buffers[_name(args[0])] = (rt.malloc(size), size)
    elif call.name == "cudaMemset":
        buf, _size = state.buffers[_name(args[0])]
        rt.memset(buf, int(evaluate(args[1], env)), int(evaluate(args[2], env)))
    elif call.name == "cudaMemcpy":
        nbytes, kind = int(evaluate(args[2], env)), args[3]
        if "HostToDevice" in kind:
            name = _name(args[0])
            rt.memcpy_htod(state.buffers[name][0], fill(_name(args[1]), nbytes))
            state.uploaded[name] = True
        elif "DeviceToHost" in kind:
            out = np.empty(nbytes // 4, dtype=np.float32)
            rt.memcpy_dtoh(out, state.buffers[_name(args[1])][0])
            state.result.outputs.append((_name(args[1]), out))
        elif "DeviceToDevice" in kind:
            rt.memcpy_dtod(state.buffers[_name(args[0])][0], state.buffers[_name(args[1])][0],
                           nbytes)
        else:
            raise ReplayError(f"cudaMemcpy kind {kind} not modelled")


def _launch(state: _State, launch) -> None:
    facts = state.facts[launch.kernel]
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
    state.rt.launch(state.module[launch.kernel], grid.as_tuple(), block.as_tuple(), args,
                    shared=shared)
    state.result.launches.append(launch.kernel)
    _traffic(state, facts, grid, block, scalars, pointers)


def _traffic(state: _State, facts, grid, block, scalars, pointers) -> None:
    access = KernelAccess.from_dict(facts.access.to_dict())
    launch = AccessLaunch(grid.as_tuple(), block.as_tuple(), scalars)
    box = Box((0, 0, 0), grid.as_tuple())
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
        if state.uploaded.get(buffer) and reads:
            state.min_reads[buffer] = _merge(state.min_reads.get(buffer, []) + reads)
        if writes:
            state.min_writes[buffer] = _merge(state.min_writes.get(buffer, []) + writes)


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
