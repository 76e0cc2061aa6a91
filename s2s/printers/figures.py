"""Pictures for the review page, as inline SVG: the transfer schedule of ``s2s transfers``,
the fusion graph of ``s2s fuse`` by span layer, the grid partition of ``s2s mgpu`` with the
halo each device needs.

Each picture is drawn from the plan the pass itself makes (the analyses are called again with
the same inputs: pure functions); when a plan cannot be drawn (sizes that are not constants,
no launch sequence) the caption says why instead of guessing. Text in SVG is escaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from s2s.analysis.fuse import plan as fuse_plan
from s2s.analysis.fuse.graph import find_runs, span_layers
from s2s.analysis.fuse.kernels import kernel_facts
from s2s.analysis.host_eval import EvalError, as_dim3, evaluate
from s2s.analysis.mgpu.plan import plan_file as mgpu_plan_file
from s2s.analysis.transfers.graph import Direction
from s2s.frontend.extract import Loaded
from s2s.transform import fuse as fuse_pass
from s2s.transform import transfers as transfers_pass

#: colours of devices, fused groups and lanes (colour-blind safe palette)
PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb")


@dataclass(frozen=True)
class Figure:
    """One picture: its title, the SVG (empty when it cannot be drawn) and a caption."""

    title: str
    svg: str
    caption: str


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "middle",
          weight: str = "normal", fill: str = "#222") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}" font-family="sans-serif">{escape(text)}</text>')


def _svg(width: float, height: float, body: list[str], label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(label)}" '
            f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">'
            + "".join(body) + "</svg>")


_ARROW = ('<defs><marker id="{id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
          'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
          'fill="#444"/></marker></defs>')


# -- transfers ---------------------------------------------------------------------------


def transfer_figures(loaded: Loaded) -> list[Figure]:
    """One schedule per host region the transfers pass plans."""
    plans, _refusals = transfers_pass.plan_file(loaded)
    return [transfer_schedule(plan, number) for number, plan in enumerate(plans)]


def transfer_schedule(plan, number: int = 0) -> Figure:
    """The kernel vector in the chosen order on a host and a device lane, and each planned
    ``cudaMemcpy`` as an arrow between the lanes at its point, labelled with its values."""
    region = plan.region
    kernels = region.graph.graph.kernels
    step, left, lanes = 130, 80, {"host": 50, "device": 150}
    width = left + step * (len(kernels) + 1)
    body = [_ARROW.format(id=f"t{number}")]
    for name, y in lanes.items():
        body.append(f'<line x1="{left - 10}" y1="{y}" x2="{width - 10}" y2="{y}" '
                    'stroke="#999" stroke-dasharray="4 3"/>')
        body.append(_text(10, y + 4, name, anchor="start", weight="bold"))
    for index, kernel in enumerate(kernels):
        x = left + step * index + step / 2
        y = lanes["host"] if kernel.device == 0 else lanes["device"]
        colour = PALETTE[6] if kernel.device == 0 else PALETTE[0]
        body.append(f'<rect x="{x - 50:.1f}" y="{y - 14}" width="100" height="28" rx="6" '
                    f'fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>')
        body.append(_text(x, y + 4, _short(kernel.name, 14), size=11))
        body.append(_text(x, 190, f"#{index}", size=10, fill="#666"))
    for message in plan.messages:
        x = left + step * message.point + 6
        up = message.direction is Direction.UP
        y1, y2 = (lanes["host"] + 16, lanes["device"] - 16) if up else \
            (lanes["device"] - 16, lanes["host"] + 16)
        body.append(f'<line x1="{x}" y1="{y1}" x2="{x}" y2="{y2}" stroke="#444" '
                    f'stroke-width="1.5" marker-end="url(#t{number})"/>')
        names = ", ".join(plan.operands[o].name for o in message.operands)
        body.append(_text(x + 4, (y1 + y2) / 2 + 4, _short(names, 18), size=10, anchor="start"))
    caption = (f"'{region.function}': {plan.copies_before} cudaMemcpy calls become "
               f"{plan.copies_after}, {plan.device_allocs_before} cudaMalloc calls "
               f"{plan.device_allocs_after}; kernels (device) and host code in the order they "
               "run, arrows are the planned copies (down: host to device).")
    return Figure(f"transfer schedule of '{region.function}'",
                  _svg(width, 205, body, f"transfer schedule of {region.function}"), caption)


# -- fuse ----------------------------------------------------------------------------------


def fusion_figures(loaded: Loaded) -> list[Figure]:
    """One graph per launch sequence of more than one launch."""
    model, source = loaded.model, loaded.source
    facts = kernel_facts(model)
    values = fuse_pass.HostValues(model, source)
    figures = []
    for number, run in enumerate(r for r in find_runs(model, source, facts) if len(r.nodes) > 1):
        ctx = fuse_pass.context(model, source, run, facts, None, values)
        groups, _decisions = fuse_plan.plan_run(ctx)
        figures.append(fusion_graph(run, groups, number))
    return figures


def fusion_graph(run, groups, number: int = 0) -> Figure:
    """Launches by span layer (columns), dependences as arrows, fused groups in one colour."""
    layers = span_layers(run)
    colour: dict[int, str] = {}
    fused = [g for g in groups if g.fused]
    for index, group in enumerate(fused):
        for node in group.nodes:
            colour[node] = PALETTE[index % (len(PALETTE) - 1)]
    columns: dict[int, list[int]] = {}
    for node in sorted(layers):
        columns.setdefault(layers[node], []).append(node)
    step_x, step_y, top = 170, 56, 40
    where = {}
    for column, layer in enumerate(sorted(columns)):
        for row, node in enumerate(columns[layer]):
            where[node] = (30 + column * step_x, top + row * step_y)
    width = 60 + step_x * len(columns)
    height = top + step_y * max(len(v) for v in columns.values()) + 10
    body = [_ARROW.format(id=f"f{number}")]
    for column, layer in enumerate(sorted(columns)):
        body.append(_text(30 + column * step_x + 65, 20, f"span layer {layer}", size=11,
                          fill="#666"))
    for dep in run.deps:
        if dep.first in where and dep.second in where:
            (x1, y1), (x2, y2) = where[dep.first], where[dep.second]
            body.append(f'<line x1="{x1 + 130}" y1="{y1 + 14}" x2="{x2}" y2="{y2 + 14}" '
                        f'stroke="#444" marker-end="url(#f{number})"><title>'
                        f'{escape(dep.kind)} on {escape(dep.buffer)}</title></line>')
    for node, (x, y) in where.items():
        fill = colour.get(node, "#ffffff")
        launch = run.nodes[node].launch
        body.append(f'<rect x="{x}" y="{y}" width="130" height="28" rx="6" fill="{fill}" '
                    f'fill-opacity="0.35" stroke="#333"/>')
        body.append(_text(x + 65, y + 18, f"{_short(launch.kernel, 14)}#{node}", size=11))
    caption = (f"launches of '{run.function}' by span layer; arrows are dependences through "
               f"buffers; {len(fused)} fused group{'s' if len(fused) != 1 else ''} "
               "(one colour each), white launches stay as they are.")
    return Figure(f"fusion graph of '{run.function}'",
                  _svg(width, height, body, f"fusion graph of {run.function}"), caption)


# -- mgpu ----------------------------------------------------------------------------------


def partition_figures(loaded: Loaded, devices: int = 2) -> list[Figure]:
    """One picture per launch of a kernel the runtime partitions."""
    from runtime.access import KernelAccess
    from runtime.partition import Launch as RuntimeLaunch
    from runtime.partition import split_grid

    model, source = loaded.model, loaded.source
    plan = mgpu_plan_file(model, source)
    if plan.refusals:
        return []
    access = {k.name: k.access for k in plan.kernels}
    values = fuse_pass.HostValues(model, source)
    figures = []
    for launch in model.launches:
        if launch.kernel not in access:
            continue
        title = f"grid partition of {launch.kernel} (line {launch.span.line})"
        try:
            env = values.env_before(launch.function, launch.span.start)
            grid = as_dim3(evaluate(launch.grid.text, env)).as_tuple()
            block = as_dim3(evaluate(launch.block.text, env)).as_tuple()
            kernel = model.kernel(launch.kernel)
            scalars = {}
            for param, arg in zip(kernel.params, launch.args, strict=False):
                try:
                    value = evaluate(arg.text, env)
                except EvalError:
                    continue
                if isinstance(value, int):
                    scalars[param.name] = value
            model_ = KernelAccess.from_dict(access[launch.kernel])
            boxes = split_grid(grid, devices)
            halos = _halos(model_, boxes, RuntimeLaunch(grid, block, scalars))
        except (EvalError, KeyError, ValueError, TypeError) as why:
            figures.append(Figure(title, "", f"not drawn: the launch's sizes are not constants "
                                  f"s2s can evaluate here ({why})"))
            continue
        figures.append(grid_partition(launch.kernel, grid, boxes, halos, title))
    return figures


def _halos(model, boxes, launch) -> list[tuple[int, int, str, int]]:
    """(reader, owner, array, elements): elements of ``array`` the reader's blocks read that
    the owner's blocks write, in the index space of a written array of the same extent (the
    array itself, or the other buffer of a double-buffered kernel launched again with the
    pointers swapped). Arrays of another extent (a row-sum vector) pair with nothing."""
    writes = {a: [list(model.write_ranges(a, box, launch)) for box in boxes]
              for a in model.arrays if model.writes(a)}
    out = []
    for array in (a for a in model.arrays if model.reads(a)):
        reads = [list(model.read_ranges(array, box, launch)) for box in boxes]
        extent = _extent(reads)
        same = [w for a, w in writes.items() if a == array] or \
            [w for w in writes.values() if _extent(w) == extent]
        if not same:
            continue
        owned = same[0]
        for reader in range(len(boxes)):
            for owner in range(len(boxes)):
                if owner == reader:
                    continue
                count = sum(max(0, min(e1, e2) - max(s1, s2))
                            for s1, e1 in reads[reader] for s2, e2 in owned[owner])
                if count:
                    out.append((reader, owner, array, count))
    return out


def _extent(per_box: list[list[tuple[int, int]]]) -> tuple[int, int] | None:
    ranges = [r for box in per_box for r in box]
    if not ranges:
        return None
    return min(s for s, _ in ranges), max(e for _, e in ranges)


def grid_partition(kernel: str, grid, boxes, halos, title: str) -> Figure:
    """The grid of blocks (x across, y down) split into one box per device, and an arrow per
    halo exchange labelled with the array and its element count."""
    gx, gy = max(grid[0], 1), max(grid[1], 1)
    scale = min(360 / gx, 240 / gy)
    left, top = 20, 30
    body = [_ARROW.format(id=f"g{kernel}")]
    centres = []
    for device, box in enumerate(boxes):
        x, y = left + box.lo[0] * scale, top + box.lo[1] * scale
        w, h = (box.hi[0] - box.lo[0]) * scale, (box.hi[1] - box.lo[1]) * scale
        colour = PALETTE[device % len(PALETTE)]
        body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 1):.1f}" '
                    f'height="{max(h, 1):.1f}" fill="{colour}" fill-opacity="0.3" '
                    f'stroke="{colour}"/>')
        body.append(_text(x + w / 2, y + h / 2 + 4, f"device {device}: {box.blocks} blocks",
                          size=11))
        centres.append((x + w * 0.85, y + h / 2))     # arrows right of the label
    legend_y = top + gy * scale + 24
    for number, (reader, owner, array, count) in enumerate(halos):
        (x1, y1), (x2, y2) = centres[owner], centres[reader]
        body.append(f'<line x1="{x1 + 8 * number:.1f}" y1="{y1 + 10:.1f}" '
                    f'x2="{x2 + 8 * number:.1f}" y2="{y2 - 10:.1f}" stroke="#444" '
                    f'stroke-width="1.5" marker-end="url(#g{kernel})"/>')
        body.append(_text(left, legend_y + 16 * number,
                          f"device {owner} -> device {reader}: {array}, {count} elements",
                          size=11, anchor="start"))
    height = legend_y + 16 * len(halos) + 10
    width = max(left * 2 + gx * scale, 380)
    caption = (f"{kernel}<<<{tuple(grid)}>>> on {len(boxes)} devices: each box of blocks runs "
               "on one device; arrows are the halo: elements a device's blocks read that "
               "another device's blocks write (of this array, or of the buffer of the same "
               "extent it is swapped with)." if halos else
               f"{kernel}<<<{tuple(grid)}>>> on {len(boxes)} devices: each box of blocks runs "
               "on one device; no device reads what another writes (no halo).")
    return Figure(title, _svg(width, height, body, title), caption)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


# -- omp -------------------------------------------------------------------------------------

#: arrays drawn in one copy timeline (the others are counted in the caption)
TIMELINE_ARRAYS = 12


def copy_timeline(traffic, path: str, number: int = 0) -> Figure:
    """Per array of ``path``, its copy sites before (every target construct copies what it
    uses in and out) and after the plan, on one axis of the file's lines: a down triangle is
    a copy to the device, an up triangle a copy back, so a reviewer sees the copies leave the
    kernels and gather where the data region opens and closes."""
    before = [t for t in traffic.before if t.span.file == path]
    after = [t for t in traffic.after if t.span.file == path]
    title = "copies per array over the file, before and after"
    if not before and not after:
        return Figure(title, "", "no target construct in this file: nothing is copied.")
    arrays = list(dict.fromkeys(t.array for t in sorted(before + after,
                                                         key=lambda t: t.span.start)))
    shown, hidden = arrays[:TIMELINE_ARRAYS], arrays[TIMELINE_ARRAYS:]
    lines = sorted({t.span.line for t in before + after})
    step, left, lane, top = 48, 150, 26, 34
    slot = {line: left + step * i + step / 2 for i, line in enumerate(lines)}
    width = max(left + step * len(lines) + 20, left + 260)
    height = top + lane * 2 * len(shown) + 30
    body = [_text(left - 8, 18, "line", size=11, anchor="end", fill="#666")]
    for line, x in slot.items():
        body.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{height - 26}" '
                    'stroke="#eee"/>')
        body.append(_text(x, 18, str(line), size=11, fill="#444"))
    for row, array in enumerate(shown):
        for half, (when, sites) in enumerate((("before", before), ("after", after))):
            y = top + lane * (2 * row + half) + lane / 2
            if half == 0:
                body.append(_text(10, y + lane / 2 + 4, _short(array, 16), size=13,
                                  anchor="start", weight="bold"))
            body.append(_text(left - 8, y + 4, when, size=11, anchor="end", fill="#666"))
            body.append(f'<line x1="{left}" y1="{y}" x2="{width - 20}" y2="{y}" '
                        'stroke="#ccc" stroke-dasharray="3 3"/>')
            for site in sites:     # a copy in left of its line, a copy back right of it
                if site.array == array:
                    shift = -7 if site.direction == "to" else 7
                    body.append(_copy_mark(slot[site.span.line] + shift, y, site.direction))
        body.append(f'<line x1="10" y1="{top + lane * 2 * (row + 1)}" x2="{width - 20}" '
                    f'y2="{top + lane * 2 * (row + 1)}" stroke="#ddd"/>')
    legend_y = height - 10
    body.append(_copy_mark(left, legend_y - 4, "to"))
    body.append(_text(left + 10, legend_y, "to the device", size=11, anchor="start"))
    body.append(_copy_mark(left + 120, legend_y - 4, "from"))
    body.append(_text(left + 130, legend_y, "back to the host", size=11, anchor="start"))
    count = {when: sum(t.array in shown for t in sites)
             for when, sites in (("before", before), ("after", after))}
    caption = (f"{count['before']} copy sites before, {count['after']} after, in {path} by "
               "line (the order of the source, not of execution: a site inside a loop or in a "
               "function called several times copies each time; --run counts them).")
    if hidden:
        caption += f" {len(hidden)} more arrays not drawn: {', '.join(hidden)}."
    return Figure(title, _svg(width, height, body, f"copy timeline of {path}"), caption)


def _copy_mark(x: float, y: float, direction: str) -> str:
    """A triangle: down and blue to the device, up and red back to the host."""
    if direction == "to":
        points, colour = f"{x - 6:.1f},{y - 6:.1f} {x + 6:.1f},{y - 6:.1f} {x:.1f},{y + 6:.1f}", \
            PALETTE[0]
    else:
        points, colour = f"{x - 6:.1f},{y + 6:.1f} {x + 6:.1f},{y + 6:.1f} {x:.1f},{y - 6:.1f}", \
            PALETTE[1]
    return f'<polygon points="{points}" fill="{colour}"><title>{escape(direction)}</title></polygon>'
