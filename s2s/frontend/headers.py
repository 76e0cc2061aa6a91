"""Project headers with device code, loaded as CUDA units of their own.

A CUDA program keeps kernels, ``__device__`` helpers and ``__constant__`` tables in ``.cuh``
headers that its ``.cu`` files include. The front end's model of a file covers that file's own
text; the headers' device code comes from parsing each such header on its own, as CUDA, with
the including file's flags (their spans point into the header). Which headers: the project
(non-system) headers the file includes; a header that names none of ``__global__``,
``__device__``, ``__constant__`` is not parsed (a cheap filter; only the parse decides what
is there).
"""

from __future__ import annotations

from dataclasses import replace

from s2s.diagnostics import Diagnostic, Location
from s2s.frontend.extract import Loaded, load
from s2s.frontend.parse import ParseOptions

DEVICE_WORDS = (b"__global__", b"__device__", b"__constant__")
HEADER_ID = "cuda-header"


def device_headers(model, options: ParseOptions | None
                   ) -> tuple[tuple[Loaded, ...], tuple[Diagnostic, ...]]:
    """The loaded project headers of ``model`` that hold device code, each once, and a warning
    (``cuda-header``) for each one that does not parse on its own (it relies on what the
    including file defines before it): its kernels are then unknown to the caller, which says
    so where it needs one of them."""
    options = replace(options or ParseOptions(), language="cuda")
    found, skipped = [], []
    for header in model.project_headers:
        try:
            with open(header, "rb") as handle:
                text = handle.read()
        except OSError:
            continue
        if not any(word in text for word in DEVICE_WORDS):
            continue
        one = load(header, options, source=text)
        if one.model is None:
            first = next((d for d in one.diagnostics if d.is_error), None)
            skipped.append(Diagnostic.warning(
                f"project header {header} has device code but does not parse on its own"
                + (f" ({first.message})" if first else "") + "; its kernels are not analysed",
                HEADER_ID, Location(header, 1, 1, 0)))
            continue
        found.append(one)
    return tuple(found), tuple(skipped)
