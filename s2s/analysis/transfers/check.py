"""Independent checks of a transfer plan, by running it.

:func:`plan_problems` executes the plan on an abstract machine -- which vectors each device
holds at each point -- and reports every kernel that would read a vector its device does not
hold, every vector missing at exit, transfers of vectors not yet produced, and messages whose
vectors are not adjacent in the layout. It does not use the windows the optimizer worked
from, so it catches a wrong window as well as a wrong plan. The code generator can call it
as a last safety net; the tests call it on every plan they make.
"""

from __future__ import annotations

from s2s.analysis.transfers.graph import CPU, GPU, Direction
from s2s.analysis.transfers.timing import TransferPlan


def plan_problems(plan: TransferPlan) -> list[str]:
    graph = plan.graph
    problems: list[str] = []
    held: tuple[set[int], set[int]] = (set(), set())
    for v, vector in enumerate(graph.vectors):
        if vector.entry is not None:
            held[vector.entry].add(v)
    moved: dict[int, int] = {}
    by_point: dict[int, list] = {}
    for transfer in plan.transfers:
        by_point.setdefault(transfer.point, []).append(transfer)
        problems.extend(_message_problems(plan, transfer))
    for point in range(graph.n_points):
        for transfer in by_point.get(point, ()):
            source = CPU if transfer.direction is Direction.UP else GPU
            for v in transfer.vectors:
                if v not in held[source]:
                    problems.append(f"{graph.name(v)} moved at point {point} before it exists on "
                                    f"the {'CPU' if source == CPU else 'GPU'}")
                moved[v] = moved.get(v, 0) + 1
                held[1 - source].add(v)
        if point == len(graph.kernels):
            break
        kernel = graph.kernels[point]
        for v in kernel.reads:
            if v not in held[kernel.device]:
                problems.append(f"{kernel.name} (kernel {point}) reads {graph.name(v)}, not on its device")
        held[kernel.device].update(kernel.writes)
    for v, vector in enumerate(graph.vectors):
        for device in vector.live_out:
            if v not in held[device]:
                problems.append(f"{vector.name} is not on device {device} at exit")
        if moved.get(v, 0) > 1:
            problems.append(f"{vector.name} is moved {moved[v]} times")
    return problems


def _message_problems(plan: TransferPlan, transfer) -> list[str]:
    graph = plan.graph
    positions = [plan.position[v] for v in transfer.vectors]
    problems = []
    if positions != list(range(positions[0], positions[0] + len(positions))):
        problems.append(f"message at point {transfer.point} is not contiguous: "
                        f"{[graph.name(v) for v in transfer.vectors]}")
    if len(transfer.vectors) > 1 and not all(graph.vectors[v].fusable for v in transfer.vectors):
        problems.append(f"message at point {transfer.point} fuses a pinned vector")
    for v in transfer.vectors:
        window = graph.window_of(v)
        if window is None or window.direction is not transfer.direction:
            problems.append(f"{graph.name(v)} needs no {transfer.direction.value}")
    return problems
