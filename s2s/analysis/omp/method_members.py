"""Pointer members a class allocates in a method its constructor calls (issue 28, 3c).

AMD's 8_jacobi keeps its fields as raw pointers of a class: ``Jacobi_t(mesh_t &m) : mesh(m)
{ CreateMesh(); InitializeData(); }`` where ``InitializeData()`` allocates ``h_U =
(double *)malloc(mesh.N * sizeof(double))``, and ``Run()`` loops over kernels on them. Only
member functions can name private members, so the data region belongs in ``Run`` (as for a
class's vectors, omp.region's member owners), and it needs the count there: ``mesh.N``, the
allocation's own count, means the same in every member function of the object when

* the allocating method ``M`` is called from constructors of the class only, and the member
  pointer is written nowhere but by that one allocation in ``M`` (no other assignment, no
  address taken, never handed to a ``swap``), and no method of the class but its
  constructors returns a pointer or a reference (which might hand the storage out);
* each name the count starts from (``mesh``, ``n_``) is no parameter, local or global that
  any member function of the class mentions (so it is a data member, or a macro or
  enumerator), and every write of a member the count names (``N`` of ``mesh.N``, ``mesh``,
  ``n_``: any write of a member of that name, anywhere in the program, from the AST) lies in
  a constructor of the class or a method called from its constructors only, before the call
  of ``M`` in that constructor (a length written after the allocation would map another
  range than the storage holds).

Each such member gets an allocation of the class (function ``Cls::``, like a vector member,
frontend.host.containers) with the count as written, which omp.sizes finds in any member
function. A count that is not certain gives nothing, and the constructs keep the safety net.
"""

from __future__ import annotations

import re
from dataclasses import replace

from s2s.analysis.omp.loops import LOOP_KINDS
from s2s.analysis.omp.member_pointers import constructor_of
from s2s.analysis.omp.state import norm_text
from s2s.model import TranslationUnit

#: names a count starts from (not after ``.`` or ``->``), and those after one
_ROOT = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)")
_FIELD = re.compile(r"(?:\.|->)\s*([A-Za-z_]\w*)")
_NOT_NAMES = frozenset({"sizeof", "alignof", "this"})


def with_method_members(model: TranslationUnit) -> TranslationUnit:
    """``model`` with a class allocation for each pointer member the module doc's
    conditions prove; ``model`` itself when there is none."""
    methods = [f for f in model.functions if f.member_of and f.body is not None]
    if not methods:
        return model
    known = {(a.function, a.name) for a in model.allocations}
    added = []
    for allocation in model.allocations:
        function = model.function(allocation.function) if allocation.function else None
        if function is None or function.member_of is None or allocation.count is None or \
                constructor_of(function.name, function.member_of):
            continue
        cls = function.member_of
        if (f"{cls}::", allocation.name) in known or \
                not _certain(model, methods, cls, function, allocation):
            continue
        known.add((f"{cls}::", allocation.name))
        added.append(replace(allocation, function=f"{cls}::"))
    if not added:
        return model
    merged = sorted(model.allocations + tuple(added), key=lambda a: (a.span.start, a.span.end))
    return replace(model, allocations=tuple(merged))


def _certain(model: TranslationUnit, methods, cls: str, allocating, allocation) -> bool:
    name = allocation.name
    writes = [w for w in model.member_writes if w.member == name]
    if len(writes) != 1 or writes[0].function != allocating.name or writes[0].base is not None \
            or writes[0].role != "assign" or not writes[0].extent.contains(allocation.span):
        return False
    if sum(1 for a in model.allocations if a.name == name) != 1 or _swapped(model, name):
        return False
    own = [m for m in methods if m.member_of == cls]
    if any(("*" in m.return_type or "&" in m.return_type) and not constructor_of(m.name, cls)
           for m in own):
        return False
    constructors = [m for m in own if constructor_of(m.name, cls)]
    phase = _constructor_phase(model, own, constructors)
    if allocating.name not in phase:
        return False
    count = norm_text(allocation.count.text).replace("this->", "")
    roots = set(_ROOT.findall(_FIELD.sub("", count))) - _NOT_NAMES
    if any(root in _mentioned(model, m) for m in own for root in roots):
        return False
    members = roots | set(_FIELD.findall(count))
    return all(_written_before(model, member, allocating, allocation, constructors, phase)
               for member in members)


def _swapped(model: TranslationUnit, name: str) -> bool:
    """``name`` is handed to a ``swap`` somewhere (a reference argument re-points it)."""
    return any(call.name.rpartition("::")[2] == "swap" and
               any(norm_text(arg.text).replace("this->", "") == name for arg in call.args)
               for function in model.functions for call in function.calls)


def _constructor_phase(model: TranslationUnit, own, constructors) -> dict[str, list]:
    """Methods of the class called from its constructors only (each with the calls of it),
    and the constructors themselves (with none)."""
    calls: dict[str, list] = {}
    for function in model.functions:
        for call in function.calls:
            calls.setdefault(call.name, []).append((function, call))
    phase = {k.name: [] for k in constructors}
    for method in own:
        sites = calls.get(method.name, [])
        if method.name not in phase and sites and \
                all(caller in constructors for caller, _ in sites):
            phase[method.name] = sites
    return phase


