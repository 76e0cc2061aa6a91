"""Recomputation fusion: consumers evaluate an elementwise producer's value themselves.

A map kernel P that stores ``B[idx_P] = expr`` once per thread (GEMVER's rank-2 update
``B[i*n + j] = A[i*n + j] + u1[i]*v1[j] + u2[i]*v2[j]``) feeds consumers with a different
thread-to-data mapping (``B[j*n + i]`` by columns, ``B[i*n + j]`` by rows), which ordinary
fusion refuses (a global barrier). Each consumer can instead compute the element it reads:

1. *Producer form*: P's body is straight-line ``int`` locals (its coordinates), guards, and
   one plain store whose index is mixed radix in the coordinates, ``x_1 + R_1*x_2 + ...``,
   with ``0 <= x_k < R_k`` from the guard and the locals' ranges; the stored value reads
   only the coordinates, parameters and other buffers (no calls with side effects).
2. *Injective*: no two threads store one element (isl, at the launch sizes).
3. *Solve*: each consumer subscript is split into the same digits on index polynomials
   (``n*j + i`` -> ``x_1 = i``, ``x_2 = j``); isl proves ``0 <= x_k < R_k`` from the facts at
   the site (guards, loop bounds) for every digit but the last, so the digits are the unique
   coordinates of the producer thread that stored the element, and that every element read
   lies in P's must-write set.
4. *Safety*: no launch of the run other than P writes P's inputs, nothing but P writes B,
   B is used only by P and the consumers and is dead on the host afterwards.
5. *Cost*: P's launch, its reads, B's write and the consumers' reads of B, against the
   consumers reading P's inputs (each once per consumer); the cheaper wins.

Launch sizes are evaluated from the host code at the program's defaults and with the size
variables the kernels receive set around 7, 37 and 100 (distinct variables to distinct
values, in both orders). These are instances, not a proof for every size: the structural
steps (1, 3's digit split) are symbolic, the range checks are isl at these instances.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from s2s import isl_helpers
from s2s.analysis.affine import ONE, Poly
from s2s.analysis.fuse import legal as fuse_legal
from s2s.analysis.fuse.forms import (
    LOCAL,
    LOOP,
    THREAD_ATOMS,
    conditions,
    poly_of,
    render,
    site_facts,
    straight_locals,
)
from s2s.analysis.fuse.graph import allocated_here, live_after, mentions_in_calls
from s2s.analysis.host_eval import EvalError, as_dim3, declare_facts, evaluate_tree, host_trees
from s2s.analysis.kernel.loops import walk
from s2s.model import kernel_ir as ir
from s2s.model.cuda import Launch

GRID_PARAMS = isl_helpers.GRID_PARAMS
SIZE_SAMPLES = (None, 7, 37, 100)
PURE_CALLS = frozenset({
    "expf", "exp", "logf", "log", "sqrtf", "sqrt", "rsqrtf", "fabsf", "fabs", "fminf", "fmaxf",
    "fmin", "fmax", "tanhf", "tanh", "sinf", "cosf", "powf", "pow", "min", "max", "__expf",
    "__logf", "erff", "erf", "fmaf", "fma"})


@dataclass(frozen=True)
class Producer:
    index: int
    param: str                     # P's pointer parameter it stores
    buffer: str                    # the host buffer bound to it
    order: tuple[str, ...]         # coordinate locals in declaration order
    types: tuple[str, ...]         # their declared types
    digits: tuple[str, ...]        # coordinate locals, innermost digit first
    radices: tuple[Poly, ...]      # coefficient of each digit (the first is 1), P's params
    bounds: tuple[Poly, ...]       # x_k < bounds[k] for each digit but the last
    offset: Poly
    value: str                     # source text of the stored value
    inputs: tuple[str, ...]        # host buffers the value reads


@dataclass(frozen=True)
class SiteRewrite:
    span: object
    coords: tuple[Poly, ...]       # per ``Producer.order``, in the consumer's source atoms


@dataclass(frozen=True)
class Recompute:
    producer: Producer
    sites: dict                    # consumer node index -> tuple[SiteRewrite, ...]

    @property
    def consumers(self) -> tuple[int, ...]:
        return tuple(sorted(self.sites))


class Refused(Exception):
    """Recomputation is not possible; the message says why."""


def plan(ctx, launch_bytes: int, unknown_bytes: int):
    """Producers of ``ctx.run`` recomputed in their consumers: ({P index: Recompute},
    [(made, node names, reason)])."""
    chosen: dict[int, Recompute] = {}
    notes = []
    for node in ctx.run.nodes:
        consumers = _consumers(ctx, node)
        if not consumers or node.facts is None:
            continue
        if all(fuse_legal.pair_verdict(ctx.run, node, c).ok for c in consumers):
            continue                      # ordinary fusion handles these
        names = tuple(n.name for n in [node, *consumers])
        try:
            rec = _candidate(ctx, node, consumers, chosen)
            keep, again = _costs(ctx, rec, consumers, launch_bytes, unknown_bytes)
        except Refused as why:
            notes.append((False, names, f"recomputation: {why}"))
            continue
        verdict = (f"cost model: {keep / 1e6:.2f} MB keeping {node.name} (its launch "
                   f"counted as {launch_bytes / 1e6:.2f} MB) vs {again / 1e6:.2f} MB recomputing")
        if again >= keep:
            notes.append((False, names, f"recomputation costs more: {verdict}"))
            continue
        chosen[node.index] = rec
        notes.append((True, names, _explain(ctx, rec) + f"; {verdict}"))
    return chosen, notes


def _consumers(ctx, node) -> list:
    written = [b for b in dict.fromkeys(node.buffers.values()) if node.writes(b)]
    return [n for n in ctx.run.nodes[node.index + 1:] if n.facts is not None
            and any(n.reads(b) for b in written)]


def _candidate(ctx, node, consumers, chosen) -> Recompute:
    if node.problem:
        raise Refused(node.problem)
    # the producer's value and the consumers' sites are solved on the file's kernel bodies,
    # which for a template still hold its parameters (and a header's are not the file's)
    odd = [n.name for n in [node, *consumers]
           if n.instance is not None or ctx.unit.kernel_body(n.launch.kernel) is None]
    if odd:
        raise Refused(f"{odd[0]} runs a template instantiation or a project header's kernel "
                      "(recomputation is solved on the file's own ordinary kernels only)")
    producer = producer_form(ctx, node)
    gone = {r.producer.buffer for r in chosen.values()}
    if set(producer.inputs) & gone:
        raise Refused("an input of the producer is itself recomputed")
    _check_run(ctx, node, producer, consumers)
    envs = _envs(ctx, [node, *consumers])
    write = node.facts.access.array(producer.param).write
    for env in envs:
        values = _launch_values(node, env, ctx.unit)
        if values is None:
            raise Refused(f"launch sizes of {node.name} not evaluable from the host code")
        if not isl_helpers.injective(write, values):
            raise Refused(f"{node.name} is not injective: two threads store one element "
                          f"of {producer.buffer}")
    sites = {c.index: _consumer_sites(ctx, node, producer, c, envs) for c in consumers}
    return Recompute(producer, sites)


def producer_form(ctx, node) -> Producer:
    facts = node.facts
    if node.problem:
        raise Refused(node.problem)
    if facts.kind != "map":
        raise Refused(f"{node.name} is not an elementwise map ({facts.detail})")
    if facts.barriers or facts.atomics or facts.shared or facts.device_builtins:
        raise Refused(f"{node.name} has barriers, atomics, shared memory or __device__ calls")
    written = [p for p, kind in facts.params if kind == "pointer" and facts.writes(p)]
    if len(written) != 1:
        raise Refused(f"{node.name} stores {len(written)} buffers (side effects beyond one)")
    param = written[0]
    sites = facts.sites.get(param, ())
    if facts.reads(param) or param in facts.escapes or len(sites) != 1 or \
            sites[0].op != "=":
        raise Refused(f"{node.name} does not store '{param}' with one plain assignment")
    body = ctx.unit.kernel_body(node.launch.kernel)
    store, guard, decls = _shape(body, param)
    params = {p for p, kind in facts.params if kind == "int"}
    coords = {name: None for name in straight_locals(body)}
    index = poly_of(store.target.index, params, coords)
    guard_polys = []
    for cond, negate in guard:
        found = conditions(cond, params, coords, frozenset(), negate)
        if found is None:
            raise Refused(f"a guard of {node.name} is not a conjunction of affine comparisons")
        guard_polys += found
    if index is None:
        raise Refused(f"the index {node.name} stores at is not a polynomial of its locals")
    digits, radices, bounds, offset = _radix(index, guard_polys, straight_locals(body), params)
    used = _value_names(store.value, facts, body, node.name)
    if not used <= set(digits):
        raise Refused(f"the stored value uses locals {sorted(used - set(digits))} that are "
                      "not coordinates of the stored element")
    order = tuple(d.name for d in decls if d.name in digits)
    types = tuple(_decl_type(ctx.source, d) for d in decls if d.name in digits)
    inputs = tuple(dict.fromkeys(node.buffers[p] for p, kind in facts.params
                                 if kind == "pointer" and p != param and facts.reads(p)))
    return Producer(node.index, param, node.buffers[param], order, types, digits, radices,
                    bounds, offset, _value_text(ctx.source, sites[0].span), inputs)


def _shape(body: ir.KernelBody, param: str):
    """(store, [(guard condition, negated)], local declarations) of a body made of ``int``
    locals, ``if (c) return;`` guards and one (guarded) store as its last statement."""
    stmts = list(body.body.stmts)
    guard, decls = [], []
    locals_ = straight_locals(body)
    for k, stmt in enumerate(stmts):
        last = k == len(stmts) - 1
        if isinstance(stmt, ir.Decl) and stmt.name in locals_ and not last:
            decls.append(stmt)
        elif isinstance(stmt, ir.If) and stmt.other is None and not last and \
                _is_return(stmt.then):
            guard.append((stmt.cond, True))
        elif last and isinstance(stmt, ir.If) and stmt.other is None:
            guard.append((stmt.cond, False))
            return _store(stmt.then, param), guard, decls
        elif last:
            return _store(stmt, param), guard, decls
        else:
            break
    raise Refused("the producer's body is not int locals, guards and one store")


def _is_return(stmt) -> bool:
    return isinstance(stmt, ir.Return) or (isinstance(stmt, ir.Block) and len(stmt.stmts) == 1
                                           and isinstance(stmt.stmts[0], ir.Return))


def _store(stmt, param: str) -> ir.Assign:
    if isinstance(stmt, ir.Block) and len(stmt.stmts) == 1:
        stmt = stmt.stmts[0]
    if isinstance(stmt, ir.ExprStmt) and isinstance(stmt.expr, ir.Assign) and \
            stmt.expr.op == "=" and isinstance(stmt.expr.target, ir.Index) and \
            stmt.expr.target.base == ir.Var(param):
        return stmt.expr
    raise Refused("the producer's guarded statement is not one store")


def _radix(index: Poly, guard: list[Poly], locals_: dict, params: set[str]):
    """Digits (innermost first), radices, bounds and offset of a mixed-radix index."""
    coefficient: dict[str, dict] = {}
    offset: dict = {}
    for mono, c in index.terms:
        coords = [a for a in mono if a.startswith(LOCAL)]
        if len(coords) > 1 or not set(mono) - set(coords) <= params:
            raise Refused("the stored index is not linear in the coordinates")
        rest = tuple(a for a in mono if a not in coords)
        target = coefficient.setdefault(coords[0], {}) if coords else offset
        target[rest] = target.get(rest, 0) + c
    radices = {name: Poly.of(c) for name, c in coefficient.items()}
    digits, bounds, radix = [], [], ONE
    while len(digits) < len(radices):
        atom = next((a for a, r in radices.items() if r == radix and a not in digits), None)
        if atom is None:
            raise Refused("the stored index is not mixed radix in the coordinates "
                          "(x_1 + R_1*x_2 + ... with 0 <= x_k < R_k)")
        digits.append(atom)
        if len(digits) == len(radices):
            break
        if not _nonnegative(locals_[atom[len(LOCAL):]]) and Poly.atom(atom) not in guard:
            raise Refused(f"no lower bound 0 on '{atom[len(LOCAL):]}'")
        bound = next((g + Poly.atom(atom) + ONE for g in guard
                      if (g + Poly.atom(atom)).atoms() <= params), None)
        if bound is None:
            raise Refused(f"the guard gives no bound on '{atom[len(LOCAL):]}'")
        bounds.append(bound)
        radix = radix * bound
    return (tuple(a[len(LOCAL):] for a in digits), tuple(radices[a] for a in digits),
            tuple(bounds), Poly.of(offset))


def _nonnegative(value: Poly) -> bool:
    return all(c > 0 and set(m) <= set(THREAD_ATOMS) | set(GRID_PARAMS) for m, c in value.terms)


def _value_names(value, facts, body, name: str) -> set[str]:
    """Locals the stored value reads; refuses built-ins, calls and assignments in it."""
    params = {p for p, _kind in facts.params}
    used = set()
    for item in walk(value):
        if isinstance(item, ir.Builtin):
            raise Refused(f"the value {name} stores reads thread indices directly")
        if isinstance(item, (ir.Assign, ir.Opaque)) or (isinstance(item, ir.Unary) and
                                                         item.op in ("pre++", "pre--",
                                                                     "post++", "post--")):
            raise Refused(f"the value {name} stores has side effects or unmodelled parts")
        if isinstance(item, ir.Call) and (item.device or item.name not in PURE_CALLS):
            raise Refused(f"the value {name} stores calls '{item.name}' (side effects unknown)")
        if isinstance(item, ir.Var) and item.name not in params:
            used.add(item.name)
    return used


def _decl_type(source: bytes, decl: ir.Decl) -> str:
    text = decl.span.text(source)
    match = re.search(rf"\b{re.escape(decl.name)}\b", text)
    return text[:match.start()].strip() if match else "int"


def _value_text(source: bytes, target_span) -> str:
    """The right-hand side of ``B[...] = value;`` from the source."""
    rest = source[target_span.end:].decode("utf-8", "surrogateescape")
    equal = rest.index("=")
    depth, end = 0, equal + 1
    while end < len(rest) and not (rest[end] == ";" and depth == 0):
        depth += rest[end] in "([{"
        depth -= rest[end] in ")]}"
        end += 1
    return " ".join(rest[equal + 1:end].split())


def _check_run(ctx, node, producer: Producer, consumers) -> None:
    run, buffer = ctx.run, producer.buffer
    for other in run.nodes:
        if other is node or other.facts is None:
            continue
        if other.writes(buffer):
            raise Refused(f"{other.name} writes {buffer} too")
        for source in producer.inputs:
            if other.writes(source):
                where = "between the producer and a consumer" if node.index < other.index < \
                    consumers[-1].index else "in the same run"
                raise Refused(f"{other.name} overwrites {source}, an input of {node.name}, "
                              f"{where}")
        if other.index < node.index and other.reads(buffer):
            raise Refused(f"{other.name} reads {buffer} before {node.name} stores it")
    for consumer in consumers:
        param = consumer.params_of(buffer)
        if len(param) != 1 or param[0] in consumer.facts.escapes:
            raise Refused(f"{consumer.name} uses {buffer} other than as one p[...] parameter")
    last = consumers[-1]
    if run.in_loop or not allocated_here(ctx.unit, run.function, buffer) or \
            live_after(ctx.unit, run, buffer, last.stmt.span.end, ctx.source, ctx.facts):
        raise Refused(f"{buffer} is live on the host after {last.name} (or not allocated in "
                      f"'{run.function}')")
    launches = {n.launch.span.start for n in [node, *consumers]}
    if any(isinstance(call, Launch) and call.span.start not in launches
           for call, _use in mentions_in_calls(ctx.unit, run.function).get(buffer, ())):
        raise Refused(f"another launch uses {buffer}")


def _consumer_sites(ctx, node, producer: Producer, consumer, envs) -> tuple:
    param = consumer.params_of(producer.buffer)[0]
    body = ctx.unit.kernel_body(consumer.launch.kernel)
    names = _param_names(node, consumer)
    radices = [_rename(r, names) for r in producer.radices]
    bounds = [_rename(b, names) for b in producer.bounds]
    offset = _rename(producer.offset, names)
    out = []
    for site in consumer.facts.sites[param]:
        facts = site_facts(body, site.span)
        if facts is None:
            raise Refused(f"the index of {producer.buffer} in {consumer.name} is not a "
                          "polynomial of its variables")
        digits = _digits(facts.index - offset, radices, consumer.name)
        for env in envs:
            values = _launch_values(consumer, env, ctx.unit)
            if values is None:
                raise Refused(f"launch sizes of {consumer.name} not evaluable")
            for digit, bound, local in zip(digits, bounds, producer.digits, strict=False):
                if not _within(consumer, facts, digit, bound, values):
                    raise Refused(f"index not solvable: {consumer.name} reads "
                                  f"{producer.buffer}[{render(facts.index)}], whose digit "
                                  f"{local} = {render(digit)} is not provably in "
                                  f"[0, {render(bound)})")
            write = node.facts.access.array(producer.param).write
            read = consumer.facts.access.array(param).read
            if not isl_helpers.reads_within_writes([read], values, [write],
                                                   _launch_values(node, env, ctx.unit)):
                raise Refused(f"guard not implied: {consumer.name} reads elements of "
                              f"{producer.buffer} that {node.name} does not store")
        by_name = dict(zip(producer.digits, digits, strict=True))
        out.append(SiteRewrite(site.span, tuple(by_name[n] for n in producer.order)))
    return tuple(out)


def _param_names(producer_node, consumer) -> dict[str, str]:
    """P's integer parameter -> C's parameter receiving the same host argument."""
    host = {re.sub(r"\s+", "", t): p for p, t in consumer.scalars.items()}
    return {p: host[re.sub(r"\s+", "", t)] for p, t in producer_node.scalars.items()
            if re.sub(r"\s+", "", t) in host}


def _rename(poly: Poly, names: dict[str, str]) -> Poly:
    out = Poly()
    for mono, c in poly.terms:
        if any(a not in names for a in mono):
            raise Refused(f"a size of the producer ({', '.join(a for a in mono if a not in names)})"
                          " is not an argument of the consumer")
        term = Poly.const(c)
        for atom in mono:
            term = term * Poly.atom(names[atom])
        out = out + term
    return out


def _digits(index: Poly, radices: list[Poly], name: str) -> list[Poly]:
    """``index`` split into the producer's digits by the monomials of the radices."""
    digits: list[Poly] = [Poly()] * len(radices)
    rest = index
    for k in reversed(range(1, len(radices))):
        if len(radices[k].terms) != 1:
            raise Refused(f"index not solvable in {name}: radix {radices[k]} is not a monomial")
        (mono_r, c_r), = radices[k].terms
        taken: dict = {}
        for mono, c in rest.terms:
            left = list(mono)
            if all(a in left and not left.remove(a) for a in mono_r) and c % c_r == 0:
                taken[tuple(left)] = taken.get(tuple(left), 0) + c // c_r
        digits[k] = Poly.of(taken)
        rest = rest - digits[k] * radices[k]
    digits[0] = rest
    return digits


