"""A struct's address handed to functions that only read its members (issue 28).

``laplacian(&mesh, U, AU)`` in a time loop takes ``mesh``'s address, and a data region around
the loop maps ``U[0:mesh.N]``: the plan must know that ``mesh.N`` stays the same inside the
loop. An address taken may let the callee write anything, so the count was refused and every
kernel mapped per construct (AMD's Jacobi shape: a ``mesh_t *`` passed to each kernel's
function). When the callee is a function of the program and its parameter is used only as
``m->field`` (no other use: not copied, not passed on, not dereferenced whole) the address
reaches nothing but member reads and the member writes ``omp.sections.changing_term`` already
looks for in every called function (``m->N = ...``): the call leaves ``mesh`` as it was.

:func:`read_only_addresses` gives the ``&mesh`` mentions among the region's statements that
``changing_term`` then takes for no change (from the AST's mentions: ``VarUse`` role
``address`` as the argument of a call), only for a name all of whose addresses in the region
go to such calls.
"""

from __future__ import annotations

from s2s.model import TranslationUnit


def read_only_addresses(model: TranslationUnit, scope) -> frozenset[int]:
    """The starts of the ``&s`` mentions in ``scope``'s statements (omp.changes.Scope) for
    names every address of which there is an argument of a call of the program whose
    parameter only reads members (module doc)."""
    verified: dict[str, list[int]] = {}
    refused: set[str] = set()
    for use in model.in_function("var_uses", scope.function):
        if use.role != "address" or not scope.holds(use.span):
            continue
        if use.call is not None and use.position is not None and \
                _reads_members_only(model, use.call, use.position):
            verified.setdefault(use.name, []).append(use.span.start)
        else:
            refused.add(use.name)
    return frozenset(start for name, starts in verified.items() if name not in refused
                     for start in starts)


def _reads_members_only(model: TranslationUnit, callee: str, index: int) -> bool:
    """Whether parameter ``index`` of ``callee`` appears in its body only as ``p->field``
    (assignments to such members are changing_term's to find)."""
    function = next((f for f in model.functions if f.name == callee and f.body is not None),
                    None)
    if function is None or index >= len(function.params):
        return False
    param = function.params[index].name
    uses = model.in_function("var_uses", callee)
    if not param or not uses:
        return False
    return all(u.role == "member" and u.pointer for u in uses
               if u.name == param and u.local)
