"""Index ranges the host touches: the sub-array a ``target update`` has to move.

When the host reads only a boundary row, one element of a flag array or a strided column
block inside some statement, copying the whole array is waste. Index expressions are read
as polynomials over the program's integer variables with integer coefficients (anything
else — a division, a call — is an opaque atom). An index affine in the counters of the
canonical ``for`` loops around it (``for (i = lo; i < hi; i++)``, ``<=`` too), with
coefficients that are non-negative constants or sizes, ranges from its value at the lower
bounds to its value at the last iteration; the section is the contiguous hull
``[lowest : highest - lowest + 1]``. Any doubt gives None and the caller copies the whole
array.
"""

from __future__ import annotations

import re

from s2s.analysis.omp.ir import Access, CallEvent, Copy, FunctionIR, Node
from s2s.analysis.omp.loops import LOOP_KINDS, loop_range
from s2s.analysis.polynomial import (
    NotPoly,
    Poly,
    add,
    assigned_in,
    poly,
    render,
    scale,
    substitute,
)


def host_section(anchor: Node, name: str, text, aliases: frozenset = frozenset()
                 ) -> str | None:
    """``[lo:len]`` of the elements of ``name`` the host reads inside ``anchor``, or None."""
    sections = host_sections([anchor], name, text, limit=1, aliases=aliases)
    return sections[0] if sections else None


def host_sections(anchors: list[Node], name: str, text, limit: int = 6,
                  aliases: frozenset = frozenset(), same: frozenset = frozenset(),
                  irs: dict[str, FunctionIR] | None = None) -> list[str] | None:
    """The distinct ``[lo:len]`` sections of ``name`` the host reads inside ``anchors`` (at
    most ``limit``; one directive each, as OpenMP allows one section of an array per
    directive), or None when some access cannot be bounded, is a write, or goes through a
    call. Reads through the pointers in ``same`` (which certainly hold the same address)
    count as reads of ``name``. With ``irs``, a call to a function of the file that touches
    none of these names on the host (see ``call_roots``) is passed over."""
    ranges: list[tuple[Poly, Poly]] = []
    roots = {_root(n) for n in {name} | set(aliases) | set(same)}
    for anchor in anchors:
        for node in anchor.walk():
            for event in node.events + node.cond + node.step:
                if isinstance(event, CallEvent):
                    touched = call_roots(irs, event, text) if irs is not None else None
                    if touched is None or touched & roots:
                        return None
                    continue
                mine = isinstance(event, Access) and (event.name == name or event.name in same)
                if isinstance(event, Access) and not mine and event.name in aliases:
                    return None  # read through another pointer to the same storage
                if not mine or event.side != "H":
                    continue
                if event.writes or event.ref is None or len(event.ref.subscripts) != 1:
                    return None
                found = ref_range(event.ref.subscripts[0].text, node, anchor, text)
                if found is None:
                    return None
                if found not in ranges:
                    ranges.append(found)
    if not ranges or len(ranges) > limit:
        return None
    variables = {v for low, high in ranges for atom in atoms_of(low) | atoms_of(high)
                 for v in re.findall(r"[A-Za-z_]\w*", atom)}
    texts = [text(a.stmt) for a in anchors if a.stmt is not None]
    if any(assigned_in(v, t) for v in variables for t in texts):
        return None  # the bounds change while the statements run: the copy cannot go first
    out = []
    for low, high in ranges:
        length = add(add(high, scale(low, -1)), {(): 1})
        out.append(f"[{render(low)}:{render(length)}]")
    return out


def _root(name: str) -> str:
    found = re.search(r"[A-Za-z_]\w*", name)
    return found.group(0) if found else name


def call_roots(irs: dict[str, FunctionIR], call: CallEvent, text, depth: int = 0
               ) -> frozenset[str] | None:
    """The caller's variables through which ``call`` may touch storage on the host: the
    leading identifier of every name its callee (and the functions it calls) accesses or
    copies on the host, a parameter replaced by the identifiers of its argument. A callee
    that only frees its arguments' pointers through a local table touches none of the
    caller's arrays. None: a callee without a body here, too deep, or one that reaches
    storage through a name that is neither a parameter nor declared in it (a global pointer
    may hold any array's address)."""
    if call.alternatives:  # through a function pointer: whatever any of them touches
        found = [call_roots(irs, one, text, depth) for one in call.each_target()]
        return None if None in found else frozenset().union(*found)
    ir = irs.get(call.callee)
    if ir is None or depth > 8 or ir.function.body is None:
        return None
    params = [p.name for p in ir.function.params]
    binding = {p: frozenset(re.findall(r"[A-Za-z_]\w*", arg))
               for p, arg in zip(params, call.args, strict=False)}
    binding.update({p: frozenset() for p in params[len(call.args):]})
    roots: set[str] = set()

    def caller_terms(name: str) -> frozenset[str] | None:
        head = _root(name)
        if head in binding:
            return binding[head]
        return frozenset() if ir.scalar_locals is not None and head in ir.scalar_locals \
            else None

    for node in ir.root.walk():
        for event in node.events + node.cond + node.step:
            names: list[str] = []
            if isinstance(event, Access) and event.side == "H":
                names = [event.name]
            elif isinstance(event, Copy):
                names = [event.target] + ([event.source] if event.source is not None else [])
            elif isinstance(event, CallEvent):
                inner = call_roots(irs, event, text, depth + 1)
                if inner is None:
                    return None
                names = sorted(inner)
            for name in names:
                terms = caller_terms(name)
                if terms is None:
                    return None
                roots |= terms
    return frozenset(roots)


def ref_range(index: str, node: Node, anchor: Node, text):
    try:
        value = poly(index)
    except NotPoly:
        return None
    low, high = value, value
    walker = node
    while walker is not None:
        if walker.kind == "loop" and walker.loop_kind in LOOP_KINDS:
            bounds = loop_range(walker.stmt)
            counters = _counters(walker)
            if bounds is None:
                if any(c in atoms_of(value) for c in counters):
                    return None
            else:
                var, first, last = bounds
                low, ok_low = substitute(low, var, first)
                high, ok_high = substitute(high, var, last)
                if not (ok_low and ok_high):
                    return None
        if walker is anchor:
            break
        walker = walker.parent
    return low, high


def _counters(loop: Node) -> set[str]:
    stmt = loop.stmt
    names = set()
    if stmt is not None and stmt.step is not None:
        names |= set(re.findall(r"[A-Za-z_]\w*", stmt.step.text))
    return names


def atoms_of(p: Poly) -> set[str]:
    return {atom for key in p for atom in key}
