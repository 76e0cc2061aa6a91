"""Calls inside kernels, for the access interpreter: atomics, ``min``/``max``, inlined
``__device__`` functions, and everything else as an opaque call.

A call of an unknown function that receives a pointer parameter might read or write any
element of it, so the access is recorded with an unknown index (a write of that kind makes
the kernel unpartitionable, with the call named in the reason).
"""

from __future__ import annotations

from s2s.analysis.affine import ZERO, Poly
from s2s.analysis.kernel.values import LOCAL, UNKNOWN, Ptr, State
from s2s.model import kernel_ir as ir

MAX_INLINE_DEPTH = 8
NO_EFFECT = frozenset({"__syncthreads", "__syncwarp", "__threadfence", "__threadfence_block",
                       "__threadfence_system", "printf", "assert", "__trap", "__nanosleep",
                       "__syncthreads_count", "__syncthreads_and", "__syncthreads_or"})
MIN_MAX = {"min": "min", "umin": "min", "llmin": "min", "ullmin": "min",
           "max": "max", "umax": "max", "llmax": "max", "ullmax": "max"}
READS_POINTEE = frozenset({"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"})


def call(interp, expr: ir.Call, state: State) -> list[tuple[State, object]]:
    """Evaluate a call: arguments left to right, then the callee's effect and value."""
    results = [(state, [])]
    for arg in expr.args:
        results = [(s2, values + [v]) for s, values in results for s2, v in interp.eval(arg, s)]
    out = []
    for s, values in results:
        out += _effect(interp, expr, s, values)
    return interp.check(out)


def _effect(interp, expr: ir.Call, state: State, values: list):
    name = expr.name
    if name.startswith("atomic") and values and isinstance(values[0], Ptr):
        interp.record(state, values[0], "read", expr.span, atomic=name)
        interp.record(state, values[0], "write", expr.span, atomic=name)
        return [(state, interp.fresh("d"))]
    if name in READS_POINTEE and values and isinstance(values[0], Ptr):
        interp.record(state, values[0], "read", expr.span)
        return [(state, UNKNOWN)]
    if name in MIN_MAX and len(values) == 2 and all(isinstance(v, Poly) for v in values):
        a, b = values
        yes, no = interp.compare("<=", a, b, state)
        if MIN_MAX[name] == "min":
            return [(s, a) for s in yes] + [(s, b) for s in no]
        return [(s, b) for s in yes] + [(s, a) for s in no]
    if name in ("abs", "labs", "llabs") and len(values) == 1 and isinstance(values[0], Poly):
        yes, no = interp.compare(">=", values[0], ZERO, state)
        return [(s, values[0]) for s in yes] + [(s, -values[0]) for s in no]
    if name in NO_EFFECT:
        return [(state, UNKNOWN)]
    body = interp.functions.get(name) if expr.device else None
    if body is not None and name not in interp.stack and len(interp.stack) < MAX_INLINE_DEPTH:
        return _inline(interp, body, state, values)
    for value in values:
        if isinstance(value, Ptr) and value.base not in (None, LOCAL):
            why = f"passed to {name}()"
            interp.record(state, Ptr(value.base, None), "read", expr.span, why=why)
            param = interp.kernel.param(value.base)
            if param is not None and not param.const:
                interp.record(state, Ptr(value.base, None), "write", expr.span, why=why)
    return [(state, UNKNOWN)]


def _inline(interp, body: ir.KernelBody, state: State, values: list):
    """Run a ``__device__`` function's body with its parameters bound to the argument values;
    the caller's environment comes back afterwards (C passes by value)."""
    env = {}
    for param, value in zip(body.params, values, strict=False):
        env[param.name] = interp.convert(param.kind, value)
    caller_env = state.env
    inner = State(env, state.cons, state.may)
    interp.stack.append(body.name)
    try:
        flow = interp.stmt(body.body, [inner])
    finally:
        interp.stack.pop()
    out = []
    for s, value in flow.returned + [(s, UNKNOWN) for s in flow.normal]:
        out.append((State(dict(caller_env), s.cons, s.may), value))
    return out
