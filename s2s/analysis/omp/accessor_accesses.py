"""Host accesses through member functions of storage a pointer took from an accessor.

``double *l = d.lists();`` names the storage of ``d``'s private vector ``list_``
(omp.accessor_counts). Later calls of ``d``'s member functions reach the same elements
without naming ``l`` (frontend.cxx.member_calls): ``d.list(step) = -1.0`` writes element
``step``, ``s += d.result(r)`` reads an element of another vector, ``d.sum()`` reads all of
them. The plan saw none of it: a data region over the kernels copied nothing back while the
output read ``d.result(r)`` (wrong output, "0 left unmapped"). Each such call becomes a host
access of the pointer, made after the pointer took its value in the same function:

* an element accessor: ``l[index]`` with the call's mode (an element the host writes goes
  to the device before the next kernel reads it; one it reads comes back);
* any other method naming the vector (in this file or, through its ``member_mentions``,
  another file of the program), or one whose body the program does not show: the whole
  array (an access the pointer is handed to, ``readwrite``, or ``read`` for a const method).
"""

from __future__ import annotations

from dataclasses import replace

from s2s.model import TranslationUnit
from s2s.model.access import ArrayRef
from s2s.model.span import Expr


def with_accessor_accesses(model: TranslationUnit) -> TranslationUnit:
    """``model`` with the host accesses of the module doc added to its array references;
    ``model`` itself when there is none."""
    values = [f for f in model.classes if f.kind == "accessor_value"]
    calls = [f for f in model.classes if f.kind == "member_call"]
    if not values or not calls:
        return model
    mentions = {(f.class_name, f.names[0]): set(f.names[1:]) for f in model.classes
                if f.kind == "member_mentions"}
    added = []
    for value in values:
        target, function, obj, _arrow, field, _element = value.names
        for call in calls:
            owner, obj_of, method, kind, index, mode, *members = call.names
            if call.class_name != value.class_name or owner != function or obj_of != obj or \
                    call.span.start < value.span.end:
                continue
            if kind == "unknown" and (call.class_name, method) in mentions:
                kind, members = "call", sorted(mentions[call.class_name, method])
            if kind == "element" and members == [field]:
                added.append(ArrayRef(target, target, mode, (Expr(index, call.span),),
                                      call.span, function, pointer=True))
            elif kind == "unknown" or (kind == "call" and field in members):
                added.append(ArrayRef(target, target, mode, (), call.span, function,
                                      call=f"{obj}.{method}", arg_index=0, pointer=True))
    if not added:
        return model
    merged = sorted(model.array_refs + tuple(added), key=lambda r: (r.span.start, r.span.end))
    return replace(model, array_refs=tuple(merged))
