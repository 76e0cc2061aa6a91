"""Hypothesis strategies: small kernel-vector graphs with every feature of the model."""

from __future__ import annotations

from hypothesis import strategies as st

from s2s.analysis.transfers.graph import CPU, GPU, Kernel, KernelVectorGraph, Vector


@st.composite
def graphs(draw, max_kernels: int = 6, max_init: int = 3, general: bool = True) -> KernelVectorGraph:
    """A random single-assignment graph. ``general`` adds vectors on the GPU at entry,
    vectors live out on the GPU, pinned vectors and sizes other than 1."""
    n_init = draw(st.integers(1, max_init))
    specs = []
    for _ in range(n_init):
        entry = draw(st.sampled_from([CPU, GPU])) if general else CPU
        specs.append(dict(entry=entry))
    kernels = []
    for number in range(draw(st.integers(1, max_kernels))):
        available = list(range(len(specs)))
        reads = draw(st.lists(st.sampled_from(available), min_size=1, max_size=3, unique=True))
        writes = []
        for _ in range(draw(st.integers(1, 2))):
            specs.append(dict(entry=None))
            writes.append(len(specs) - 1)
        kernels.append(Kernel(f"K{number}", draw(st.sampled_from([CPU, GPU])), tuple(reads), tuple(writes)))
    read = {v for k in kernels for v in k.reads}
    vectors = []
    for v, spec in enumerate(specs):
        live_out = set()
        if spec["entry"] is None and (v not in read or draw(st.booleans())):
            live_out.add(CPU)
        if general and draw(st.integers(0, 4)) == 0:
            live_out.add(GPU)
        size = draw(st.integers(1, 3)) if general else 1
        fusable = draw(st.integers(0, 6)) != 0 if general else True
        vectors.append(Vector(f"v{v}", size, spec["entry"], frozenset(live_out), fusable=fusable))
    return KernelVectorGraph(tuple(vectors), tuple(kernels))


@st.composite
def windows(draw, max_count: int = 6, horizon: int = 6):
    """Random windows of one direction (for the interval solvers)."""
    from s2s.analysis.transfers.graph import Direction, Window

    result = []
    for v in range(draw(st.integers(1, max_count))):
        earliest = draw(st.integers(0, horizon))
        latest = draw(st.integers(earliest, horizon))
        result.append(Window(v, Direction.UP, earliest, latest))
    return result
