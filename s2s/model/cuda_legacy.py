"""The CUDA runtime calls CUDA 13 removed and what replaced them: one table for every pass,
the nvcc check and verify's host shim (issue 29, item 1).

Older programs still call ``cudaThreadSynchronize`` and its siblings; nvcc 13 rejects them. The
parse declares them (the stub ``s2s_cuda_legacy.h``), mgpu redirects each as its replacement,
fuse and transfers treat each as its replacement, and the nvcc check and verify's host shim
map each to its replacement with :func:`legacy_defines`, so every tool sees the program the
same way. A user who maps one with their own ``-D`` keeps their definition.
"""

from __future__ import annotations

from collections.abc import Iterable

#: removed call -> the call of the same arguments and meaning that replaced it
LEGACY_CALLS = {
    "cudaThreadSynchronize": "cudaDeviceSynchronize",
    "cudaThreadExit": "cudaDeviceReset",
    "cudaThreadSetLimit": "cudaDeviceSetLimit",
    "cudaThreadGetLimit": "cudaDeviceGetLimit",
    "cudaThreadSetCacheConfig": "cudaDeviceSetCacheConfig",
    "cudaThreadGetCacheConfig": "cudaDeviceGetCacheConfig",
}


def legacy_defines(defined: Iterable[str] = ()) -> str:
    """``#define`` lines mapping each removed call of :data:`LEGACY_CALLS` to its replacement,
    for text compiled against a CUDA that lacks them (a macro only matters where the name is
    used). Names in ``defined`` (the user's ``-D``/``-U``) are left to the user, and each line
    is guarded so that a definition seen earlier wins rather than conflicts."""
    defined = set(defined)
    return "".join(f"#ifndef {old}\n#define {old} {new}\n#endif\n"
                   for old, new in LEGACY_CALLS.items() if old not in defined)


def legacy_equivalent(name: str) -> str:
    """The call ``name`` stands for: its replacement if CUDA 13 removed it, else itself."""
    return LEGACY_CALLS.get(name, name)
