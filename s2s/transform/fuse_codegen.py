"""Text of fused kernels: one ``__device__`` stage per original launch, one ``__global__``
kernel calling the stages.

Each stage is the original kernel body, verbatim except for three kinds of spans: uses of
``blockIdx``/``threadIdx``/``blockDim``/``gridDim`` (renamed to stage parameters, so that a
stage can run on a remapped block or thread range), and subscripts ``p[...]`` of buffers
passed on chip (replaced by a reference to the fused kernel's register or ``__shared__``
variable; ``p[...] = v`` becomes ``p[...] = s2s_p = v`` where the value must still reach
global memory). Keeping the body verbatim inside a function keeps early ``return``
statements meaning "this stage is done" and leaves every other line as the user wrote it.

Several launch shapes in one kernel (horizontal fusion) are dispatched by ranges of a 1-D
block index; each shape's blocks rebuild their original ``blockIdx`` and, when the block
sizes differ, threads beyond the shape's block size skip the stage.
"""

from __future__ import annotations

import re

from s2s.analysis.fuse.forms import render
from s2s.analysis.fuse.plan import BufferPlan, Context, Group, Segment
from s2s.analysis.fuse.types import element_type, fused_parameter

BUILTIN_NAMES = ("threadIdx", "blockIdx", "blockDim", "gridDim")
HOST_HELPERS = (
    "static inline unsigned s2s_count(dim3 d) { return d.x * d.y * d.z; }\n"
    "static inline unsigned s2s_max(unsigned a, unsigned b) { return a > b ? a : b; }\n")


def var(buffer: str) -> str:
    return "s2s_" + re.sub(r"\W", "_", buffer)


def kernel_params(ctx: Context, group: Group) -> tuple[list[tuple[str, str]], dict]:
    """(type, name) of the fused kernel's parameters and, per (node, param), the expression
    the fused kernel passes to the stage. A buffer's parameter converts to the parameter
    type of every stage receiving it (:func:`s2s.analysis.fuse.types.fused_parameter`)."""
    params: list[tuple[str, str]] = []
    passed: dict[tuple[int, str], str] = {}
    scalars: dict[tuple[str, str], str] = {}
    if len(group.segments) > 1:
        for s, _segment in enumerate(group.segments):
            params += [("unsigned", f"s2s_g{s}{a}") for a in "xyz"]
            params += [("unsigned", f"s2s_b{s}{a}") for a in "xyz"]
    producers = [r.producer.index for r in group.recomputed.values()]
    members = [*group.nodes, *producers]
    receivers = buffer_receivers(ctx, members)
    declared: set[str] = set()
    for i in members:
        node = ctx.node(i)
        for param, arg in zip(node.params, node.launch.args, strict=True):
            if param.name in node.buffers:
                buffer = node.buffers[param.name]
                if buffer in group.dead or buffer in group.recomputed:
                    passed[(i, param.name)] = "nullptr"
                    continue
                if buffer not in declared:
                    declared.add(buffer)
                    got = receivers[buffer]
                    ptype = fused_parameter([p.type for p in got], [p.pointee_const for p in got])
                    params.append((ptype or param.type, buffer))
                passed[(i, param.name)] = buffer
            else:
                key = (arg.text.strip(), param.type)
                if key not in scalars:
                    scalars[key] = f"s2s_a{len(scalars)}"
                    params.append((param.type, scalars[key]))
                passed[(i, param.name)] = scalars[key]
    return params, {"passed": passed, "scalars": scalars}


def buffer_receivers(ctx: Context, members: list[int]) -> dict[str, list]:
    """Buffer -> the kernel parameters (model ``Param``) receiving it in ``members``."""
    receivers: dict[str, list] = {}
    for i in members:
        node = ctx.node(i)
        for param in node.params:
            if param.name in node.buffers:
                receivers.setdefault(node.buffers[param.name], []).append(param)
    return receivers


def _recomputes_in(group: Group, i: int) -> list:
    """The recomputations whose sites are in node ``i``, in a fixed order."""
    return [group.recomputed[b] for b in sorted(group.recomputed)
            if i in group.recomputed[b].sites]


