"""``.cu`` files a CUDA file includes as text (``#include "opt1.cu"``, as Rodinia's hotspot3D
and nw do): part of the file's translation unit, with host code, launches and CUDA calls of
their own.

``s2s mgpu`` rewrites their launches in place with the file's (the runtime's header and the
redirections of CUDA calls go before the first project ``#include``, so they reach the
included text). Only a ``.cu`` file in its includer's folder or a folder below it
(``#include "kernels/step.cu"``) qualifies: it is a piece of that program, not a file other
programs share (``../common/x.cu`` may be: rewriting it in place would change them too), and
every build of the rewrite (the compile check, verify, ``-o`` copies, the nvcc wrapper) puts
its rewritten text at the same place relative to the includer (``edits.beside_name``), where
the includer's quoted ``#include`` finds it. Launches in other headers are refused with the
reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from s2s.model.unit import TranslationUnit


def is_included_source(header: str, includer: str) -> bool:
    """Whether ``header`` is a ``.cu`` file in the folder of ``includer`` or below it."""
    folder = os.path.dirname(os.path.abspath(includer))
    path = os.path.abspath(header)
    inside = os.path.commonpath([folder, path]) == folder
    return header.endswith(".cu") and inside and path != os.path.abspath(includer)


def included_sources(includer: str, headers: tuple[TranslationUnit, ...],
                     texts: dict[str, bytes]) -> Iterator[tuple[TranslationUnit, bytes]]:
    """The models of ``headers`` that are ``.cu`` files included as text by ``includer`` and
    hold launches, with their bytes (``texts``, by path as the file's project headers name
    them)."""
    by_path = {os.path.abspath(path): text for path, text in texts.items()}
    for header in headers:
        text = by_path.get(os.path.abspath(header.path))
        if header.launches and text is not None and is_included_source(header.path, includer):
            yield header, text
