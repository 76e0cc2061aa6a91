"""The rewriting passes that exist, by subcommand name.

Each later issue registers its pass here (a function ``Loaded -> PassOutput``, see
:mod:`s2s.driver`); the CLI frame (``--diff``, ``--in-place``, ``--check``, ``-o``) is shared
and already tested with a pass that tests register themselves.
"""

from __future__ import annotations

from s2s.driver import Pass

PASSES: dict[str, Pass] = {}
#: The order passes run in when several are selected (the wrapper, verify's default). fuse
#: comes before transfers: transfers turns allocations into slices of one pool, which hides
#: from fuse that two buffers are distinct (gemver: 2 launches after fuse alone, 3 after
#: transfers then fuse), while transfers reaches as few copies on fused code as on the original
#: (issue 31; scripts/compare_pass_orders.py prints both orders over the samples and corpus).
PIPELINE_ORDER = ("omp", "fuse", "transfers", "mgpu")
#: passes that take several files as one program (s2s.driver.process_program)
WHOLE_PROGRAM: set[Pass] = set()


def register(name: str, run_pass: Pass, whole_program: bool = False) -> None:
    PASSES[name] = run_pass
    if whole_program:
        WHOLE_PROGRAM.add(run_pass)


def is_whole_program(run_pass: Pass) -> bool:
    return run_pass in WHOLE_PROGRAM


def get(name: str) -> Pass | None:
    return PASSES.get(name)