def _producer_params(ctx: Context, rec) -> list:
    return [p for p in ctx.node(rec.producer.index).params if p.name != rec.producer.param]


def recompute_name(fused: str, rec) -> str:
    return f"{fused}_recompute_{var(rec.producer.buffer)[4:]}"


def recompute_text(ctx: Context, fused: str, rec) -> str:
    """The producer's stored value as a function of its coordinates and parameters."""
    producer = rec.producer
    params = [f"{p.type} {p.name}" for p in _producer_params(ctx, rec)]
    params += [f"{t} {n}" for t, n in zip(producer.types, producer.order, strict=True)]
    ctype = element_type(next(p.type for p in ctx.node(producer.index).params
                              if p.name == producer.param)) or "float"
    return (f"static __device__ __forceinline__ {ctype} {recompute_name(fused, rec)}("
            + ", ".join(params) + ")\n{\n    return " + producer.value + ";\n}\n")


def _recompute_edits(ctx: Context, group: Group, i: int, fused: str, remap: bool):
    """Extra stage parameters and the subscripts replaced by recomputation calls."""
    params, edits = [], []
    for rec in _recomputes_in(group, i):
        names = [f"s2s_r{rec.producer.index}_{p.name}" for p in _producer_params(ctx, rec)]
        params += [f"{p.type} {n}" for p, n in zip(_producer_params(ctx, rec), names,
                                                   strict=True)]
        for site in rec.sites[i]:
            coords = [render(c, "s2s_" if remap else "") for c in site.coords]
            call = f"{recompute_name(fused, rec)}({', '.join(names + coords)})"
            edits.append((site.span.start, site.span.end, call))
    return params, edits


def stage_text(ctx: Context, group: Group, segment: Segment, i: int, name: str,
               fused: str = "") -> str:
    """The ``__device__`` function of node ``i``: its kernel's body with spans replaced."""
    node = ctx.node(i)
    kernel = node.facts.kernel
    body = kernel.body_span
    edits: list[tuple[int, int, str]] = []
    remap = len(group.segments) > 1 or i == group.tail
    for use in kernel.builtins if remap else ():
        if body.contains(use.span) and use.var in BUILTIN_NAMES:
            edits.append((use.span.start, use.span.start + len(use.var), f"s2s_{use.var}"))
    refs = []
    for param, buffer in node.buffers.items():
        plan = segment.buffers.get(buffer)
        if plan is None or plan.mode == "global":
            continue
        refs.append(f"{plan.ctype} &{var(buffer)}")
        edits += _site_edits(ctx, node, i, param, plan)
    extra, recomputed = _recompute_edits(ctx, group, i, fused, remap)
    refs = extra + refs
    text = _apply(ctx.source_of(body), body.start, body.end, edits + recomputed)
    params = ["uint3 s2s_blockIdx", "uint3 s2s_threadIdx", "uint3 s2s_blockDim",
              "uint3 s2s_gridDim"] if remap else []
    params += [f"{p.type} {p.name}" for p in kernel.params] + refs
    head = f"static __device__ __forceinline__ void {name}(" + ", ".join(params) + ")\n"
    if node.instance is not None:
        # the template's body stays as written: the stage is a template with the kernel's
        # own parameter list, which the fused kernel instantiates with the launch's arguments
        head = f"template <{', '.join(kernel.template_decls)}>\n" + head
    return head + text + "\n"


def _site_edits(ctx: Context, node, i: int, param: str, plan: BufferPlan):
    edits = []
    reg = var(plan.buffer)
    first_reads = i == plan.first and not node.writes(plan.buffer)
    for site in node.facts.sites[param]:
        original = site.span.text(ctx.source_of(site.span))
        if site.write:
            text = f"{original} = {reg}" if plan.store_at == i else reg
        elif first_reads:
            text = f"({reg} = {original})"
        else:
            text = reg
        edits.append((site.span.start, site.span.end, text))
    return edits


def _apply(source: bytes, start: int, end: int, edits) -> str:
    out, pos = [], start
    for a, b, text in sorted(edits):
        if a < pos:
            continue
        out.append(source[pos:a].decode("utf-8", "surrogateescape"))
        out.append(text)
        pos = b
    out.append(source[pos:end].decode("utf-8", "surrogateescape"))
    return "".join(out)


