"""The fusion planner: span-layered grouping of a launch run, with a cost model.

Following FusionStitching (paper 004, section 3.2), nodes of the launch DAG get span layers
(``graph.span_layers``). Planning then goes in three phases:

1. *layer-wise elementwise fusion*: map kernels of one layer (independent by construction)
   are merged;
2. *subgraph fusion* (the paper's Algorithm 1): from each root layer upwards, a node joins
   the root's group when one of its users is already in it, none is in the give-up set, and
   the merged group passes the schedule-consistency check (:func:`plan_group`: every
   dependent pair has the same launch shape and at most block scope, the placement does not
   reorder dependent launches, resources fit); otherwise it is given up, and so are its
   producers;
3. remaining independent groups are merged horizontally, best cost reduction first.

Cost of a group: launches weighted by :data:`LAUNCH_BYTES` plus the global-memory bytes of
its buffers (a buffer read from global memory counts its size once, a buffer written counts
once more; values kept on chip count nothing), with buffer sizes evaluated from the host code
at the program's default sizes (:data:`UNKNOWN_BYTES` when they cannot be).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from s2s.analysis.fuse import legal as fuse_legal
from s2s.analysis.fuse import recompute as fuse_recompute
from s2s.analysis.fuse.graph import LaunchNode, Run, live_after, mentions_in_calls, span_layers
from s2s.analysis.fuse.resources import REGS_PER_BLOCK, REGS_PER_THREAD, SMEM_LIMIT
from s2s.analysis.fuse.types import element_type, fused_parameter, is_volatile
from s2s.model.cuda import Launch

#: A launch costs about as much as moving this many bytes (a few microseconds of bandwidth).
LAUNCH_BYTES = 4 << 20
UNKNOWN_BYTES = 1 << 20


@dataclass
class BufferPlan:
    buffer: str
    mode: str                  # register | shared | global
    first: int                 # node whose access starts the on-chip value
    store_at: int | None       # node whose write also goes to global memory
    ctype: str = "float"


@dataclass
class Segment:
    nodes: list[int]
    barriers_before: set[int] = field(default_factory=set)
    buffers: dict[str, BufferPlan] = field(default_factory=dict)


@dataclass
class Group:
    nodes: list[int]
    segments: list[Segment]
    dead: set[str] = field(default_factory=set)
    cost: int = 0
    tail: int | None = None    # one-block launch run by the grid's last block, after the rest
    #: buffer -> fuse_recompute.Recompute: producers whose elements members recompute
    recomputed: dict = field(default_factory=dict)

    @property
    def fused(self) -> bool:
        return len(self.nodes) > 1 or bool(self.recomputed)


@dataclass
class Context:
    unit: object
    source: bytes
    run: Run
    facts: dict
    sizes: dict                # buffer -> bytes (evaluated allocation sizes)
    usage: dict | None         # kernel -> fuse_resources.Usage
    threads: dict              # block text -> threads per block, where evaluable
    #: producer node -> fuse_recompute.Recompute (the producer is not launched)
    recompute: dict = field(default_factory=dict)
    #: file -> text of the project headers whose kernels the run launches
    sources: dict = field(default_factory=dict)

    def source_of(self, span) -> bytes:
        """The text ``span``'s offsets index: the file's, or a project header's."""
        return self.sources.get(span.file, self.source)

    @property
    def eliminated(self) -> dict:
        """Buffers no longer stored (recomputed by their consumers) -> their Recompute."""
        return {r.producer.buffer: r for r in self.recompute.values()}

    def node(self, index: int) -> LaunchNode:
        return self.run.nodes[index]


@dataclass
class Decision:
    made: bool
    nodes: tuple[str, ...]
    reason: str