def _within(consumer, facts, digit: Poly, bound: Poly, values: dict) -> bool:
    """Whether ``0 <= digit < bound`` at every execution of the site (isl, at ``values``)."""
    params = list(GRID_PARAMS) + [p for p, kind in consumer.facts.params if kind == "int"]
    cons = [facts.in_threads(c) for c in facts.constraints]
    value = facts.in_threads(digit)
    hidden = sorted({a for p in [*cons, value] for a in p.atoms() if a.startswith(LOOP)})
    known = set(params) | set(THREAD_ATOMS) | set(hidden)
    if any(not p.atoms() <= known for p in [*cons, value, bound]):
        return False
    domain = [f"{c.to_text()} >= 0" for c in cons]
    domain += [f"0 <= {t} < {g}" for t, g in zip(THREAD_ATOMS, GRID_PARAMS, strict=True)]
    for bad in (-value - ONE, value - bound):
        body = " and ".join([*domain, f"{bad.to_text()} >= 0"])
        if hidden:
            body = f"exists ({', '.join(hidden)} : {body})"
        text = f"[{', '.join(params)}] -> {{ [{', '.join(THREAD_ATOMS)}] -> S2S[0] : {body} }}"
        if not isl_helpers.map_is_empty(text, values):
            return False
    return True


