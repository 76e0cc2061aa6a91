"""The ``s2s`` console script: ``s2s --version`` is answered before the tool is imported.

Importing :mod:`s2s.cli.main` imports every pass, the printers and isl (about half a second of
CPU, issue 30 item 4); a version query needs none of it. Everything else, and ``--version``
under another name (the wrapper installed as a symlink named ``nvcc`` must let nvcc answer),
goes to :func:`s2s.cli.main.main` unchanged.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from s2s import __version__

#: the name the console script is installed under
SCRIPT_NAME = "s2s"


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and os.path.basename(sys.argv[0]) == SCRIPT_NAME \
            and sys.argv[1:] == ["--version"]:
        print(f"s2s {__version__}")
        return 0
    from s2s.cli.main import main as run_tool

    if argv is None:                # the process's own command line: it ends with the command
        from s2s import gc_pause

        gc_pause.command_line_process()
    return run_tool(argv)
