"""Fixed-size arrays of pointers whose elements are allocated in a loop (issue 28, 3e).

``double *y[NS]; for (k = 0; k < NS; k++) y[k] = malloc(n * sizeof(double));`` and kernels
reading ``y[1][i]``: mapping ``y`` alone copies the host addresses its elements hold, and the
device dereferences host memory (right on clang's host device, wrong on a GPU; the run shows
no unmapped pointer, only ``tofrom(y)[32] (implicit)``). Mapping the element sections alone
(``map(to: y[0][0:n])``) maps each 8-byte ``y[k]`` as a pointer of its own, which overlaps
the implicit mapping of ``y`` the kernel makes: the run with clang-16 segfaults.

What is right (measured on clang-16 host offload: the device sees device addresses, the
host keeps its own after ``from`` copies, libomptarget's shadow pointers) is ``y`` itself
and every element's section in one clause list, ``y`` first: ``map(to: y, y[0][0:n],
y[1][0:n], y[2][0:n], y[3][0:n])``; the elements are then attached to the device copy of
``y``. A ``target update`` names the element sections only.

An array qualifies when (:func:`pointer_array`):

* its type gives a constant extent (``[4]``, ``[NS]``) of at most :data:`MAX_EXTENT`,
* every element is written only by an allocation (``y[k] = malloc(...)``), all with one
  count, and the array is never passed whole to a call or has its address taken (a callee
  could re-point an element),
* the count names only literals, macros and variables declared before the array and never
  assigned after their declaration (so it holds, in scope, wherever the array is used).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from s2s.analysis.omp.state import norm_text
from s2s.model import TranslationUnit
from s2s.model.host_facts import CHANGING_ROLES, DECLARING_ROLES

#: more elements than this are not listed one by one in a clause
MAX_EXTENT = 16
_WORD = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)")
#: mentions that declare a variable, and those that may change its value


@dataclass(frozen=True)
class PointerArray:
    """``name[extent]`` of pointers, each to ``count`` elements."""

    name: str
    function: str | None
    extent: int
    count: str

    def element(self, k: int) -> str:
        return f"{self.name}[{k}][0:{self.count}]"


def pointer_array(model: TranslationUnit, source: bytes, function: str | None, name: str
                  ) -> PointerArray | None:
    """The array of pointers ``name`` visible in ``function`` (its own or a global), or None
    when it is none or does not qualify (module doc)."""
    found = model.cached("omp pointer arrays", lambda: _pointer_arrays(model, source))
    return found.get((function, name)) or found.get((None, name))


def is_array_of_pointers(model: TranslationUnit, function: str | None, name: str) -> bool:
    """Whether ``name`` is a fixed-size array of pointers in ``function`` (qualifying or
    not): its elements are storage a kernel reaches, not values it holds."""
    found = model.cached("omp arrays of pointers", lambda: frozenset(
        (a.function, a.name) for a in model.allocations
        if a.kind in ("static_array", "vla") and a.element_type.rstrip().endswith("*")
        and len(a.dims) <= 1))
    return (function, name) in found or (None, name) in found


def _pointer_arrays(model: TranslationUnit, source: bytes) -> dict[tuple[str | None, str], PointerArray]:
    out = {}
    for array in model.allocations:
        if array.kind != "static_array" or not array.element_type.rstrip().endswith("*") or \
                len(array.extents) != 1 or array.extents[0] is None or \
                not 0 < array.extents[0] <= MAX_EXTENT:
            continue
        count = _element_count(model, source, array)
        if count is not None:
            out[array.function, array.name] = PointerArray(array.name, array.function,
                                                           array.extents[0], count)
    return out


def _element_count(model: TranslationUnit, source: bytes, array) -> str | None:
    """The one count of every allocation of an element of ``array``, when the module doc's
    conditions hold."""
    prefix = f"{array.name}["
    elements = [a for a in model.allocations if a.function == array.function and
                norm_text(a.name).startswith(prefix) and norm_text(a.name).endswith("]") and
                norm_text(a.name).count("[") == 1]
    if not elements or any(a.count is None or a.kind == "helper" for a in elements):
        return None
    counts = {norm_text(a.count.text) for a in elements}
    if len(counts) != 1:
        return None
    element_writes = [r for r in model.array_refs if r.root == array.name and
                      r.array == array.name and r.function == array.function and
                      len(r.subscripts) == 1 and r.writes]
    if len(element_writes) != len(elements) or any(r.directive is not None
                                                    for r in element_writes):
        return None
    function = model.function(array.function) if array.function else None
    if function is None or function.body is None:
        return None
    uses = model.in_function("var_uses", array.function)
    declared = next((u for u in uses if u.name == array.name and u.role in DECLARING_ROLES and
                     array.span.start <= u.span.start < array.span.end), None)
    if declared is None:
        return None            # its mentions were not extracted: not known
    if any(_escapes(use) for use in uses if use.decl == declared.decl and use is not declared):
        return None
    count = counts.pop()
    return count if count_holds(count, uses, array.span.end) else None


def count_holds(count: str, uses, after: int) -> bool:
    """Whether the element count ``count`` (of storage whose array is declared before
    ``after``) holds, in scope, wherever the function's ``uses`` could use that storage."""
    for name in set(_WORD.findall(count)) - {"sizeof"}:
        # declared after the array (perhaps in the allocation loop: out of scope at the
        # kernels), or changed after the array's declaration: the count does not hold there;
        # a global changed in the function before it (a call may change it again)
        if any(u.name == name and (u.role in CHANGING_ROLES or u.role in DECLARING_ROLES) and
               u.span.start >= after or
               u.name == name and u.role in CHANGING_ROLES and not u.local for u in uses):
            return False
    return True


