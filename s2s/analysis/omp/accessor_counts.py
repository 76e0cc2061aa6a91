"""Element counts of pointers taken through a class's accessor (issue 28, 3c).

``int *rp = A.row_ptr();`` hands ``main`` the storage of the private vector ``row_ptr_``
(frontend.cxx.accessors reads the facts). Its element count is known in the caller's terms
when the class keeps it as an invariant:

* every non-const member function and constructor the class declares has been seen (its
  ``member_writes`` fact, from whichever file of the program defines it);
* exactly one of them changes the vector (``reserve_pattern``), with one ``resize`` whose
  count is written in scalar members (``nrows_ + 1``);
* each such member is written by that function and constructors only, and has a getter
  (``rows()``).

``rp`` is then an allocation of ``A.rows() + 1`` elements made at its declaration: the plan
maps ``rp[0:A.rows() + 1]`` like any array a helper returns (kind ``helper``: its elements
hold data). A count that is not certain gives no allocation, and the construct keeps its
reason. Limit: the accessor's value is assumed taken after the resizing function ran (before
it, the vector is empty and the kernels could not read it either).
"""

from __future__ import annotations

import re
from dataclasses import replace

from s2s.model import HostAllocation, TranslationUnit
from s2s.model.span import Expr

_NAME = re.compile(r"[A-Za-z_]\w*")


def with_accessor_counts(model: TranslationUnit) -> TranslationUnit:
    """``model`` with an allocation for each accessor value whose count the class's facts
    prove (module doc); ``model`` itself when there is none."""
    values = [f for f in model.classes if f.kind == "accessor_value"]
    if not values:
        return model
    known = {(a.function, a.name) for a in model.allocations}
    added = []
    for fact in values:
        target, function, obj, arrow, field, element = fact.names
        if (function, target) in known:
            continue
        count = accessor_count(model, fact.class_name, field)
        if count is None:
            continue
        text = _in_caller_terms(count, f"{obj}{arrow}")
        known.add((function, target))
        added.append(HostAllocation(target, "helper", element, fact.span, function,
                                    Expr(text, fact.span)))
    if not added:
        return model
    merged = sorted(model.allocations + tuple(added), key=lambda a: (a.span.start, a.span.end))
    return replace(model, allocations=tuple(merged))


def _in_caller_terms(count: tuple[str, dict[str, str]], prefix: str) -> str:
    """``nrows_ + 1`` as the caller writes it: ``A.rows() + 1``."""
    text, getters = count
    return _NAME.sub(lambda m: f"{prefix}{getters[m.group(0)]}()" if m.group(0) in getters
                     else m.group(0), text)


def accessor_count(model: TranslationUnit, cls: str, field: str
                   ) -> tuple[str, dict[str, str]] | None:
    """(the count of vector member ``field`` of ``cls`` in its scalar members, member ->
    getter) when the class keeps it (module doc), else None."""
    facts = [f for f in model.classes if f.class_name == cls]
    declared = {name for f in facts if f.kind == "methods" for name in f.names}
    writes: dict[str, set[str]] = {}
    for f in facts:
        if f.kind == "member_writes":
            writes.setdefault(f.names[0], set()).update(f.names[1:])
    if not declared or not declared <= set(writes):
        return None  # a member function whose body the program does not show
    writers = [m for m, members in writes.items() if field in members]
    if len(writers) != 1:
        return None
    resizes = {f.names[2] for f in facts
               if f.kind == "vector_resize" and f.names[:2] == (writers[0], field)}
    if len(resizes) != 1 or "" in resizes:
        return None
    count = resizes.pop()
    getters = {f.names[1]: f.names[0] for f in facts if f.kind == "getter"}
    constructors = {m for m in writes if m.startswith(f"{cls}(")}
    members = set(_NAME.findall(count))
    for member in members:
        if member not in getters:
            return None
        if any(member in written for m, written in writes.items()
               if m != writers[0] and m not in constructors):
            return None
    return count, {m: getters[m] for m in members}
