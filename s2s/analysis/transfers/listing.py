"""Printing plans and windows the way the paper does (section 4's listings and diagnostic).

:func:`render_plan` gives one line per moved vector (``before 0: upload B from location 0``)
around the kernel lines (``Kernel0 ( R(B), R(A), W(D), W(E) )``), in program order; the
paper's listing leaves fusion implicit in consecutive locations, ``messages=True`` prints
one line per fused message instead. :func:`render_windows` prints the up/down earliest-latest
table, with the paper's time convention (uploads by the kernel they precede, downloads by
the kernel they follow).
"""

from __future__ import annotations

from s2s.analysis.transfers.graph import Direction, KernelVectorGraph
from s2s.analysis.transfers.timing import Transfer, TransferPlan


def point_label(graph: KernelVectorGraph, direction: Direction, point: int) -> str:
    """``before p`` for uploads, ``after p-1`` for downloads (ends fall back to the other)."""
    last = len(graph.kernels)
    if (direction is Direction.UP and point < last) or point == 0:
        return f"before {point}"
    return f"after {point - 1}"


def kernel_line(graph: KernelVectorGraph, number: int) -> str:
    kernel = graph.kernels[number]
    operands = [f"R({graph.name(v)})" for v in kernel.reads] + [f"W({graph.name(v)})" for v in kernel.writes]
    return f"{kernel.name} ( {', '.join(operands)} )"


def _transfer_lines(plan: TransferPlan, transfer: Transfer, messages: bool) -> list[str]:
    graph = plan.graph
    label = point_label(graph, transfer.direction, transfer.point)
    verb, prep = ("upload", "from") if transfer.direction is Direction.UP else ("download", "to")
    if messages:
        first = plan.position[transfer.vectors[0]]
        names = ", ".join(graph.name(v) for v in transfer.vectors)
        where = f"location {first}" if len(transfer.vectors) == 1 else \
            f"locations {first}-{first + len(transfer.vectors) - 1}"
        return [f"{label}: {verb} {names} {prep} {where}"]
    return [f"{label}: {verb} {graph.name(v)} {prep} location {plan.position[v]}" for v in transfer.vectors]


def render_plan(plan: TransferPlan, messages: bool = False, summary: bool = True) -> str:
    """The plan as pseudocode in program order (the paper's listing format)."""
    graph = plan.graph
    by_point: dict[int, list[Transfer]] = {}
    for transfer in plan.transfers:
        by_point.setdefault(transfer.point, []).append(transfer)
    lines: list[str] = []
    for point in range(graph.n_points):
        for transfer in by_point.get(point, ()):  # downloads of a point come first
            lines.extend(_transfer_lines(plan, transfer, messages))
        if point < len(graph.kernels):
            lines.append(kernel_line(graph, point))
    if summary:
        lines.append(f"# {plan.method}/{plan.policy}: {plan.startups} transfer startups instead of "
                     f"{plan.baseline}, {plan.saved} saved")
    return "\n".join(lines) + "\n"


def render_windows(graph: KernelVectorGraph) -> str:
    """The earliest-latest table: per kernel time, uploads (left) and downloads (right);
    a name where the time is in the vector's window, a dot elsewhere, trailing dots cut."""
    columns = {d: [w for w in graph.windows if w.direction is d] for d in Direction}

    def row(direction: Direction, time: int) -> str:
        point = time if direction is Direction.UP else time + 1
        cells = [graph.name(w.vector) if point in w else "." for w in columns[direction]]
        while cells and cells[-1] == ".":
            cells.pop()
        return f"{time}: {' '.join(cells)}"

    lines = []
    for time in range(len(graph.kernels)):
        left = row(Direction.UP, time)
        lines.append(f"{left:<{_width(graph, columns)}}\t{row(Direction.DOWN, time)}".rstrip())
    return "\n".join(lines) + "\n"


def _width(graph: KernelVectorGraph, columns) -> int:
    names = [graph.name(w.vector) for w in columns[Direction.UP]]
    return len(str(len(graph.kernels))) + 2 + sum(len(n) + 1 for n in names)
