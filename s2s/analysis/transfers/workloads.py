"""The paper's workloads (Figure 2 and Table 4), reconstructed, and its random-graph generator.

The paper gives Figure 2 only as a picture; its text and listings pin it down completely
(kernel operands from the listing, live-on-exit vectors from the caption, devices from the
transfers). Table 4's structured rows are described in a sentence each; where the text
leaves a choice open, the choice made here is stated in the builder's docstring and in
docs/transfers.md. The paper's random instances are not published: :func:`random_graph`
draws instances with the same parameters, so those rows compare distributions, not graphs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from s2s.analysis.transfers.graph import CPU, GPU, Call, KernelVectorGraph, graph_from_names, rename_to_ssa


@dataclass(frozen=True)
class Workload:
    """One row of Table 4: the graph, the paper's parameters and its reported savings
    (``paper_best``: the figures in parentheses, with 400 instead of 4 DFS attempts)."""

    name: str
    graph: KernelVectorGraph
    n_kernels: int
    m_init: int
    shape: str
    paper_greedy: int
    paper_tight: int
    paper_ms: float
    paper_best: tuple[int, int] | None = None
    random: bool = False


def figure2() -> KernelVectorGraph:
    """The N=5, M=13 example. Operands from the paper's listing; A, B, C live on entry;
    D, G, I, J, K, L, M live on exit (caption); kernel 1 runs on the CPU (E is downloaded
    after kernel 0 and F uploaded before kernel 2), the others on the GPU."""
    return graph_from_names(
        [("Kernel0", GPU, "BA", "DE"), ("Kernel1", CPU, "EB", "FG"), ("Kernel2", GPU, "CF", "HI"),
         ("Kernel3", GPU, "FH", "JK"), ("Kernel4", GPU, "HE", "LM")],
        live_in="ABC", live_out="DGIJKLM")


def vector_name(number: int) -> str:
    """Spreadsheet-style names: A..Z, AA, AB, ... (the paper names vectors by letters)."""
    name = ""
    number += 1
    while number:
        number, rest = divmod(number - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def random_graph(n_kernels: int, m_init: int, indegree: tuple[int, int], outdegree: tuple[int, int],
                 p_gpu: float = 0.5, seed: int = 0) -> KernelVectorGraph:
    """The paper's generator: each kernel draws its in- and outdegree uniformly from the
    given ranges and runs on the GPU with probability ``p_gpu``. Choices the paper leaves
    open: inputs are distinct vectors drawn uniformly from all vectors existing so far
    (fewer if fewer exist); outputs are fresh; the vectors no kernel reads are live on exit
    (as in Figure 2)."""
    rng = random.Random(seed)
    available = [vector_name(k) for k in range(m_init)]
    count = m_init
    kernels = []
    read: set[str] = set()
    for number in range(n_kernels):
        reads = rng.sample(available, min(rng.randint(*indegree), len(available)))
        writes = [vector_name(count + k) for k in range(rng.randint(*outdegree))]
        count += len(writes)
        device = GPU if rng.random() < p_gpu else CPU
        kernels.append((f"Kernel{number}", device, reads, writes))
        read.update(reads)
        available.extend(writes)
    live_out = [v for v in available[m_init:] if v not in read]
    return graph_from_names(kernels, available[:m_init], live_out)


def _devices(count: int, p_gpu: float, seed: int | None) -> list[int]:
    if seed is None:
        return [GPU] * count
    rng = random.Random(seed)
    return [GPU if rng.random() < p_gpu else CPU for _ in range(count)]


def linear_chain(n_kernels: int = 20) -> KernelVectorGraph:
    """Kernel i reads v_i and writes v_(i+1); one input, the last vector live on exit.
    Devices alternate GPU, CPU, ... (the paper does not say; alternating makes every vector
    move, and still no two windows of one direction overlap)."""
    kernels = [(f"K{i}", GPU if i % 2 == 0 else CPU, [f"v{i}"], [f"v{i + 1}"]) for i in range(n_kernels)]
    return graph_from_names(kernels, ["v0"], [f"v{n_kernels}"])


def out_tree(levels: int = 4, p_gpu: float = 1.0, seed: int | None = None) -> KernelVectorGraph:
    """Out-bound binary tree of 2^levels - 1 kernels in level order: kernel h (heap index)
    reads v_h and writes v_2h, v_2h+1; v_1 is the input, the leaves' outputs live on exit."""
    count = (1 << levels) - 1
    devices = _devices(count, p_gpu, seed)
    kernels = [(f"K{h}", devices[h - 1], [f"v{h}"], [f"v{2 * h}", f"v{2 * h + 1}"])
               for h in range(1, count + 1)]
    return graph_from_names(kernels, ["v1"], [f"v{k}" for k in range(count + 1, 2 * count + 2)])


