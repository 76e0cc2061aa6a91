"""Legality of fusing two launches, decided from their access maps (paper 001, section 3.2).

For every buffer both launches touch with at least one write (RAW, WAR, WAW), the pairs of
threads that meet in an element are classified on the sample launches of
``s2s/isl_helpers.py``, with both kernels' scalar parameters bound through the host
arguments they receive (``n`` in one kernel and ``count`` in the other are the same value
when both are passed the host variable ``n``):

* ``thread``: every shared element is touched by the same thread in both launches, so
  program order inside the fused kernel is enough;
* ``block``: by threads of one block, so a ``__syncthreads()`` between the stages is enough
  (the producer's values pass through shared memory or the block's view of global memory);
* ``grid``: by threads of different blocks: the consumer needs a global barrier, which only
  the end of a kernel provides, so the pair is not fusible.

Vertical fusion requires the same launch shape (grid, block and dynamic shared memory as
written); horizontal fusion requires no shared buffer with a write at all. On-chip passing
is decided here too: a *register* when each thread reads only what it wrote (or read
before) itself, one element per thread; a *shared scalar* when each block reads one element
its own threads wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass

from s2s import isl_helpers
from s2s.analysis.fuse.graph import LaunchNode, Run
from s2s.analysis.host_eval import EvalError, evaluate_tree
from s2s.analysis.kernel.access import sample_overrides
from s2s.model import kernel_ir as ir


@dataclass(frozen=True)
class Verdict:
    ok: bool
    scope: str             # thread | block | grid | none
    reason: str


def _maps(node: LaunchNode, buffer: str, mode: str) -> list[str]:
    texts = []
    for param in node.params_of(buffer):
        array = node.facts.access.array(param)
        text = None if array is None else (array.read if mode == "read" else array.write)
        if text is not None:
            texts.append(text)
    return texts


def sample_values(nodes: list[LaunchNode]) -> list[list[dict]] | None:
    """Per sample launch (the small panel and one with large sizes,
    :data:`s2s.isl_helpers.LARGE_SAMPLE`), one value dict per node (by that kernel's own
    parameter names); None when a scalar argument cannot be given a consistent value."""
    records = [r for node in nodes for r in node.facts.records]
    fixed = sample_overrides(records)
    panels = []
    for grid, block, primes in (*isl_helpers.SAMPLE_LAUNCHES, isl_helpers.LARGE_SAMPLE):
        env: dict[str, int] = {}
        base = dict(zip(isl_helpers.GRID_PARAMS, (*grid, *block), strict=True))
        base.update(fixed)
        per_node = []
        for node in nodes:
            values = dict(base)
            for name, kind in node.facts.params:
                if kind != "int":
                    continue
                value = _scalar(node.scalar_trees.get(name), env, primes)
                if value is None:
                    return None
                values[name] = value
            per_node.append(values)
        panels.append(per_node)
    return panels


def _scalar(tree, env: dict, primes) -> int | None:
    """The sample value of a scalar argument (its AST tree): each host variable it names gets
    a distinct prime the first time any launch mentions it (so ``n`` passed to two kernels is
    one value, ``n`` and ``m`` are not), then the tree is evaluated."""
    if tree is None:
        return None
    for name in _names(tree):
        if name not in env:
            env[name] = primes[len(env) % len(primes)] + 8 * (len(env) // len(primes))
    try:
        value = evaluate_tree(tree, env)
    except (EvalError, TypeError, ValueError):
        return None
    return value if isinstance(value, int) else None


def _names(tree) -> list[str]:
    """The variables a kernel-IR tree names, in order."""
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Var):
            found.append(node.name)
        elif is_dataclass(node):
            for f in fields(node):
                value = getattr(node, f.name)
                items = value if isinstance(value, tuple) else (value,)
                stack.extend(reversed([v for v in items if is_dataclass(v)]))
    return list(dict.fromkeys(found))


def pair_verdict(run: Run, a: LaunchNode, b: LaunchNode) -> Verdict:
    """Can ``b`` (later) run in the same threads as ``a`` (earlier) of one fused kernel?"""
    deps = run.edges(a.index, b.index)
    if not deps:
        return Verdict(True, "none", "independent")
    if a.config != b.config:
        dep = deps[0]
        return Verdict(False, "grid", f"{dep.kind} on {dep.buffer} between launches of "
                       f"different shapes (<<<{a.config[0]}, "
                       f"{a.config[1]}>>> vs <<<{b.config[0]}, {b.config[1]}>>>)")
    panels = sample_values([a, b])
    if panels is None:
        return Verdict(False, "grid", "a scalar argument has no value the analysis can follow")
    worst = "thread"
    for dep in deps:
        first_mode = "write" if dep.kind in ("RAW", "WAW") else "read"
        second_mode = "read" if dep.kind == "RAW" else "write"
        first, second = _maps(a, dep.buffer, first_mode), _maps(b, dep.buffer, second_mode)
        if not first or not second:
            continue
        for va, vb in panels:
            scope = isl_helpers.access_scope(first, va, second, vb)
            if scope == "grid":
                who = {"RAW": "reads", "WAR": "overwrites", "WAW": "overwrites"}[dep.kind]
                return Verdict(False, "grid", f"{b.launch.kernel} {who} {dep.buffer} elements "
                               f"that other blocks of {a.launch.kernel} "
                               f"{'wrote' if dep.kind != 'WAR' else 'read'} ({dep.kind}): "
                               "needs a global barrier")
            if scope == "block":
                worst = "block"
    return Verdict(True, worst, "same thread" if worst == "thread" else
                   "same block: __syncthreads() between the stages")


def on_chip(a: LaunchNode, b: LaunchNode, buffer: str, mode: str) -> bool:
    """Whether ``b``'s reads of ``buffer`` can come from what ``a`` wrote (``mode='write'``)
    or read (``mode='read'``) in the same thread, one element per thread (a register)."""
    return _covered(a, b, buffer, mode, per_block=False)


def shared_scalar(a: LaunchNode, b: LaunchNode, buffer: str) -> bool:
    """Whether every block of ``b`` reads one element of ``buffer`` that ``a``'s same block
    wrote (a ``__shared__`` variable carries it, after a barrier)."""
    return _covered(a, b, buffer, "write", per_block=True)


def writes_covered(a: LaunchNode, b: LaunchNode, buffer: str) -> bool:
    """Whether ``b`` writes ``buffer`` only at elements its same thread got from ``a``'s
    write (so the register keeps holding the current value)."""
    return _covered(a, b, buffer, "write", per_block=False, second="write")


def _covered(a: LaunchNode, b: LaunchNode, buffer: str, mode: str, per_block: bool,
             second: str = "read") -> bool:
    params_a, params_b = a.params_of(buffer), b.params_of(buffer)
    if len(params_a) != 1 or len(params_b) != 1:
        return False
    pa, pb = params_a[0], params_b[0]
    if pa in a.facts.escapes or pb in b.facts.escapes:
        return False
    array_a = a.facts.access.array(pa)
    exact = array_a.write_exact if mode == "write" else array_a.read_exact
    if not exact or a.facts.atomic_writes(pa) or b.facts.atomic_writes(pb):
        return False
    first, reads = _maps(a, buffer, mode), _maps(b, buffer, second)
    if not first or not reads:
        return False
    panels = sample_values([a, b])
    if panels is None:
        return False
    return all(isl_helpers.covered_by_same_thread(reads, vb, first, va, per_block)
               for va, vb in panels)
