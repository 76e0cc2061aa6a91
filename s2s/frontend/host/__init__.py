"""Host-code facts of a translation unit: function bodies as statement trees, array
allocations (and the helpers that return them), call sites, variable mentions, calls through
function pointers, ``std::vector`` storage and compile-time sizes.

Everything here reads the host tree (``tree``: the context's main-file walk rebuilt once with
children, parents and subtree ends). Public modules (``__all__``): ``tree``, ``functions``
(``extract_functions``), ``allocators`` (``extract_allocations``, ``extract_helper_facts``),
``facts`` (``extract_host_decls``, ``extract_host_args``, ``extract_var_uses``),
``member_writes`` (``extract_member_writes``), ``struct_writes`` (``record_writes``,
``pointer_members``: whole-struct writes, which the access package records as pointer
copies of the members too), ``callees``,
``containers``, ``constants`` (for ``s2s report``), and the small scanners the access package
shares: ``alloc`` (``size_factor``), ``calls`` (``callee_name``), ``scan``
(``statement_header``). ``stmts`` and ``byte_counts`` are private to the package.
"""

__all__ = ["alloc", "allocators", "callees", "calls", "constants", "containers", "facts",
           "functions", "member_writes", "scan", "struct_writes", "tree"]