def in_tree(levels: int = 4, p_gpu: float = 1.0, seed: int | None = None) -> KernelVectorGraph:
    """In-bound binary tree: 2^levels inputs, kernels bottom-up in level order (the leaf
    kernels first, left to right), each reading two vectors and writing one; the root's
    output lives on exit."""
    count = (1 << levels) - 1
    devices = _devices(count, p_gpu, seed)
    order = [h for level in range(levels - 1, -1, -1) for h in range(1 << level, 2 << level)]

    def operand(h: int) -> str:
        return f"x{h}" if h > count else f"y{h}"

    kernels = [(f"K{h}", devices[k], [operand(2 * h), operand(2 * h + 1)], [f"y{h}"])
               for k, h in enumerate(order)]
    return graph_from_names(kernels, [f"x{h}" for h in range(count + 1, 2 * count + 2)], ["y1"])


def horner(degree: int = 10) -> KernelVectorGraph:
    """Horner's rule with one vector per coefficient: y = a_n; then for k = n-1..0 a GPU
    multiply t_k = y * x and a GPU add y = t_k + a_k. Degree 10 gives the paper's N = 20 and
    M_init = 12 (x and 11 coefficients). The paper does not give the mapping; all-GPU is
    the one that matches both its greedy and tight savings (11)."""
    calls = []
    y = f"a{degree}"
    for k in range(degree - 1, -1, -1):
        calls.append(Call(f"mul{k}", GPU, (y, "x"), (f"t{k}",)))
        calls.append(Call(f"add{k}", GPU, (f"t{k}", f"a{k}"), (f"y{k}",)))
        y = f"y{k}"
    return rename_to_ssa(calls, ["x"] + [f"a{k}" for k in range(degree, -1, -1)], [y])


def cholesky(blocks: int = 4, syrk_on_cpu: bool = False) -> KernelVectorGraph:
    """Left-looking tiled Cholesky (LAPACK dpotrf order per block column j: SYRK updates of
    the diagonal tile, POTRF, GEMM updates of the tiles below, TRSM). Tiles are separate
    buffers, renamed per update; POTRF on the CPU, TRSM/SYRK/GEMM on the GPU (optionally
    SYRK on the CPU too). All final tiles live on exit on the CPU. For 4x4 tiles this gives
    the paper's N = 20 kernels; its M_init = 4 is not reproduced (the 10 tiles of the lower
    triangle are all inputs here)."""
    calls = []
    syrk_device = CPU if syrk_on_cpu else GPU

    def tile(i: int, j: int) -> str:
        return f"A{i}{j}"

    for j in range(blocks):
        for k in range(j):
            calls.append(Call(f"SYRK{j}{k}", syrk_device, (tile(j, k), tile(j, j)), (tile(j, j),)))
        calls.append(Call(f"POTRF{j}", CPU, (tile(j, j),), (tile(j, j),)))
        for i in range(j + 1, blocks):
            for k in range(j):
                calls.append(Call(f"GEMM{i}{j}{k}", GPU, (tile(i, k), tile(j, k), tile(i, j)), (tile(i, j),)))
        for i in range(j + 1, blocks):
            calls.append(Call(f"TRSM{i}{j}", GPU, (tile(j, j), tile(i, j)), (tile(i, j),)))
    tiles = [tile(i, j) for j in range(blocks) for i in range(j, blocks)]
    return rename_to_ssa(calls, tiles, tiles)


def matmul_2x2() -> KernelVectorGraph:
    """C = A B on 2x2 blocks: per block C_ij, two GPU GEMMs P_ijk = A_ik B_kj and a CPU MADD
    C_ij = P_ij0 + P_ij1 (8 GEMM + 4 MADD, as in the paper), block by block."""
    kernels = []
    for i in range(2):
        for j in range(2):
            for k in range(2):
                kernels.append((f"GEMM{i}{j}{k}", GPU, [f"A{i}{k}", f"B{k}{j}"], [f"P{i}{j}{k}"]))
            kernels.append((f"MADD{i}{j}", CPU, [f"P{i}{j}0", f"P{i}{j}1"], [f"C{i}{j}"]))
    inputs = [f"{m}{i}{k}" for m in "AB" for i in range(2) for k in range(2)]
    return graph_from_names(kernels, inputs, [f"C{i}{j}" for i in range(2) for j in range(2)])