def element_clauses(model: TranslationUnit, source: bytes, function: str | None, name: str,
                    refs) -> list[tuple[str, str]] | str:
    """(map type, item) pairs that map the array of pointers ``name`` on one target
    construct whose accesses to it are ``refs`` (the safety net, omp.fallback): ``to: y``
    first, then each element the kernel reaches, whole, ``to`` when the kernel only reads
    it, else ``tofrom``; an element chosen at run time (``y[k][i]``, ``double *p = y[k]``)
    stands for all of them. A string saying why where none is right."""
    array = pointer_array(model, source, function, name)
    if array is None:
        return (f"'{name}' is an array of pointers whose elements' storage is not known "
                "(each element allocated once with one count, the array never passed to a "
                "call or re-pointed)")
    modes: dict[int, set[str]] = {}
    for ref in refs:
        if len(ref.subscripts) == 1 and ref.writes:
            return f"the kernel re-points an element of '{name}'"
        index = norm_text(ref.subscripts[0].text) if ref.subscripts else ""
        chosen = [int(index)] if index.isdigit() and len(ref.subscripts) > 1 else \
            list(range(array.extent))
        for k in chosen:
            if k >= array.extent:
                return f"'{name}[{k}]' is past the array's {array.extent} elements"
            modes.setdefault(k, set()).add("write" if ref.writes and len(ref.subscripts) > 1
                                           else "read")
    out = [("to", name)]
    for k in sorted(modes):
        out.append(("tofrom" if "write" in modes[k] else "to", array.element(k)))
    return out


def pointer_array_maps(model: TranslationUnit, source: bytes, function: str,
                       lengths: dict[str, str], skipped: dict[str, str], start: int
                       ) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """For the whole-function plan: the arrays of pointers among the mapped ``lengths``,
    each -> (its elements' sections ``y[0][0:n]``, ..., those of the elements a kernel may
    write: all a ``from`` copy needs). One that does not qualify,
    or whose elements are allocated where the data region has begun, moves to ``skipped``
    with the reason (mapped as a whole static array, its device copy would hold host
    addresses)."""
    out = {}
    for label in sorted(lengths):
        if not is_array_of_pointers(model, function, label):
            continue
        array = pointer_array(model, source, function, label)
        late = array is not None and any(
            a.span.start >= start and norm_text(a.name).startswith(f"{label}[")
            for a in model.allocations if a.function == array.function)
        if array is None or late:
            del lengths[label]
            skipped[label] = ("an array of pointers whose elements are allocated inside the "
                              "region" if late else
                              "an array of pointers whose elements' storage is not known")
            continue
        written = _device_written(model, function, array) or range(array.extent)
        out[label] = (tuple(array.element(k) for k in range(array.extent)),
                      tuple(array.element(k) for k in written))
    return out