def plan_run(ctx: Context) -> tuple[list[Group], list[Decision]]:
    decisions: list[Decision] = []
    groups: dict[int, Group] = {}
    _recompute(ctx, decisions)
    gone = set(ctx.recompute)
    for node in ctx.run.nodes:
        if node.index in gone:
            continue
        single, why = plan_group(ctx, [node.index])
        groups[node.index] = single if single is not None else Group([node.index],
                                                                      [Segment([node.index])])
        if node.problem:
            decisions.append(Decision(False, (node.name,), node.problem))
    span = {i: s for i, s in span_layers(ctx.run).items() if i not in gone}
    layers = sorted(set(span.values()))
    for layer in layers:                                         # phase 1
        maps = [i for i in span if span[i] == layer and _is_map(ctx.node(i))]
        for i in maps:
            for j in maps:
                if i < j and groups[i] is not groups[j]:
                    _try_merge(ctx, groups, i, j, decisions)
    for root_layer in layers:                                    # phase 2
        for root in [i for i in span if span[i] == root_layer]:
            giveup: set[int] = set()
            for layer in layers:
                if layer <= root_layer:
                    continue
                for h in [i for i in span if span[i] == layer]:
                    if h in groups[root].nodes:
                        continue
                    users = ctx.run.successors(h)
                    if users & giveup:
                        giveup.add(h)
                    elif users & set(groups[root].nodes):
                        if not _try_merge(ctx, groups, root, h, decisions):
                            giveup.add(h)
    while True:                                                  # phase 3
        best, refused = None, []
        distinct = list({id(g): g for g in groups.values()}.values())
        for a in distinct:
            for b in distinct:
                if a.nodes[0] >= b.nodes[0] or _connected(ctx.run, a, b):
                    continue
                merged, why = plan_group(ctx, sorted(a.nodes + b.nodes))
                if merged is None:
                    refused.append(Decision(False, _names(ctx, sorted(a.nodes + b.nodes)), why))
                elif merged.cost < a.cost + b.cost and \
                        (best is None or a.cost + b.cost - merged.cost > best[0]):
                    best = (a.cost + b.cost - merged.cost, a, b, merged)
        if best is None:
            decisions += refused
            break
        _, a, b, merged = best
        decisions.append(Decision(True, _names(ctx, merged.nodes), "independent launches "
                                  "merged (" + _how(ctx, merged) + ")"))
        for i in merged.nodes:
            groups[i] = merged
    result = sorted({id(g): g for g in groups.values()}.values(), key=lambda g: g.nodes[0])
    unique = list({(d.made, d.nodes, d.reason): d for d in decisions}.values())
    return result, unique


def _recompute(ctx: Context, decisions: list) -> None:
    """Producers recomputed by their consumers leave the run: their dependences go (no
    launch of the run writes their inputs, nothing else touches their buffer)."""
    chosen, notes = fuse_recompute.plan(ctx, LAUNCH_BYTES, UNKNOWN_BYTES)
    decisions += [Decision(*note) for note in notes]
    if not chosen:
        return
    ctx.recompute = chosen
    run = ctx.run
    deps = [d for d in run.deps if d.first not in chosen and d.second not in chosen]
    ctx.run = Run(run.function, run.nodes, run.in_loop, run.function_span, deps)


def _is_map(node: LaunchNode) -> bool:
    return node.problem is None and node.facts is not None and node.facts.kind == "map"


def _connected(run: Run, a: Group, b: Group) -> bool:
    return any(run.edges(i, j) for i in a.nodes for j in b.nodes)


def _names(ctx: Context, nodes) -> tuple[str, ...]:
    return tuple(ctx.node(i).name for i in nodes)


def _how(ctx: Context, group: Group) -> str:
    parts = []
    if len(group.segments) > 1:
        parts.append(f"{len(group.segments)} launch shapes dispatched by blockIdx range")
    for segment in group.segments:
        for plan in segment.buffers.values():
            if plan.mode != "global":
                where = "a register" if plan.mode == "register" else "shared memory"
                stored = "" if plan.store_at is not None else ", never written to global memory"
                parts.append(f"{plan.buffer} in {where}{stored}")
        if segment.barriers_before:
            parts.append("__syncthreads() before " + ", ".join(
                ctx.node(i).name for i in sorted(segment.barriers_before)))
    if group.tail is not None:
        parts.append(f"{ctx.node(group.tail).name} completed by the grid's last block "
                     "(__threadfence + atomic ticket)")
    if group.dead:
        parts.append("not allocated: " + ", ".join(sorted(group.dead)))
    for buffer in sorted(group.recomputed):
        parts.append(f"{buffer} recomputed from " +
                     ", ".join(group.recomputed[buffer].producer.inputs))
    return "; ".join(parts) if parts else "same threads"


