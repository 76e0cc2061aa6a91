"""Structs that callees' kernels read only through scalar members, mapped once by the caller.

A run's parameters often live in a struct the caller owns and hands on by address
(``add_source(&P, &F)``, the callee's kernel reading ``P->dt`` and ``P->source``). No array
of the caller's data region names ``P``, so the safety net maps it per construct
(``map(to: P[0:1])``, 40 bytes a launch; heat_params_pointer: 200 launches). Where it is
provable, the caller's region maps the struct once instead (``map(to: P)``, as an expert
writes it): the callee's pointer then finds it present, as a pointer parameter bound to a
mapped array does. Proved from the model:

* the struct is a variable of the region's function (no pointer, no element of an array:
  its address is fixed) and the region maps none of its members by name (a struct mapped
  whole beside its own member sections would be mapped twice);
* inside the region, the caller's array references to it only read members or hand its
  address to functions whose parameter does not write through it (a ``const`` pointee, or
  no member write, call or copy of the parameter in the callee), and it writes none of
  its members;
* each such callee's kernels read members of it only, scalar ones (no pointer member, no
  write, no use of the pointer itself), and the callee is called nowhere but inside the
  region, each call handing that parameter ``&P`` itself (a call elsewhere, or given another
  pointer, would find nothing mapped);
* no other function's kernel reads through a pointer spelled like the struct (the report
  takes a region's array names for mapped in every function its device work reaches).

Then the host's copy never changes while the region runs, so ``to`` at its entry is all the
device needs.
"""

from __future__ import annotations

from s2s.analysis.omp.arrays import MappedArray
from s2s.analysis.omp.changes import starts_inside
from s2s.analysis.omp.member_counts import MEMBER
from s2s.analysis.omp.state import norm_text


def callee_structs(model, region) -> tuple[list[MappedArray], tuple[tuple[str, str], ...]]:
    """(the structs to map ``to`` in ``region``, the (callee, parameter) names its kernels
    reach them by) (module doc)."""
    function = model.function(region.function)
    if function is None or function.body is None:
        return [], ()
    span = (region.first.span.file, region.first.span.start, region.last.span.end)
    mapped = {norm_text(a.name) for a in region.arrays}
    refs: dict[str, list] = {}
    for ref in model.in_function("array_refs", region.function):
        if starts_inside(ref.span, span):
            refs.setdefault(ref.root, []).append(ref)
    arrays, names = [], []
    for name in sorted(refs):
        if any(m == name or m.startswith((name + ".", name + "->")) for m in mapped):
            continue
        bound = _bound_callees(model, region.function, name, refs[name], span)
        if bound and all(_every_call_binds(model, function, *b, name) for b in bound) and \
                not _same_spelling(model, name, bound):
            arrays.append(MappedArray(name, "", "to", "release"))
            names += [b for b in bound if b not in names]
    return arrays, tuple(names)


def _every_call_binds(model, caller, callee: str, param: str, name: str) -> bool:
    """Whether every call of ``callee`` (all of them ``caller``'s, inside the region) hands
    the parameter ``param`` the address of ``name``: a call given any other pointer
    (``relax(pq, ...)``) would find nothing mapped."""
    k = [p.name for p in model.function(callee).params].index(param)
    return all(k < len(call.args) and
               norm_text(call.args[k].text).replace(" ", "") == "&" + name
               for call in caller.calls if call.name == callee)


def _same_spelling(model, name: str, bound) -> bool:
    """Whether a kernel of a function not among ``bound`` reads through a pointer spelled
    ``name`` (``P->dt`` of another function's ``P``): the report takes the region's
    array names for mapped wherever its device work runs, so mapping the struct would
    claim that pointer mapped too."""
    return any(ref.directive is not None and ref.root == name and
               "->" in norm_text(ref.array) and (ref.function, name) not in bound
               for ref in model.array_refs)


def _bound_callees(model, caller: str, name: str, refs, span) -> list[tuple[str, str]]:
    """(callee, parameter) for each callee whose kernels read ``name``'s scalar members
    through the parameter bound to ``&name``; [] when any use of ``name`` in the region
    (its array references there), or any callee, breaks a condition of the module doc."""
    if any(w.base == name and starts_inside(w.extent, span)
           for w in model.in_function("member_writes", caller)):
        return []
    bound = []
    for ref in refs:
        array = norm_text(ref.array)
        if ref.pointer or ref.subscripts or ref.directive is not None:
            return []       # a pointer, an array of structs, or a kernel of the caller's own
        if ref.call is None:
            if ref.mode != "read" or not array.startswith(name + "."):
                return []   # (a member read: ``P.steps`` in the loop's condition)
            continue
        callee = model.function(ref.call)
        if array != name or callee is None or callee.body is None or ref.arg_index is None \
                or ref.arg_index >= len(callee.params):
            return []
        param = callee.params[ref.arg_index]
        if not param.is_pointer or not _reads_only(model, callee, param):
            return []
        kernel = _kernel_reads(model, callee.name, param.name)
        if kernel is None or not _called_only_inside(model, callee.name, caller, span):
            return []
        if kernel and (callee.name, param.name) not in bound:
            bound.append((callee.name, param.name))
    return bound


def _reads_only(model, callee, param) -> bool:
    """Whether ``callee`` never writes through ``param`` on the host: a ``const`` pointee,
    or no member write of it, no copy of it, and no array reference to it but member reads
    (none handing it to a call)."""
    if param.pointee_const:
        return True
    name = callee.name
    if any(w.base == param.name for w in model.in_function("member_writes", name)) or \
            any(c.source == param.name for c in model.in_function("pointer_copies", name)):
        return False
    return all(ref.mode == "read" and ref.call is None and
               norm_text(ref.array).startswith(param.name + "->")
               for ref in model.in_function("array_refs", name)
               if ref.root == param.name and ref.directive is None)


def _kernel_reads(model, callee: str, param: str) -> bool | None:
    """Whether ``callee``'s kernels reach ``param`` at all; None when one reaches it other
    than by reading a scalar member (``param->dt``)."""
    found = False
    for ref in model.in_function("array_refs", callee):
        if ref.directive is None or ref.root != param:
            continue
        member = MEMBER.fullmatch(norm_text(ref.array))
        if member is None or member.group(1, 2) != (param, "->") or ref.pointer or \
                ref.mode != "read":
            return None
        found = True
    for use in model.in_function("var_uses", callee):
        if use.name == param and use.role != "member" and _in_kernel(model, use.span):
            return None     # the pointer itself used on the device (handed on, compared)
    return found


def _in_kernel(model, span) -> bool:
    return any(d.is_target_region and d.stmt_span is not None and starts_inside(span, (
        d.stmt_span.file, d.stmt_span.start, d.stmt_span.end)) for d in model.directives)


def _called_only_inside(model, callee: str, caller: str, span) -> bool:
    """Whether every call of ``callee`` in the program is one of ``caller`` inside ``span``
    (and its address is never taken)."""
    if any(ref.name == callee for ref in model.function_refs):
        return False
    return all(f.name == caller and starts_inside(call.span, span)
               for f in model.functions for call in f.calls if call.name == callee)

