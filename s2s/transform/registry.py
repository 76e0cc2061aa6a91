"""The rewriting passes that exist, by subcommand name.

Each later issue registers its pass here (a function ``Loaded -> PassOutput``, see
:mod:`s2s.driver`); the CLI frame (``--diff``, ``--in-place``, ``--check``, ``-o``) is shared
and already tested with a pass that tests register themselves.
"""

from __future__ import annotations

from s2s.driver import Pass

PASSES: dict[str, Pass] = {}


def register(name: str, run_pass: Pass) -> None:
    PASSES[name] = run_pass


def get(name: str) -> Pass | None:
    return PASSES.get(name)
