"""The rewriting passes that exist, by subcommand name.

Each later issue registers its pass here (a function ``Loaded -> PassOutput``, see
:mod:`s2s.driver`); the CLI frame (``--diff``, ``--in-place``, ``--check``, ``-o``) is shared
and already tested with a pass that tests register themselves.
"""

from __future__ import annotations

from s2s.driver import Pass

PASSES: dict[str, Pass] = {}
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
