"""Pointers copied out of an array of pointers whose elements are allocated in a loop
(issue 28, 3e; miniBUDE's ``poses_0 .. poses_5``).

``std::array<float *, 6> poses{}; for (i = 0; i < 6; i++) poses[i] = malloc(sizeof(float) *
nposes);`` then ``auto poses_0 = poses[0];`` and kernels on ``poses_0``: the kernels see a
plain pointer whose element count nothing states ("its element count is not known"), so
the plan refused it and its construct kept an unmapped pointer. The copy holds the storage
of one element, allocated with the elements' one count; ``poses_0`` is then an allocation of
``nposes`` elements made at its declaration (kind ``helper``: its elements hold data), which
the plan maps like any array a helper returns. That holds when

* the copy is a local pointer declared with ``a[K]`` (``K`` an integer literal) as its value
  and never assigned again, nor its address taken, nor handed to a ``swap``;
* ``a`` is a local array of pointers (a C array or a ``std::array``, whose ``a[k]`` the front
  end reads as an element too, frontend.host.facts) whose every element written before the
  copy is written by an allocation, all with one count (as omp.pointer_arrays requires:
  nothing else re-points an element), and which is mentioned before the copy only through
  elements (``a[k]``, ``a[k][i]``, ``memcpy(a[k], ...)``), never bare (passed to a call,
  copied), through an element's address, or as an element a call may rebind (``std::swap``,
  a reference parameter);
* the count names only literals, macros and variables declared before ``a`` and never
  changed after (omp.pointer_arrays.count_holds): it holds wherever the copy is used.

An element the loop does not allocate (``a[K]`` outside its range) is a null pointer the
original program dereferences on the device already; the module does not check the range.
"""

from __future__ import annotations

import re
from dataclasses import replace

from s2s.analysis.omp.pointer_arrays import count_holds
from s2s.analysis.omp.state import norm_text
from s2s.model import HostAllocation, TranslationUnit
from s2s.model.host_facts import CHANGING_ROLES, DECLARING_ROLES
from s2s.model.span import Expr

_ELEMENT = re.compile(r"([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]")


def with_element_copies(model: TranslationUnit) -> TranslationUnit:
    """``model`` with an allocation for each copy of an element the module doc's conditions
    prove; ``model`` itself when there is none."""
    known = {(a.function, a.name) for a in model.allocations}
    added = []
    for function in sorted({a.function for a in model.allocations
                            if a.function and "[" in a.name}):
        uses = model.in_function("var_uses", function)
        for use in uses:
            if use.role != "init" or not use.pointer or use.value is None or \
                    (function, use.name) in known:
                continue
            found = _ELEMENT.fullmatch(norm_text(use.value.text))
            if found is None or not _kept(model, uses, use):
                continue
            element = _element_storage(model, uses, function, found.group(1), use)
            if element is None:
                continue
            count, element_type = element
            known.add((function, use.name))
            added.append(HostAllocation(use.name, "helper", element_type, use.span, function,
                                        Expr(count, use.value.span)))
    if not added:
        return model
    merged = sorted(model.allocations + tuple(added), key=lambda a: (a.span.start, a.span.end))
    return replace(model, allocations=tuple(merged))


def _kept(model: TranslationUnit, uses, copy) -> bool:
    """The copy keeps the value of its declaration: no assignment, no address taken, not
    handed to a ``swap`` or to a reference parameter of a function of the program."""
    for use in uses:
        if use.decl != copy.decl or use is copy or use.unevaluated:
            continue
        if use.role in CHANGING_ROLES or use.role in DECLARING_ROLES:
            return False
        if use.role == "argument" and _rebinds(model, use):
            return False
    return True


def _rebinds(model: TranslationUnit, use) -> bool:
    """Whether the call argument ``use`` (a pointer, or an element ``a[k]``) may be given
    another value by the call: a ``swap`` or ``exchange`` (they take references), or a
    function of the program whose parameter there is a reference. Other library calls
    (``memcpy(a[k], ...)``) take the pointer's value."""
    if use.call is None:
        return False
    if use.call.rpartition("::")[2].endswith(("swap", "exchange")):
        return True
    params = [f.params for f in model.functions if f.name == use.call]
    return any(use.position is None or use.position >= len(p) or "&" in p[use.position].type
               for p in params)


def _element_storage(model: TranslationUnit, uses, function: str, array: str, copy
                     ) -> tuple[str, str] | None:
    """(count, element type) of the elements of the local array ``array`` the copy reads,
    or None (module doc)."""
    declared = [u for u in uses if u.name == array and u.role in DECLARING_ROLES and u.local]
    if len(declared) != 1 or not declared[0].pointer and not declared[0].record:
        return None
    decl = declared[0].decl
    before = [u for u in uses if u.decl == decl and u.span.start < copy.span.start
              and u is not declared[0] and not u.unevaluated]
    if any(u.role != "subscript" or u.element not in ("assign", "subscript", "read", "argument")
           or u.element == "argument" and _rebinds(model, u) for u in before):
        return None
    prefix = f"{array}["
    elements = [a for a in model.allocations if a.function == function and
                norm_text(a.name).startswith(prefix) and norm_text(a.name).endswith("]") and
                norm_text(a.name).count("[") == 1 and a.span.start < copy.span.start]
    writes = [u for u in before if u.element == "assign"]
    if not elements or len(writes) != len(elements) or \
            any(a.count is None or a.kind == "helper" for a in elements):
        return None
    counts = {norm_text(a.count.text) for a in elements}
    types = {a.element_type for a in elements}
    if len(counts) != 1 or len(types) != 1:
        return None
    count = counts.pop()
    if not count_holds(count, uses, declared[0].span.end):
        return None
    return count, types.pop()