def _try_merge(ctx: Context, groups: dict, i: int, j: int, decisions: list) -> bool:
    a, b = groups[i], groups[j]
    merged, why = plan_group(ctx, sorted(set(a.nodes + b.nodes)))
    names = _names(ctx, sorted(set(a.nodes + b.nodes)))
    if merged is None:
        decisions.append(Decision(False, names, why))
        return False
    decisions.append(Decision(True, names, _how(ctx, merged)))
    for k in merged.nodes:
        groups[k] = merged
    return True


def plan_group(ctx: Context, nodes: list[int]) -> tuple[Group | None, str]:
    """The schedule-consistency check and data plan of a candidate group (None + reason when
    it cannot be one kernel)."""
    run = ctx.run
    members = [ctx.node(i) for i in nodes]
    for node in members:
        if node.problem and len(nodes) > 1:
            return None, node.problem
    streams = sorted({node.stream for node in members})
    if len(streams) > 1:
        return None, ("launches on different streams (" + " vs ".join(
            s or "the default stream" for s in streams) + "): they may run concurrently")
    last = members[-1]
    if len(nodes) > 1 and last.one_block and any(n.config != last.config for n in members):
        return _plan_tail(ctx, nodes)
    for node in members:
        if len(nodes) > 1 and not node.facts.fusible:
            return None, (f"{node.name} ({node.facts.detail}) runs on one block: fusible only "
                          "as the last launch of a group, completed by the grid's last block")
    segments: dict[tuple, Segment] = {}
    for node in members:
        segments.setdefault(node.config, Segment([])).nodes.append(node.index)
    for a in members:
        for b in members:
            if a.index < b.index and a.config != b.config and run.edges(a.index, b.index):
                return None, fuse_legal.pair_verdict(run, a, b).reason
    for segment in segments.values():
        for x, i in enumerate(segment.nodes):
            for j in segment.nodes[x + 1:]:
                verdict = fuse_legal.pair_verdict(run, ctx.node(i), ctx.node(j))
                if not verdict.ok:
                    return None, verdict.reason
                if verdict.scope == "block":
                    segment.barriers_before.add(j)
    why = _placement(run, nodes) or _thread_ranges(ctx, list(segments.values())) or \
        _buffer_types(ctx, nodes)
    if why:
        return None, why
    group = Group(nodes, list(segments.values()))
    group.recomputed = {b: r for b, r in ctx.eliminated.items()
                        if set(r.consumers) & set(nodes)}
    for segment in group.segments:
        _data_plan(ctx, group, segment)
    why = _resources(ctx, group)
    if why:
        return None, why
    group.dead = _dead_buffers(ctx, group)
    group.cost = cost(ctx, group)
    return group, ""


def _plan_tail(ctx: Context, nodes: list[int]) -> tuple[Group | None, str]:
    """A group ending in a one-block launch (the second pass of a two-pass reduction): the
    rest runs as usual, then every block fences its writes and takes a ticket, and the block
    with the last ticket, which sees every other block's results, runs the one-block kernel
    (the classic threadfence reduction). Legal whatever the dependences: all other blocks are
    done with the rest when the last ticket is taken."""
    tail = ctx.node(nodes[-1])
    head, why = plan_group(ctx, nodes[:-1])
    if head is None:
        return None, why
    if len(head.segments) > 1:
        return None, "a one-block tail needs one launch shape before it (no blockIdx dispatch)"
    first = ctx.node(nodes[0])
    if tail.config[1:] != first.config[1:]:
        return None, (f"{tail.name} has another block shape (<<<1, {tail.config[1]}>>> vs "
                      f"<<<{first.config[0]}, {first.config[1]}>>>): its barriers need the "
                      "whole block")
    if tail.facts.device_builtins:
        return None, "a __device__ function of the one-block tail reads the block index"
    why = _placement(ctx.run, nodes)
    if why:
        return None, why
    group = Group(nodes, head.segments, head.dead, tail=tail.index, recomputed=head.recomputed)
    why = _resources(ctx, group)
    if why:
        return None, why
    group.cost = cost(ctx, group)
    return group, ""


