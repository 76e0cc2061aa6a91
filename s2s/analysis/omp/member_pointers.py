"""Raw pointer members mapped over each object's lifetime (the pointer half of omp.lifetime).

A class that allocates ``u_(new double[n])`` (or ``u_ = (double *)malloc(...)`` in the
constructor's body) and frees it in the destructor owns that storage as it owns a vector's:
omp.lifetime maps it from the end of each constructor to the start of the destructor when,
beyond the conditions it checks for vectors,

* the pointer is private, every constructor that enters the fields allocates it exactly
  once and unconditionally (a member initializer or a top-level statement of its body), and
  no code but a constructor or the destructor assigns it (``u_ = v_``, ``std::swap(u_, v_)``
  would move the mapping to other storage) and only the destructor frees it;
* no member function hands it out: returning it (or an element's address or reference)
  from a function returning a pointer or reference, or storing it anywhere but a local,
  would let code the survey does not see use the host copy;
* its element count is held in a field every constructor sets (a member initializer from a
  parameter the constructor never assigns: ``n_(n)`` with ``new double[n]`` or
  ``new double[n_]``) and no code writes after: the section ``u_[0:n_]`` then means the same
  storage in the destructor and every reader as in the constructor.

Storage the constructors never touch on the host after allocating it uninitialised
(``malloc``, ``new double[n]`` without an initializer) is entered with ``alloc``, the rest
with ``to``. Facts come from the front end
(frontend.cxx.class_fields: ``field``, ``init``, ``write``, ``escape``; the allocations).
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.omp.state import norm_text
from s2s.model import TranslationUnit
from s2s.model.host_facts import DECLARING_ROLES

#: allocations whose storage holds nothing defined until written
_UNINITIALISED = frozenset({"malloc", "aligned_alloc", "posix_memalign"})


class PointerRefused(Exception):
    """Why a class's pointer members are not mapped per object."""


@dataclass(frozen=True)
class PointerField:
    """A pointer member mapped per object: ``[0:count]`` entered with ``entry``."""

    name: str
    count: str
    entry: str  # 'to' or 'alloc'


def pointer_members(model: TranslationUnit, cls: str) -> frozenset[str]:
    """The pointer data members of ``cls`` that some constructor allocates."""
    pointers = {f.names[0] for f in _facts(model, cls, "field") if f.names[1] == "pointer"}
    return frozenset(member_name(a.name) for a in model.allocations
                     if constructor_of(a.function, cls) and member_name(a.name) in pointers)


def member_name(name: str) -> str:
    """The member an allocation in a constructor names (``this->a`` is ``a``: BabelStream
    writes ``this->a = (T *)aligned_alloc(...)`` where a parameter shadows nothing)."""
    return name.removeprefix("this->")


def check_pointers(model: TranslationUnit, cls: str, names, constructors, entering,
                   destructor) -> dict[str, PointerField]:
    """The mapping of each pointer member in ``names``, or :class:`PointerRefused`."""
    fields = {f.names[0]: f for f in _facts(model, cls, "field")}
    out = {}
    for name in sorted(names):
        if fields[name].names[2] == "public":
            raise PointerRefused(f"'{name}' is public (code outside the class can reach it)")
        # (an assignment first: ``t = u_; u_ = w_; w_ = t;`` also stores a copy of u_)
        for fact in _facts(model, cls, "write"):
            if fact.names[0] == name and not any(
                    m.span.contains(fact.span) for m in constructors + [destructor] if m):
                raise PointerRefused(f"'{name}' is assigned at {fact.span.location()}, "
                                     "outside the constructors")
        for fact in _facts(model, cls, "escape"):
            if fact.names[0] == name:
                raise PointerRefused(f"'{name}' is handed out at {fact.span.location()}")
        for fact in _facts(model, cls, "free"):
            if fact.names[0] == name and not (destructor and destructor.span.contains(fact.span)):
                raise PointerRefused(f"'{name}' is freed at {fact.span.location()}, outside "
                                     "the destructor")
        counts = {_count_field(model, cls, name, fields, k) for k in entering}
        if len(counts) != 1:
            raise PointerRefused(f"the constructors of '{name}' hold its element count in "
                                 "different fields")
        out[name] = PointerField(name, counts.pop(), _entry(model, name, constructors))
    return out