def _mentioned(model: TranslationUnit, function) -> frozenset[str]:
    """Variables ``function`` declares or mentions (parameters, locals, globals)."""
    return model.cached(("omp method mentions", function.name, function.span.start), lambda: (
        frozenset(u.name for u in model.in_function("var_uses", function.name)) |
        frozenset(p.name for p in function.params)))


def _written_before(model: TranslationUnit, member: str, allocating, allocation,
                    constructors, phase: dict[str, list]) -> bool:
    """Every write of a member named ``member`` happens before the allocation: in the
    allocating method ahead of it, in a constructor ahead of its call of the allocating
    method, or in a method the constructors alone call, ahead of that call."""
    alloc_sites = phase[allocating.name]
    for write in model.member_writes:
        if write.member != member:
            continue
        if write.function == allocating.name:
            if write.span.start >= allocation.span.start:
                return False
            continue
        if write.function not in phase:
            return False
        if any(k.name == write.function for k in constructors):
            starts = [write.span.start]
            callers = [write.function]
        else:
            starts = [call.span.start for _, call in phase[write.function]]
            callers = [caller.name for caller, _ in phase[write.function]]
        for caller, start in zip(callers, starts, strict=True):
            later = [call.span.start for k, call in alloc_sites if k.name == caller]
            if any(at < start for at in later):
                return False
    return True


def left_behind(model: TranslationUnit, method, label: str) -> bool:
    """Whether the host copy of the class's pointer member ``label`` is never read once
    ``method`` returns, so the method's data region need not copy it back (heat_class_setup:
    ``Advance()`` steps ``temp`` on the device; the expert maps it ``to`` because main
    calls ``plate.Advance(steps, 100)`` once and nothing reads ``temp`` after). Proved when

    * the member is one the class allocates in its constructor phase (the allocation of the
      class this module adds: nothing else writes it, no method hands it out);
    * no other function of the program mentions its storage (array references, pointer
      copies) but the constructor phase, which runs before any call of ``method``, and
      there only as its own member (bare or ``this->``; a copy constructor's ``o.temp`` reads
      another object's); the destructor only ``free``s it (no mention);
    * ``method`` runs at most once per object: its one call in the program is in ``main``,
      outside any loop of a ``main`` without ``goto``, and its address is never taken (a
      second call would copy in the stale host copy)."""
    cls = method.member_of
    if cls is None or label not in method.fields or constructor_of(method.name, cls) or \
            not any(a.function == f"{cls}::" and a.name == label for a in model.allocations):
        return False
    own = [m for m in model.functions if m.member_of == cls and m.body is not None]
    phase = _constructor_phase(model, own, [m for m in own if constructor_of(m.name, cls)])
    allowed = set(phase) | {method.name}
    own, other = _mentioning(model, cls, label)
    if not own <= allowed or other:
        return False
    return _called_once(model, method.name)


def _mentioning(model: TranslationUnit, cls: str, label: str) -> tuple[frozenset, frozenset]:
    """(the methods of ``cls`` whose array references or pointer copies name their own
    member ``label``: bare or ``this->label``; the functions that name it of another
    object: ``obj.label``, ``p->label``, a copy constructor's ``o.label`` included).
    Indexed once per unit and class."""
    def build() -> tuple[dict, dict]:
        methods = {m.name for m in model.functions if m.member_of == cls}
        own: dict[str, set[str]] = {}
        other: dict[str, set[str]] = {}
        mentions = [(r.function, r.array) for r in model.array_refs] + \
            [(c.function, c.source) for c in model.pointer_copies if c.source is not None]
        for function, text in mentions:
            text = norm_text(text)
            found = _MEMBER_END.search(text)
            if found is not None:
                mine = function in methods and text.startswith("this->") and \
                    "." not in text and text.count("->") == 1
                (own if mine else other).setdefault(found.group(1), set()).add(function)
            elif function in methods:
                own.setdefault(text, set()).add(function)
        return own, other
    own, other = model.cached(("omp.method_members.mentioning", cls), build)
    return frozenset(own.get(label, ())), frozenset(other.get(label, ()))


#: the member a storage expression ends with (``obj.u``, ``p->u``)
_MEMBER_END = re.compile(r"(?:\.|->)\s*([A-Za-z_]\w*)$")


def _called_once(model: TranslationUnit, name: str) -> bool:
    """Whether the function ``name`` runs at most once: one call in the whole program, in
    ``main``, under no loop there (``main`` has no ``goto``), and no address of it taken."""
    sites = [(function, call) for function in model.functions for call in function.calls
             if call.name == name or name in call.targets]
    if len(sites) != 1 or any(ref.name == name for ref in model.function_refs):
        return False
    caller, call = sites[0]
    if caller.name != "main" or caller.body is None:
        return False
    return not any(stmt.kind == "goto" or stmt.kind in LOOP_KINDS and
                   stmt.span.start <= call.span.start < stmt.span.end
                   for stmt in caller.body.walk())
