"""Project headers with device code, as CUDA units in the context of the file that includes them.

A CUDA program keeps kernels, ``__device__`` helpers and ``__constant__`` tables in ``.cuh``
headers that its ``.cu`` files include, often after defining what they use (``#define
BLOCK_SIZE 16``, a struct, an ``#include``): such a header does not parse on its own. The
front end extracts each project header that names ``__global__``, ``__device__`` or
``__constant__`` from the including file's own parse (:func:`s2s.frontend.extract.
included_headers`): the header as the compiler sees it there, its spans pointing into the header.
This module hands those models to the CUDA passes and verify.
"""

from __future__ import annotations

from s2s.frontend.extract import Loaded


def device_headers(loaded: Loaded) -> tuple[Loaded, ...]:
    """The project headers of ``loaded`` that hold device code, each once, extracted in the
    context of ``loaded`` (none when it is not CUDA)."""
    if loaded.model is None or loaded.model.language != "cuda":
        return ()
    return loaded.headers
