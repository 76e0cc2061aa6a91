"""CUDA facts of a translation unit: kernels and device functions, launches, API calls,
template instantiations, and kernel bodies lowered to the kernel IR.

Public modules (``__all__``): ``constructs`` (``extract_kernels``, ``extract_launches``,
``extract_api_calls``: what the transfers, fuse and mgpu passes read), ``kernel_body``
(``extract_kernel_bodies``, ``lowering``, ``evaluate_cursor``: the kernel IR that access
analysis interprets; host facts lower host arguments with it) and ``text`` (``Macros``,
``offsets_of``: host facts read where a mention in a macro call's argument is written).
``names``, ``templates`` and ``unit`` serve ``constructs``.
"""

__all__ = ["constructs", "kernel_body", "text"]