def constructor_of(function: str | None, cls: str) -> bool:
    """``function`` is a constructor of ``cls`` (``Heat``; ``Heat<T>`` in a class template)."""
    return function is not None and function.split("<")[0] == cls


def _facts(model: TranslationUnit, cls: str, kind: str) -> list:
    return [f for f in model.classes if f.class_name == cls and f.kind == kind]


def _count_field(model: TranslationUnit, cls: str, name: str, fields, constructor) -> str:
    """The field holding the element count of the one allocation of ``name`` in
    ``constructor``."""
    where = constructor.span.location()
    allocations = [a for a in model.allocations
                   if constructor_of(a.function, cls) and member_name(a.name) == name and
                   constructor.span.contains(a.span)]
    inits = [f for f in _facts(model, cls, "init") if constructor.span.contains(f.span)]
    stores = [f for f in inits if f.names[0] == name] + [
        f for f in _facts(model, cls, "write")
        if f.names[0] == name and constructor.span.contains(f.span)]
    if len(allocations) != 1 or len(stores) != 1 or allocations[0].count is None:
        raise PointerRefused(f"the constructor at {where} does not allocate '{name}' exactly "
                             "once with a known element count")
    allocation = allocations[0]
    in_body = constructor.body.span.contains(allocation.span)
    if in_body and not any(s.span.contains(allocation.span) and s.kind in ("expr", "decl")
                           for s in constructor.body.children):
        raise PointerRefused(f"the constructor at {where} allocates '{name}' under a loop or "
                             "a branch")
    count = norm_text(allocation.count.text).removeprefix("this->")
    order = list(fields)
    for init in inits:
        field, text, param = init.names
        if field == name or fields[field].names[1] != "scalar":
            continue
        held = (param and norm_text(text) == count) or \
            (count == field and (in_body or order.index(field) < order.index(name)))
        if held and _stable(model, cls, field, fields):
            return field
    raise PointerRefused(f"the element count '{allocation.count.text}' of '{name}' is not "
                         "held in a field that every constructor sets from a parameter and "
                         "nothing writes after")


def _stable(model: TranslationUnit, cls: str, field: str, fields) -> bool:
    """The count field is private and only member initializers set it."""
    return fields[field].names[2] == "private" and \
        not any(f.names[0] == field for f in _facts(model, cls, "write"))


def _entry(model: TranslationUnit, name: str, constructors) -> str:
    """``alloc`` when every allocation of ``name`` leaves it uninitialised and no
    constructor touches it on the host afterwards (no access, no copy of the pointer)."""
    spans = [k.span for k in constructors]
    allocations = [a for a in model.allocations if member_name(a.name) == name and
                   any(s.contains(a.span) for s in spans)]
    if any(a.kind not in _UNINITIALISED and (a.kind != "new[]" or a.initialised)
           for a in allocations):
        return "to"
    used = any(member_name(r.root) == name and any(s.contains(r.span) for s in spans)
               for r in model.array_refs) or \
        any(member_name(c.source or "") == name and _copy_used(model, c, spans)
            for c in model.pointer_copies if any(s.contains(c.span) for s in spans))
    return "to" if used else "alloc"


def _copy_used(model: TranslationUnit, copy, spans) -> bool:
    """A constructor's local copy of the pointer (``T *a = this->a;``, BabelStream's, kept
    for its data directives) that it mentions again (any mention may touch the storage)."""
    if copy.offset or copy.choices:
        return True
    return any(use.name == copy.target and use.role not in DECLARING_ROLES and
               any(s.contains(use.span) for s in spans) for use in model.var_uses)