def _signature(params, name: str) -> str:
    return f"__global__ void {name}(" + ", ".join(f"{t} {n}".replace("* ", "*") for t, n in params) + ")"


def fused_prototype(ctx: Context, group: Group, name: str) -> str:
    """The fused kernel's declaration, for launches placed before its definition."""
    return _signature(kernel_params(ctx, group)[0], name) + ";"


def fused_kernel_text(ctx: Context, group: Group, name: str) -> str:
    params, info = kernel_params(ctx, group)
    stages, calls = [], []
    known: dict[str, str] = {}
    for segment in group.segments:
        seg_calls = []
        for i in segment.nodes:
            stage = _shared_stage(ctx, group, segment, i, name, known, stages)
            if i in segment.barriers_before:
                seg_calls.append("__syncthreads();")
            seg_calls.append(_call(ctx, group, segment, i, stage, info["passed"], len(group.segments)))
        calls.append(seg_calls)
    lines = [_signature(params, name), "{"]
    for segment in group.segments:
        for plan in segment.buffers.values():
            if plan.mode == "register":
                lines.append(f"    {plan.ctype} {var(plan.buffer)};")
            elif plan.mode == "shared":
                lines.append(f"    __shared__ {plan.ctype} {var(plan.buffer)};")
    if len(group.segments) == 1:
        lines += ["    " + c for c in calls[0]]
    else:
        lines += _dispatch(calls)
    ticket = ""
    if group.tail is not None:
        ticket = f"__device__ unsigned int {name}_ticket;\n"
        stage = _shared_stage(ctx, group, Segment([]), group.tail, name, known, stages)
        extra = [info["passed"][(r.producer.index, p.name)]
                 for r in _recomputes_in(group, group.tail) for p in _producer_params(ctx, r)]
        lines += _last_block(ctx, group.tail, stage, info["passed"], f"{name}_ticket", extra)
    lines.append("}")
    stages[:0] = [recompute_text(ctx, name, group.recomputed[b]) for b in sorted(group.recomputed)]
    return ticket + "\n".join(stages) + "\n" + "\n".join(lines) + "\n"


#: the stage's name while its text is compared with the stages already written
_UNNAMED = "s2s_stage_unnamed"


def _shared_stage(ctx: Context, group: Group, segment: Segment, i: int, fused: str,
                  known: dict[str, str], stages: list[str]) -> str:
    """The name of node ``i``'s stage, its text appended to ``stages`` unless a stage with
    the same text (but for its name) is there already: one kernel launched several times
    with the same data plan runs one stage function, called once per launch."""
    text = stage_text(ctx, group, segment, i, _UNNAMED, fused)
    if text not in known:
        known[text] = f"{fused}_stage{i}_{ctx.node(i).launch.kernel}"
        stages.append(text.replace(f" {_UNNAMED}(", f" {known[text]}(", 1))
    return known[text]


def _last_block(ctx: Context, i: int, stage: str, passed: dict, ticket: str,
                extra: list) -> list[str]:
    """Completion by the last block: each block makes its writes visible device-wide, then
    one thread takes a ticket; the block holding the last one runs the one-block stage as
    block 0 of a grid of one, and resets the ticket for the next launch."""
    kernel = ctx.node(i).facts.kernel
    first = "threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0"
    args = ["uint3{0u, 0u, 0u}", "threadIdx", "uint3{blockDim.x, blockDim.y, blockDim.z}",
            "uint3{1u, 1u, 1u}"] + [passed[(i, p.name)] for p in kernel.params] + extra
    return [
        "    __shared__ bool s2s_last_block;",
        "    __threadfence();",
        "    __syncthreads();",
        f"    if ({first})",
        f"        s2s_last_block = atomicAdd(&{ticket}, 1u) == "
        "gridDim.x * gridDim.y * gridDim.z - 1u;",
        "    __syncthreads();",
        "    if (!s2s_last_block)",
        "        return;",
        "    __threadfence();",
        f"    {_instantiated(ctx, i, stage)}({', '.join(args)});",
        f"    if ({first})",
        f"        {ticket} = 0u;",
    ]


