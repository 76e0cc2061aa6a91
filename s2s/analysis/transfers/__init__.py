"""Global transfer and allocation fusion for straight-line kernel programs (Kessler).

Pipeline (all pure functions over frozen data)::

    KernelVectorGraph --transfer_windows--> windows --affinity_graph--> AffinityGraph
        --hamiltonian paths / exact grouping--> layout --timing--> TransferPlan
        --allocation_plan--> pooled offsets;  listing.render_plan prints it like the paper.

Start with :func:`optimize`; build graphs with :func:`graph_from_names`, :func:`rename_to_ssa`
or, from host code, :func:`~s2s.analysis.transfers.region.build_region_graph`.
"""

from s2s.analysis.transfers.affinity import AffinityGraph, affinity_graph
from s2s.analysis.transfers.exact import Optimum, optimal_plan, optimum
from s2s.analysis.transfers.graph import (
    CPU,
    GPU,
    Call,
    Direction,
    GraphError,
    Kernel,
    KernelVectorGraph,
    Residency,
    Vector,
    Window,
    graph_from_names,
    rename_to_ssa,
    residency,
    transfer_windows,
)
from s2s.analysis.transfers.optimize import METHODS, optimize
from s2s.analysis.transfers.timing import (
    POLICIES,
    AllocationPlan,
    Transfer,
    TransferPlan,
    allocation_plan,
    make_plan,
)

__all__ = [
    "CPU", "GPU", "METHODS", "POLICIES", "AffinityGraph", "AllocationPlan", "Call", "Direction",
    "GraphError", "Kernel", "KernelVectorGraph", "Optimum", "Residency", "Transfer", "TransferPlan",
    "Vector", "Window", "affinity_graph", "allocation_plan", "graph_from_names", "make_plan",
    "optimal_plan", "optimize", "optimum", "rename_to_ssa", "residency", "transfer_windows",
]
