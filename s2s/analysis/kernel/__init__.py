"""Kernel facts shared by the CUDA passes: the symbolic interpreter of a kernel's body
(``interp``, with its loop, call and value helpers) and the per-parameter access maps it
yields (``access``), which fuse, transfers and mgpu read."""