def _placement(run: Run, nodes: list[int]) -> str:
    """The fused launch takes the place of the last member: no member may move past a
    non-member it depends on (FusionStitching's cycle check)."""
    for x in range(nodes[0] + 1, nodes[-1]):
        if x in nodes:
            continue
        for m in nodes:
            if m < x and run.edges(m, x):
                return (f"{run.nodes[x].name} lies between the launches and depends on "
                        f"{run.nodes[m].name}")
    return ""


def _thread_ranges(ctx: Context, segments: list[Segment]) -> str:
    blocks = {ctx.node(s.nodes[0]).config[1] for s in segments}
    if len(blocks) < 2:
        return ""
    for segment in segments:
        if segment.barriers_before or any(ctx.node(i).facts.barriers for i in segment.nodes):
            return ("launches with different block sizes: a stage with barriers would run "
                    "with fewer threads than the fused block")
        if any(ctx.node(i).facts.device_builtins for i in segment.nodes):
            return "a __device__ function reads the thread or block index (not remappable)"
    return ""


def _data_plan(ctx: Context, group: Group, segment: Segment) -> None:
    last = ctx.node(group.nodes[-1])
    after = last.stmt.span.end
    touched: dict[str, list[int]] = {}
    for i in segment.nodes:
        for buffer in dict.fromkeys(ctx.node(i).buffers.values()):
            touched.setdefault(buffer, []).append(i)
    for buffer, stages in touched.items():
        if buffer in ctx.eliminated:
            continue
        plan = BufferPlan(buffer, "global", stages[0], None, _ctype(ctx, ctx.node(stages[0]), buffer))
        if len(stages) > 1:
            plan.mode = _mode(ctx, buffer, stages, segment)
        writers = [i for i in stages if ctx.node(i).writes(buffer)]
        if plan.mode != "global" and writers:
            if live_after(ctx.unit, ctx.run, buffer, after, ctx.source, ctx.facts):
                plan.store_at = writers[-1]
        segment.buffers[buffer] = plan
    for plan in segment.buffers.values():
        if plan.mode == "shared":
            segment.barriers_before.update(i for i in touched[plan.buffer] if i != plan.first)


def _mode(ctx: Context, buffer: str, stages: list[int], segment: Segment) -> str:
    if any(is_volatile(p.type) for i in stages for p in _params(ctx, ctx.node(i), buffer)):
        return "global"  # every access of a volatile element must reach memory
    first = ctx.node(stages[0])
    later = [ctx.node(i) for i in stages[1:]]
    sites = _sites(first, buffer)
    if sites is None or any(_sites(n, buffer) is None for n in later):
        return "global"
    writes_first = [s for s in sites if s.write]
    if writes_first and all(s.write and s.op == "=" for s in sites):
        if all(fuse_legal.on_chip(first, n, buffer, "write") for n in later if n.reads(buffer)) \
                and all(fuse_legal.writes_covered(first, n, buffer) for n in later
                        if n.writes(buffer)):
            return "register"
        if all(not n.writes(buffer) and fuse_legal.shared_scalar(first, n, buffer)
               for n in later) and len(writes_first) == 1:
            return "shared"
        return "global"
    if not any(n.writes(buffer) for n in [first, *later]) and \
            all(fuse_legal.on_chip(first, n, buffer, "read") for n in later):
        return "register"
    return "global"


def _sites(node: LaunchNode, buffer: str):
    params = node.params_of(buffer)
    if len(params) != 1 or params[0] in node.facts.escapes:
        return None
    return node.facts.sites.get(params[0], ())


def _params(ctx: Context, node: LaunchNode, buffer: str) -> list:
    """The kernel parameters (model ``Param``) of ``node`` receiving ``buffer``, with the
    types of the launch's instantiation for a template kernel."""
    names = node.params_of(buffer)
    return [p for p in node.params if p.name in names]


def _buffer_types(ctx: Context, nodes: list[int]) -> str:
    """Why the group's kernels cannot share one parameter per buffer ("" when they can):
    a buffer passed as pointers to different element types (``float *`` and ``float4 *``)
    or as something other than a one-level pointer."""
    seen: dict[str, list] = {}
    for i in nodes:
        node = ctx.node(i)
        for buffer in dict.fromkeys(node.buffers.values()):
            seen.setdefault(buffer, []).extend(_params(ctx, node, buffer))
    for buffer, params in seen.items():
        if not params:              # a struct argument's member (``GSD.samples``): in the struct
            continue
        if fused_parameter([p.type for p in params], [p.pointee_const for p in params]) is None:
            types = " and ".join(sorted({f"'{p.type}'" for p in params}))
            return f"{buffer} is passed as {types}: no one parameter type fits every kernel"
    return ""


