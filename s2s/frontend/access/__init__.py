"""Array accesses (``ArrayRef``) and pointer copies (``PointerCopy``) of host code, for the
OpenMP data-mapping analysis.

Public module (``__all__``): ``refs`` (``extract_accesses``). ``chains`` (what a chain of
subscripts, dereferences and members denotes), ``calls`` (pointer arguments of calls) and
``copies`` (pointer copies, vector uses) serve it. Built on the host package's tree.
"""

__all__ = ["refs"]