def _call(ctx: Context, group: Group, segment: Segment, i: int, stage: str, passed: dict,
          nseg: int) -> str:
    node = ctx.node(i)
    kernel = node.facts.kernel
    builtins = () if nseg == 1 else ("s2s_bid", "s2s_tid", "s2s_bdim", "s2s_gdim")
    args = list(builtins) + [passed[(i, p.name)] for p in kernel.params]
    for rec in _recomputes_in(group, i):
        args += [passed[(rec.producer.index, p.name)] for p in _producer_params(ctx, rec)]
    args += [var(b) for p, b in node.buffers.items()
             if segment.buffers.get(b) is not None and segment.buffers[b].mode != "global"]
    return f"{_instantiated(ctx, i, stage)}({', '.join(args)});"


def _instantiated(ctx: Context, i: int, stage: str) -> str:
    """The stage of node ``i`` as the fused kernel calls it: with the template arguments
    of the launch's instantiation when the kernel is a template."""
    instance = ctx.node(i).instance
    return stage if instance is None else f"{stage}<{instance}>"


def _dispatch(calls: list[list[str]]) -> list[str]:
    lines = ["    unsigned s2s_block = blockIdx.x;", "    unsigned s2s_thread = threadIdx.x;"]
    for s, seg_calls in enumerate(calls):
        g = [f"s2s_g{s}{a}" for a in "xyz"]
        b = [f"s2s_b{s}{a}" for a in "xyz"]
        lines += [
            f"    if (s2s_block < {g[0]} * {g[1]} * {g[2]}) {{",
            f"        uint3 s2s_bid = uint3{{s2s_block % {g[0]}, s2s_block / {g[0]} % {g[1]}, "
            f"s2s_block / ({g[0]} * {g[1]})}};",
            f"        uint3 s2s_gdim = uint3{{{g[0]}, {g[1]}, {g[2]}}};",
            f"        uint3 s2s_bdim = uint3{{{b[0]}, {b[1]}, {b[2]}}};",
            f"        if (s2s_thread < {b[0]} * {b[1]} * {b[2]}) {{",
            f"            uint3 s2s_tid = uint3{{s2s_thread % {b[0]}, s2s_thread / {b[0]} % {b[1]}, "
            f"s2s_thread / ({b[0]} * {b[1]})}};",
        ]
        lines += ["            " + c for c in seg_calls]
        lines += ["        }", "        return;", "    }",
                  f"    s2s_block -= {g[0]} * {g[1]} * {g[2]};"]
    lines.pop()
    return lines


def launch_text(ctx: Context, group: Group, name: str) -> str:
    params, info = kernel_params(ctx, group)
    by_name = {n: t for t, n in params}
    args = []
    if len(group.segments) > 1:
        for segment in group.segments:
            grid = ctx.node(segment.nodes[0]).launch.grid.text
            block = ctx.node(segment.nodes[0]).launch.block.text
            args += [f"dim3({grid}).{a}" for a in "xyz"] + [f"dim3({block}).{a}" for a in "xyz"]
    names = [n for _t, n in params][len(args):]
    texts = {v: k[0] for k, v in info["scalars"].items()}
    args += [texts.get(n, n) for n in names if n in by_name]
    first = ctx.node(group.segments[0].nodes[0]).launch
    if len(group.segments) == 1:
        shared = [ctx.node(i).launch.shared_bytes for i in group.nodes
                  if ctx.node(i).launch.shared_bytes is not None]
        config = f"{first.grid.text}, {first.block.text}"
        if shared or first.stream is not None:
            config += f", {shared[0].text if shared else '0'}"
        if first.stream is not None:
            config += f", {first.stream.text.strip()}"
    else:
        grids = " + ".join(f"s2s_count(dim3({ctx.node(s.nodes[0]).launch.grid.text}))"
                           for s in group.segments)
        blocks = [f"s2s_count(dim3({ctx.node(s.nodes[0]).launch.block.text}))"
                  for s in group.segments]
        threads = blocks[0]
        for b in blocks[1:]:
            threads = f"s2s_max({threads}, {b})"
        config = f"{grids}, {threads}"
        if first.stream is not None:
            config += f", 0, {first.stream.text.strip()}"
    return f"{name}<<<{config}>>>({', '.join(args)})"