def _ctype(ctx: Context, node: LaunchNode, buffer: str) -> str:
    """The element type of the buffer as the kernel declares it (``const float *`` -> float)."""
    param = node.params_of(buffer)[0]
    for p in node.params:
        if p.name == param:
            return element_type(p.type) or "float"
    return "float"


def _resources(ctx: Context, group: Group) -> str:
    if ctx.usage is None or len(group.nodes) < 2:
        return ""
    kernels = [ctx.node(i).launch.kernel for i in group.nodes]
    if any(k not in ctx.usage for k in kernels):
        return ""
    smem = sum(ctx.usage[k].smem for k in kernels)
    on_chip = sum(1 for s in group.segments for p in s.buffers.values() if p.mode != "global")
    smem += 8 * sum(1 for s in group.segments for p in s.buffers.values() if p.mode == "shared")
    smem += 4 if group.tail is not None else 0                  # the last-block flag
    regs = max(ctx.usage[k].registers for k in kernels) + on_chip
    if smem > SMEM_LIMIT:
        return f"static shared memory of the stages adds up to {smem} bytes (> {SMEM_LIMIT})"
    if regs > REGS_PER_THREAD:
        return f"about {regs} registers per thread needed (> {REGS_PER_THREAD})"
    for segment in group.segments:
        threads = ctx.threads.get(ctx.node(segment.nodes[0]).config[1])
        if threads and regs * threads > REGS_PER_BLOCK:
            return f"{regs} registers x {threads} threads exceed {REGS_PER_BLOCK} per block"
    return ""


def _dead_buffers(ctx: Context, group: Group) -> set[str]:
    """Buffers that only this group touches, only on chip, and nobody reads afterwards: their
    cudaMalloc/cudaFree can go (the fused kernel no longer takes them)."""
    dead = set()
    for segment in group.segments:
        for plan in segment.buffers.values():
            if plan.mode == "global" or plan.store_at is not None:
                continue
            first = ctx.node(plan.first)
            if first.writes(plan.buffer) and _only_used_in(ctx, plan.buffer, group):
                dead.add(plan.buffer)
    return dead


def _only_used_in(ctx: Context, buffer: str, group: Group) -> bool:
    """Whether the group's launches are the only launches given ``buffer`` and no API call
    but its allocation and release names it (``cudaMemcpy(h, d_t, ..)`` reads it back),
    from the AST's mentions of the buffer inside calls and launches."""
    mine = {id(ctx.node(i).launch) for i in group.nodes}
    for call, _use in mentions_in_calls(ctx.unit, ctx.run.function).get(buffer, ()):
        if isinstance(call, Launch):
            if id(call) not in mine:
                return False
        elif call.category not in ("alloc", "free"):
            return False
    return not ctx.run.in_loop


def cost(ctx: Context, group: Group) -> int:
    total = LAUNCH_BYTES
    read, written = set(), set()
    for segment in group.segments:
        for plan in segment.buffers.values():
            stages = [ctx.node(i) for i in segment.nodes if plan.buffer in
                      ctx.node(i).buffers.values()]
            if plan.mode == "global":
                if any(n.reads(plan.buffer) for n in stages):
                    read.add(plan.buffer)
                if any(n.writes(plan.buffer) for n in stages):
                    written.add(plan.buffer)
            else:
                if not ctx.node(plan.first).writes(plan.buffer):
                    read.add(plan.buffer)
                if plan.store_at is not None:
                    written.add(plan.buffer)
    for rec in group.recomputed.values():
        read |= set(rec.producer.inputs)
    if group.tail is not None:
        tail = ctx.node(group.tail)
        read |= {b for b in tail.buffers.values() if tail.reads(b)}
        written |= {b for b in tail.buffers.values() if tail.writes(b)}
    for buffer in read | written:
        size = ctx.sizes.get(buffer, UNKNOWN_BYTES)
        total += size * ((buffer in read) + (buffer in written))
    return total