def _device_written(model: TranslationUnit, function: str, array: PointerArray
                    ) -> list[int]:
    """The elements whose storage a kernel of ``function`` may write (``y[1][i] = ...``; an
    element chosen at run time, or read as a pointer in a kernel, stands for all of them):
    only they can come back from the device. All of them where an element is handed to a
    function that runs kernels (they may write it through its parameter)."""
    everything = list(range(array.extent))
    fn = model.function(function)
    if fn is None or any(norm_text(arg.text).startswith(f"{array.name}[")
                         for call in fn.calls if _runs_kernels(model, call.name)
                         for arg in call.args):
        return everything
    written: set[int] = set()
    for ref in model.in_function("array_refs", function):
        if ref.directive is None or ref.array != array.name:
            continue
        index = norm_text(ref.subscripts[0].text) if ref.subscripts else ""
        if len(ref.subscripts) == 1 or ref.writes and not index.isdigit():
            return everything
        if ref.writes:
            written.add(int(index))
    return sorted(k for k in written if k < array.extent)


def whole_items(arrays: dict, model: TranslationUnit, function: str, items):
    """``items`` (copy items of a plan) with every one that names a whole array of
    ``arrays`` (``y``, ``y[0:NS]``) spelled as the bare name, which the rewrite turns into
    the elements' sections; None where one names part of such an array (``y[1:1]``: the
    plan copies an array of pointers' elements whole)."""
    out = []
    for item in items:
        base = item.split("[", 1)[0].strip()
        if base in arrays and norm_text(item) != base:
            declared = next((a for a in model.allocations if a.name == base and
                             a.function in (function, None) and a.count is not None), None)
            if declared is None or norm_text(item) != f"{base}[0:{norm_text(declared.count.text)}]":
                return None
            item = base
        out.append(item)
    return out


def whole_copies(arrays: dict, model: TranslationUnit, function: str, updates,
                 exit_updates, entry_updates) -> tuple[list, list, list]:
    """The plan's copies with those of arrays of pointers named by the bare array (see
    :func:`whole_items`); Unsupported where one would copy part of such an array."""
    from dataclasses import replace

    from s2s.analysis.omp.state import Unsupported

    found = [whole_items(arrays, model, function, [u.item for u in updates]),
             whole_items(arrays, model, function, exit_updates),
             whole_items(arrays, model, function, entry_updates)]
    if any(items is None for items in found):
        raise Unsupported("a copy would move part of an array of pointers (the plan copies "
                          "the elements' storage whole)")
    return ([replace(u, item=item) for u, item in zip(updates, found[0], strict=True)],
            found[1], found[2])


def _runs_kernels(model: TranslationUnit, name: str) -> bool:
    """Whether the function ``name`` of the program, or one it calls, has a target
    construct (a library function such as ``free`` has none)."""
    def build() -> frozenset[str]:
        with_kernels = {d.function for d in model.directives if d.is_target_region}
        grown = True
        while grown:
            grown = False
            for fn in model.functions:
                if fn.name not in with_kernels and any(c.name in with_kernels
                                                       for c in fn.calls):
                    with_kernels.add(fn.name)
                    grown = True
        return frozenset(with_kernels)

    return name in model.cached("omp functions running kernels", build)


def _escapes(use) -> bool:
    """Whether the mention ``use`` of an array of pointers may re-point one of its elements
    other than by a plain ``name[k] = `` (counted from the array refs): the array used bare
    (``double **p = y``, ``y + 1``, passed to a call; ``sizeof y`` aside), or an element's
    address taken (``&y[k]``; ``&y[k][i]`` is the address of a value, which is fine)."""
    if use.unevaluated:
        return False
    return use.role != "subscript" or use.element == "address"