def cg_steady_state() -> KernelVectorGraph:
    """One conjugate-gradient iteration in steady state, SpMV on the CPU, the rest on the
    GPU (7 kernels). Live on entry on the CPU: the matrix A and the direction p (downloaded
    for the SpMV at the end of the previous iteration, as the baseline frees it on the
    device); x, r and rr = r.r stay on the GPU between iterations. On exit the CPU needs
    the new p (next SpMV) and the new rr (convergence test of the loop)."""
    calls = [
        Call("spmv", CPU, ("A", "p"), ("q",)),
        Call("dot_pq", GPU, ("p", "q"), ("pq",)),
        Call("alpha", GPU, ("rr", "pq"), ("alpha",)),
        Call("axpy_x", GPU, ("x", "p", "alpha"), ("x",)),
        Call("axpy_r", GPU, ("r", "q", "alpha"), ("r",)),
        Call("dot_rr", GPU, ("r",), ("rr",)),
        Call("xpay_p", GPU, ("r", "rr", "p"), ("p",)),
    ]
    return rename_to_ssa(calls, ["A", "p", "x", "r", "rr"],
                         {"p": (CPU,), "rr": (CPU, GPU), "x": (GPU,), "r": (GPU,)},
                         entry_device={"x": GPU, "r": GPU, "rr": GPU})


RANDOM_ROWS = [
    # N, M_init, indegree, outdegree, paper greedy, tight, ms, (greedy, tight) with 400 attempts
    (8, 12, (2, 3), (1, 1), 7, 7, 0.2, (9, 8)),
    (10, 5, (2, 4), (1, 2), 11, 11, 0.2, None),
    (16, 12, (1, 4), (1, 2), 14, 14, 0.3, None),
    (16, 16, (2, 3), (1, 2), 19, 17, 0.3, None),
    (18, 8, (1, 2), (1, 2), 12, 12, 0.2, None),
    (18, 8, (2, 2), (1, 2), 16, 15, 0.4, None),
    (20, 8, (1, 1), (1, 1), 11, 11, 0.2, None),
    (20, 8, (1, 3), (1, 2), 18, 17, 0.2, None),
    (24, 10, (2, 3), (2, 2), 28, 26, 0.6, None),
    (48, 10, (2, 2), (1, 2), 41, 38, 0.9, (42, 41)),
    (60, 10, (1, 2), (1, 2), 40, 37, 2.0, None),
    (98, 12, (2, 2), (1, 2), 75, 70, 5.7, None),
]


def table4(seed: int = 1) -> list[Workload]:
    """Table 4 in the paper's order; random rows and random device maps drawn with ``seed``."""
    rows = [Workload("Figure 2 example", figure2(), 5, 3, "2..2 / 2..2", 7, 7, 0.1)]
    for n, m, ind, outd, greedy, tight, ms, best in RANDOM_ROWS:
        rows.append(Workload(f"random N={n}", random_graph(n, m, ind, outd, seed=seed), n, m,
                             f"{ind[0]}..{ind[1]} / {outd[0]}..{outd[1]}", greedy, tight, ms, best, True))
    rows += [
        Workload("Linear chain", linear_chain(20), 20, 1, "chain", 0, 0, 0.1),
        Workload("Out-bound bin. tree, all GPU", out_tree(4), 15, 1, "tree", 15, 15, 0.2),
        Workload("Dto., random device 50%", out_tree(4, 0.5, seed), 15, 1, "tree", 14, 14, 0.2),
        Workload("In-bound bin. tree, all GPU", in_tree(4), 15, 16, "tree", 15, 8, 0.2),
        Workload("Dto., random device 50%", in_tree(4, 0.5, seed), 15, 16, "tree", 14, 11, 0.2),
        Workload("In-bound bin. tree, all GPU", in_tree(5), 31, 32, "tree", 31, 16, 0.5),
        Workload("Dto., random device 50%", in_tree(5, 0.5, seed), 31, 32, "tree", 27, 17, 0.5),
        Workload("Horner's rule", horner(10), 20, 12, "application", 11, 11, 0.3),
        Workload("4x4 blocks Cholesky", cholesky(4), 20, 4, "application", 14, 14, 0.2),
        Workload("Dto., SYRK calls also on CPU", cholesky(4, True), 20, 4, "application", 9, 8, 0.2),
        Workload("2x2 blocks matrix multiply", matmul_2x2(), 12, 8, "application", 11, 11, 0.1),
        Workload("Conj. grad. loop, steady state", cg_steady_state(), 7, 2, "application", 2, 2, 0.1),
    ]
    return rows
