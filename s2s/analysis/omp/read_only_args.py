"""A struct's address handed to functions that only read its members (issue 28).

``laplacian(&mesh, U, AU)`` in a time loop takes ``mesh``'s address, and a data region around
the loop maps ``U[0:mesh.N]``: the plan must know that ``mesh.N`` stays the same inside the
loop. An address taken may let the callee write anything, so the count was refused and every
kernel mapped per construct (AMD's Jacobi shape: a ``mesh_t *`` passed to each kernel's
function). When the callee is a function of the program and its parameter is used only as
``m->field`` (no other use: not copied, not passed on, not dereferenced whole) the address
reaches nothing but member reads and the member writes ``omp.sections.changing_term`` already
looks for in every called function (``m->N = ...``): the call leaves ``mesh`` as it was.

:func:`without_read_only_addresses` gives the region's text with those ``&mesh`` arguments
written ``mesh`` (an argument ``changing_term`` then reads as a use, not an address taken),
only for a name all of whose addresses in the region go to such calls.
"""

from __future__ import annotations

import re

from s2s.analysis.omp.ir import CallEvent, Node

_ADDRESS = re.compile(r"&\s*([A-Za-z_]\w*)\Z")
_NOT_CODE = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", re.S)


def without_read_only_addresses(region: str, nodes: list[Node], irs, text) -> str:
    """``region`` with ``&s`` written ``s`` where every address of ``s`` it takes is an
    argument of a call whose parameter only reads members (module doc)."""
    verified: dict[str, int] = {}
    refused: set[str] = set()
    for top in nodes:
        for node in top.walk():
            for event in node.events + node.cond + node.step:
                if not isinstance(event, CallEvent) or event.indirect:
                    continue
                for k, arg in enumerate(event.args):
                    found = _ADDRESS.match(arg.strip())
                    if found is None:
                        continue
                    name = found.group(1)
                    if _reads_members_only(irs, event.callee, k, text):
                        verified[name] = verified.get(name, 0) + 1
                    else:
                        refused.add(name)
    code = _NOT_CODE.sub(" ", region)
    for name, count in verified.items():
        pattern = re.compile(rf"(?<!&)&(?!&)\s*{re.escape(name)}\b")
        if name in refused or len(pattern.findall(code)) != count:
            continue
        region = pattern.sub(name, region)
    return region


def _reads_members_only(irs, callee: str, index: int, text) -> bool:
    """Whether parameter ``index`` of ``callee`` appears in its body only as ``p->field``
    (assignments to such members are changing_term's to find)."""
    ir = irs.get(callee)
    if ir is None or ir.function.body is None or index >= len(ir.function.params):
        return False
    param = ir.function.params[index].name
    if not param:
        return False
    body = _NOT_CODE.sub(" ", text(ir.function.body))
    uses = list(re.finditer(rf"(?<![\w.>]){re.escape(param)}\b", body))
    return all(re.match(r"\s*->\s*[A-Za-z_]\w*", body[m.end():]) for m in uses)
