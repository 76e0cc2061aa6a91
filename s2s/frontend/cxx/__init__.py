"""C++ class facts for the OpenMP pass's per-object lifetime mapping (omp.lifetime): which
classes own vectors and raw pointer members, and how their constructors, destructors and
other code touch them.

Public module (``__all__``): ``classes`` (``extract_class_facts``). ``class_fields`` (the raw
pointer members, read from the host package's tree and mention roles) serves it.
"""

__all__ = ["classes"]
