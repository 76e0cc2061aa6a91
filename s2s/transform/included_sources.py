"""What ``s2s fuse`` and ``s2s transfers`` leave in a ``.cu`` file included as text.

Rodinia's layout puts the host driver in a ``.cu`` file the main file includes
(``#include "opt1.cu"``, bfs's kernels, a ``driver.cu``). ``s2s mgpu`` rewrites its launches in
place (``s2s/analysis/mgpu/included.py``); fuse and transfers edit the file given only, so its
launches and copies stay as written. Never silently: one warning per such file that names
what stays and why.
"""

from __future__ import annotations

from s2s.analysis.mgpu.included import is_included_source
from s2s.diagnostics import Diagnostic
from s2s.frontend.extract import Loaded
from s2s.frontend.headers import device_headers

#: transfers' warning for the copies of an included .cu file (fuse uses fuse-unfused)
TRANSFERS_ID = "transfers-included-source"


def left_in_included_sources(loaded: Loaded, pass_name: str, warning_id: str,
                             copies: frozenset[str] = frozenset()) -> tuple[Diagnostic, ...]:
    """One warning per ``.cu`` file ``loaded`` includes as text that holds launches (``copies``
    empty: fuse) or calls named in ``copies`` (transfers): left as written."""
    out = []
    for header in device_headers(loaded):
        if not is_included_source(header.path, loaded.path):
            continue
        if copies:
            found = [c for c in header.model.api_calls if c.name in copies]
            what = "CUDA copies and allocations"
        else:
            found = list(header.model.launches)
            what = "launches"
        if not found:
            continue
        out.append(Diagnostic.warning(
            f"{len(found)} {what} in {header.path}, a .cu file included as text, are left as "
            f"written: s2s {pass_name} edits the file given, not the files it includes",
            warning_id, found[0].span))
    return tuple(out)
