"""Kernel fusion analyses (``s2s fuse``, docs/fuse.md): kernel classes (``kernels``), launch
runs and their dependence DAG (``graph``), legality (``legal``), on-chip resources
(``resources``), producer forms and recomputation (``forms``, ``recompute``), element types
of buffers (``types``) and the planner (``plan``). The code generator and host edits are in
:mod:`s2s.transform.fuse`."""
