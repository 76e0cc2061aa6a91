"""Hand-written ``enter``/``exit data`` in called functions, replaced by the caller's plan.

A common shape: ``device_init()`` fills an array and puts it on the device with ``target
enter data``, ``device_finalize()`` brings it back with ``target exit data map(from: ...)``,
and ``main`` calls both around its time loop. The plan of ``main`` is computed from the
program's accesses alone, so it can take over these directives, which is how it brings back
only what kernels wrote (``f[1:n-2]`` when they never write the end points). It does so only
where nothing else can depend on them:

* the program has one function with device work that no other calls (``main``), so no
  launch outside the plan's region relies on a device copy those directives made;
* the directives are stand-alone ``enter``/``exit data`` (a ``target data`` region or a
  ``target update`` in a callee still leaves the caller as written);
* the functions holding them are called from the root only, not inside a loop;
* every array the region's kernels use gets mapped by the plan (checked by the caller).

Their sections tell the element counts of arrays whose allocation the caller cannot see
(``f = device_init(n)``), in the caller's names: a pointer parameter becomes its argument,
a scalar parameter its argument's expression.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from s2s.analysis.omp.changes import assigns_any
from s2s.analysis.omp.existing import Transfer
from s2s.analysis.omp.ir import CallEvent, FunctionIR
from s2s.analysis.omp.locals import static_table_entry
from s2s.analysis.omp.state import Unsupported, norm_text
from s2s.analysis.polynomial import NotPoly, poly, render
from s2s.model import SourceSpan, TranslationUnit

ENTER_EXIT = (("target", "enter"), ("target", "exit"))


@dataclass(frozen=True)
class CalleeMappings:
    spans: tuple[SourceSpan, ...] = ()  # the directives the plan replaces
    lengths: tuple[tuple[str, str], ...] = ()  # (label, "[0:count]") in the root's names
    transfers: tuple[Transfer, ...] = ()  # what they copy, for omp.existing


def callee_mappings(model: TranslationUnit, irs: dict[str, FunctionIR], root: FunctionIR,
                    roots: list[str], callees: set[str], source: bytes,
                    data_words) -> CalleeMappings:
    """The callees' data directives the plan of ``root`` may replace (module docstring);
    raises Unsupported when there are some it may not."""
    found = {c: [d for d in model.in_function("directives", c) if d.words[:2] in data_words
                 and not static_table_entry(model, d, source)] for c in sorted(callees)}
    found = {c: ds for c, ds in found.items() if ds}
    if not found:
        return CalleeMappings()
    first = next(iter(found))
    why = f"'{first}', which it calls, has its own target data/update directives"
    if roots != [root.function.name] or any(d.words[:2] not in ENTER_EXIT
                                           for ds in found.values() for d in ds):
        raise Unsupported(why)
    spans, lengths, transfers = [], {}, []
    for callee, directives in found.items():
        site = _call_site(irs, root, callee)
        if site is None:
            raise Unsupported(f"{why}, and is called in a loop or from another function")
        args, anchor = site
        ir = irs[callee]
        body = source[ir.function.body.span.start:ir.function.body.span.end].decode(
            "utf-8", "replace")
        assigned = functools.partial(assigns_any, model, callee)
        binding = {p.name: (a.strip(), p.is_pointer)
                   for p, a in zip(ir.function.params, args, strict=False)}
        for directive in directives:
            spans.append(directive.span)
            for clause in directive.maps:
                kinds = {"to": "to", "tofrom": "to"} if directive.words[1] == "enter" \
                    else {"from": "from", "tofrom": "from"}
                for item in clause.items:
                    base, section, resolved = _in_root(item, binding, body, assigned)
                    if resolved and section is not None and section.startswith("[0:"):
                        lengths.setdefault(base, section)
                    kind = kinds.get(clause.map_type)
                    if kind == "from":
                        # A copy back made while the call runs: at the call's statement.
                        transfers.append(Transfer("update from", norm_text(base),
                                                  norm_text(base + (section or "")),
                                                  directive.span, anchor, 0))
                    elif kind is not None:
                        transfers.append(Transfer(kind, norm_text(base),
                                                  norm_text(base + (section or "")),
                                                  directive.span))
    return CalleeMappings(tuple(spans), tuple(sorted(lengths.items())), tuple(transfers))


def _call_site(irs, root: FunctionIR, callee: str) -> tuple[tuple[str, ...], int] | None:
    """The arguments of the one call of ``callee``, made by ``root`` outside any loop, and
    where its statement starts."""
    sites = []
    for name, ir in irs.items():
        for node in ir.root.walk():
            for event in node.events + node.cond + node.step:
                if isinstance(event, CallEvent) and callee in event.targets:
                    if name != root.function.name or _in_loop(node) or event.alternatives:
                        return None
                    sites.append((event.args, node.stmt.span.start))
    return sites[0] if len(sites) == 1 else None


def _in_loop(node) -> bool:
    parent = node if node.kind == "loop" else node.parent
    while parent is not None:
        if parent.kind == "loop":
            return True
        parent = parent.parent
    return False


def _in_root(item, binding: dict, body: str, assigned) -> tuple[str, str | None, bool]:
    """(base, section, resolved) of a map item in the root's names; ``resolved`` when the
    base names the root's storage for sure (a pointer parameter bound to a plain name, or
    a global: not declared in the callee), no section when it cannot be translated."""
    base = norm_text(item.base)
    if base in binding and binding[base][1] and re.fullmatch(r"[A-Za-z_]\w*", binding[base][0]):
        base, resolved = binding[base][0], True
    elif base in binding:
        return base, None, False
    else:
        resolved = re.fullmatch(r"[A-Za-z_]\w*", base) is not None and re.search(
            rf"[\w\s*]\b{re.escape(base)}\s*(?:\[|=|;|,)", body) is None
    if len(item.sections) != 1 or item.sections[0].length is None:
        return base, None, resolved
    section = item.sections[0]
    parts = [section.lower.text if section.lower else "0", section.length.text]
    out = []
    for part in parts:
        text = _bound_text(part, binding, assigned)
        if text is None:
            return base, None, resolved
        try:
            out.append(render(poly(text)))
        except NotPoly:
            return base, None, resolved
    return base, f"[{out[0]}:{out[1]}]", resolved


def _bound_text(part: str, binding: dict, assigned) -> str | None:
    """``part`` with the callee's scalar parameters replaced by the call's arguments; None
    when it uses any other name, a member, or a parameter the callee may assign
    (``assigned``: a function of names, from the AST's mentions)."""
    failed = []

    def replace(match) -> str:
        name = match.group(0)
        if name not in binding or binding[name][1] or assigned((name,)):
            failed.append(name)
            return name
        return f"({binding[name][0]})"

    text = re.sub(r"(?<![\w.>])[A-Za-z_]\w*", replace, part)
    return None if failed or re.search(r"\.|->", part) else text