def _envs(ctx, nodes) -> list[dict]:
    """Host values at the program's defaults and with the size variables the kernels
    receive set to each of :data:`SIZE_SAMPLES`."""
    trees = host_trees(ctx.unit)
    sizes = {tree.name for n in nodes for p, _ in n.scalars.items() if dict(n.facts.params).get(p) == "int"
             for tree in [_argument(trees, n, p)] if isinstance(tree, ir.Var)}
    decls = trees.declarations(ctx.run.function, ctx.run.nodes[0].stmt.span.start)
    envs = []
    ordered = sorted(sizes)
    for sample in SIZE_SAMPLES:
        # Distinct size variables get distinct values, in both orders: a loop bound ``m``
        # checked against a row length ``n`` must not pass because both were 37.
        for rank in ({v: i for i, v in enumerate(ordered)},
                     {v: len(ordered) - 1 - i for i, v in enumerate(ordered)}):
            env: dict = {}
            for decl in decls:
                for name in declare_facts([decl], env):
                    if sample is not None and name in sizes:
                        env[name] = sample + 5 * rank[name]
            envs.append(env)
            if sample is None or len(ordered) < 2:
                break
    return envs


def _argument(trees, node, param: str):
    """The AST tree of the launch argument passed to kernel parameter ``param``."""
    names = [name for name, _kind in node.facts.params]
    return trees.argument(node.launch.span, node.launch.kernel, names.index(param)) if param in names else None


def _launch_values(node, env: dict, unit) -> dict | None:
    """Grid, block and integer arguments of a launch evaluated in ``env`` (from the AST)."""
    trees = host_trees(unit)
    try:
        grid = as_dim3(evaluate_tree(trees.config(node.launch, 0), env)).as_tuple()
        block = as_dim3(evaluate_tree(trees.config(node.launch, 1), env)).as_tuple()
        values = dict(zip(GRID_PARAMS, (*grid, *block), strict=True))
        for name, kind in node.facts.params:
            if kind == "int":
                values[name] = int(evaluate_tree(_argument(trees, node, name), env))
    except (EvalError, TypeError, ValueError, KeyError):
        return None
    return values


def _costs(ctx, rec: Recompute, consumers, launch_bytes: int, unknown: int) -> tuple[int, int]:
    def size(buffer):
        return ctx.sizes.get(buffer, unknown)

    producer = rec.producer
    inputs = sum(size(b) for b in producer.inputs)
    keep = launch_bytes + inputs + size(producer.buffer) * (1 + len(consumers))
    again = sum(size(b) for c in consumers for b in producer.inputs if not c.reads(b))
    return keep, again


def _explain(ctx, rec: Recompute) -> str:
    producer = rec.producer
    node = ctx.node(producer.index)
    parts = []
    for i in rec.consumers:
        solved = ", ".join(f"{n} = {render(p)}" for site in rec.sites[i][:1]
                           for n, p in zip(producer.order, site.coords, strict=True))
        parts.append(f"{ctx.node(i).name} ({solved})")
    return (f"recomputation: {producer.buffer} recomputed from "
            f"{', '.join(producer.inputs)} in {'; '.join(parts)}; {node.name} is not launched "
            f"and {producer.buffer} not allocated")
