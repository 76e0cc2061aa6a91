"""Hand-written data mappings compared with the planned one: keep, tighten, or question.

A function whose own ``target data`` / ``enter data`` directives already keep every array
its target regions use on the device is the work of someone who thought about it; s2s
replaces it only when the plan is provably no worse. Both mappings are reduced to their
*transfers* (entry copies, exit copies, ``target update`` directives with the statement they
precede and how many loops enclose it). The plan replaces the hand-written mapping when each
of its transfers is matched by a hand-written one of the same kind and array that copies at
least the same section, no more often (no deeper in loops). The hand-written transfers left
over are then redundant and are reported as such. When the plan needs a kind of copy the
hand-written mapping never makes, the hand-written one may read stale data: it is kept and
that is reported, since the analysis is conservative and could be wrong about a path the
author knows cannot happen.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.omp.ir import Copy, FunctionIR, Node
from s2s.analysis.omp.place import PlannedUpdate, same_section
from s2s.analysis.omp.sizes import alias_groups
from s2s.analysis.omp.state import norm_text
from s2s.model import SourceSpan, TranslationUnit


@dataclass(frozen=True)
class Transfer:
    """One copy a mapping makes: ``kind`` is ``to``/``from`` (at the region's entry/exit) or
    ``update to``/``update from``; ``anchor`` the start of the statement an update precedes
    and ``depth`` the number of loops around it."""

    kind: str
    base: str
    item: str
    span: SourceSpan | None = None
    anchor: int | None = None
    depth: int = 0
    reason: str = ""

    def describe(self) -> str:
        if self.kind.startswith("update"):
            return f"'target update {self.kind.split()[1]}({self.item})'"
        return f"the {'entry' if self.kind == 'to' else 'exit'} copy of {self.item}"


@dataclass(frozen=True)
class Verdict:
    """``replace``: the plan is used; ``redundant``: hand-written transfers it drops;
    ``missing``: a planned transfer the hand-written mapping never makes (kept as written);
    ``wider``: a planned transfer the hand-written mapping makes, but smaller or less
    often (kept as written)."""

    replace: bool
    redundant: tuple[Transfer, ...] = ()
    missing: Transfer | None = None
    wider: Transfer | None = None


def replaces_hand_mapping(model: TranslationUnit, ir: FunctionIR, directives, tracked,
                          lengths: dict[str, str], warnings: list, region_end: int,
                          planned_copies, callee_transfers=()) -> bool:
    """Whether the plan replaces the function's own data directives (omp.existing): a
    mapping that leaves arrays to per-kernel copies is re-planned unless it provably copies
    less than the plan; one that keeps every array on the device only when the plan
    provably copies no more. ``callee_transfers``: the copies of its callees' enter/exit
    data the plan also replaces (omp.callee_maps), in this function's names."""
    renamed = member_locals(ir)
    user_mapped = {renamed.get(norm_text(item.base), norm_text(item.base)) for d in directives
                   if d.words[:2] in (("target", "data"), ("target", "enter"))
                   for clause in d.maps for item in clause.items}
    user_mapped |= {t.base for t in callee_transfers if t.kind == "to"}
    complete = {norm_text(label) for label in tracked} <= user_mapped
    ours = planned(ir, region_end, *planned_copies)
    name = ir.function.name
    if ours is None:
        if complete:
            warnings.append((f"'{name}' has its own data mapping for every array its "
                             "target regions use; kept as written",
                             "omp-existing-mapping", ir.function.span))
        return not complete
    groups = alias_groups(model, ir.function, 0, 0)
    user = hand_written(model, ir, directives) + list(callee_transfers) + \
        kernel_clauses(model, ir, {norm_text(label) for label in tracked} - user_mapped)
    verdict = compare(user, ours, {norm_text(k): v for k, v in lengths.items()},
                      {norm_text(k): frozenset(norm_text(x) for x in v)
                       for k, v in groups.items()})
    if not complete and verdict.wider is None:
        return verdict.replace or verdict.missing is not None
    _report_kept_or_tightened(warnings, ir, verdict)
    return verdict.replace


def _report_kept_or_tightened(warnings: list, ir: FunctionIR, verdict: Verdict) -> None:
    name = ir.function.name
    kept = f"'{name}' has its own data mapping for the arrays its target regions use; kept " \
           "as written"
    if verdict.missing is not None and verdict.missing.kind == "to":
        # The analysis copies in arrays that kernels overwrite only partly, not knowing
        # whether the rest is ever read: no claim that the author is wrong.
        warnings.append((f"{kept} (s2s's plan would also make "
                         f"{verdict.missing.describe()})", "omp-existing-mapping",
                         ir.function.span))
    elif verdict.missing is not None:
        missing = verdict.missing
        why = f" ({missing.reason})" if missing.reason else ""
        warnings.append((f"the hand-written data mapping of '{name}' never makes "
                         f"{missing.describe()}, which the analysis finds needed{why}; "
                         "kept as written: check it", "omp-suspect-mapping",
                         missing.span or ir.function.span))
    elif verdict.wider is not None:
        warnings.append((f"{kept} (s2s's plan makes {verdict.wider.describe()} more "
                         "widely or more often)", "omp-existing-mapping", ir.function.span))
    for transfer in verdict.redundant if verdict.replace else ():
        warnings.append((f"{transfer.describe()} is not needed on any path that reads "
                         "the copy it makes; s2s's plan drops it", "omp-redundant-copy",
                         transfer.span or ir.function.span))


def member_locals(ir: FunctionIR) -> dict[str, str]:
    """Pointer locals the function sets once, to a struct member (``double *e = d->e``,
    s2s's own ``s2s_e`` handles): a mapping through them is one of the member's storage."""
    copies: dict[str, list] = {}
    for node in ir.root.walk():
        for event in node.events + node.cond + node.step:
            if isinstance(event, Copy):
                copies.setdefault(norm_text(event.target), []).append(event)
    return {target: norm_text(found[0].source) for target, found in copies.items()
            if len(found) == 1 and found[0].source is not None and not found[0].offset
            and ("->" in found[0].source or "." in found[0].source)}


def _renamed(renamed: dict[str, str], base: str, item: str) -> tuple[str, str]:
    base, item = norm_text(base), norm_text(item)
    if base in renamed and item.startswith(base):
        return renamed[base], renamed[base] + item[len(base):]
    return base, item


def hand_written(model: TranslationUnit, ir: FunctionIR, directives) -> list[Transfer]:
    """The transfers of the function's own data directives."""
    nodes = [n for n in ir.root.walk() if n.stmt is not None]
    renamed = member_locals(ir)
    out = []
    for directive in directives:
        words = directive.words[:2]
        if words == ("target", "update"):
            anchor = _next_statement(nodes, directive.span.end)
            for clause in directive.clauses:
                if clause.name not in ("to", "from"):
                    continue
                for item in clause.items:
                    out.append(Transfer(f"update {clause.name}",
                                        *_renamed(renamed, item.base, item.text), directive.span,
                                        anchor.stmt.span.start if anchor else None,
                                        _loop_depth(anchor) if anchor else 0))
            continue
        for clause in directive.maps:
            kinds = {"to": ("to",), "tofrom": ("to", "from"), "from": ("from",)}
            if words == ("target", "exit"):
                kinds = {"from": ("from",)}
            for kind in kinds.get(clause.map_type, ()):
                for item in clause.items:
                    out.append(Transfer(kind, *_renamed(renamed, item.base, item.text),
                                        directive.span))
    return out


def kernel_clauses(model: TranslationUnit, ir: FunctionIR, arrays: set[str]) -> list[Transfer]:
    """The copies the map clauses of the function's target regions make for ``arrays``
    (those no data directive keeps on the device; scalars are not compared):
    ``map(from: h[0:n])`` on a kernel is a copy back after every launch, like a
    ``target update from`` after it."""
    out = []
    for node in ir.root.walk():
        if node.kind != "kernel" or node.directive is None:
            continue
        directive = model.directives[node.directive]
        for clause in directive.maps:
            kinds = {"to": ("to",), "tofrom": ("to", "from"), "from": ("from",)}
            for motion in kinds.get(clause.map_type, ()):
                for item in clause.items:
                    if norm_text(item.base) not in arrays:
                        continue
                    out.append(Transfer(f"update {motion}", norm_text(item.base),
                                        norm_text(item.text), directive.span,
                                        node.stmt.span.start, _loop_depth(node)))
    return out


def planned(ir: FunctionIR, region_end: int, arrays, updates: tuple[PlannedUpdate, ...],
            exit_updates: tuple[str, ...], entry_updates: tuple[str, ...] = ()
            ) -> list[Transfer] | None:
    """The transfers of a plan; None when it places copies in other functions (not
    comparable with directives of this one). Copies at the region's exit are anchored at
    its end (``region_end``)."""
    out = []
    for array in arrays:
        item = norm_text(array.name + array.section)
        if array.enter == "to":
            out.append(Transfer("to", norm_text(array.name), item))
        if array.exit == "from":
            out.append(Transfer("from", norm_text(array.name), item, anchor=region_end))
    out += [Transfer("from", norm_text(item.partition("[")[0]), norm_text(item),
                     anchor=region_end) for item in exit_updates]
    out += [Transfer("to", norm_text(item.partition("[")[0]), norm_text(item))
            for item in entry_updates]
    by_stmt = {id(n.stmt): n for n in ir.root.walk() if n.stmt is not None}
    for update in updates:
        node = by_stmt.get(id(update.anchor))
        if update.function != ir.function.name or node is None:
            return None
        out.append(Transfer(f"update {update.motion}", norm_text(update.item.partition("[")[0]),
                            norm_text(update.item), update.at, update.anchor.span.start,
                            _loop_depth(node), update.reason))
    return out


def compare(user: list[Transfer], plan: list[Transfer], lengths: dict[str, str],
            aliases: dict[str, frozenset] | None = None) -> Verdict:
    """Whether the plan may replace the hand-written mapping, and why (module docstring).
    ``aliases`` maps a pointer to the others that may point into the same storage."""
    aliases = aliases or {}
    if _keys(user) == _keys(plan):
        return Verdict(replace=False)
    used: set[int] = set()
    narrower = False
    for transfer in plan:
        # A copy back at the region's end may be written as a ``target update from``
        # inside it just as well.
        same_kind = [i for i, u in enumerate(user)
                     if u.base == transfer.base and _same_kind(u, transfer)]
        if not same_kind:
            if any(u.base in aliases.get(transfer.base, ()) for u in user):
                # Copied through another pointer to the same storage (``mid = img + k``):
                # the sections cannot be compared, so no claim that one is missing.
                return Verdict(replace=False, wider=transfer)
            return Verdict(replace=False, missing=transfer)
        covering = [i for i in same_kind if _covers(user[i], transfer, lengths)]
        if not covering:
            return Verdict(replace=False, wider=transfer)
        # Prefer the hand-written copy at the same statement: it is the one kept.
        exact = [i for i in covering if user[i].anchor == transfer.anchor]
        match = user[(exact or covering)[0]]
        used.add((exact or covering)[0])
        narrower |= not same_section(match.item, transfer.item) or match.depth > transfer.depth
    redundant = tuple(u for i, u in enumerate(user) if i not in used)
    # Same copies, only placed or grouped differently: the author's text stays.
    return Verdict(replace=bool(redundant) or narrower, redundant=redundant)


def _same_kind(user: Transfer, transfer: Transfer) -> bool:
    if transfer.kind == "from":
        # A copy back at the region's end may be written as a ``target update from`` after
        # the last statement that needs the device (and before the region closes).
        # (A callee's exit data counts where it is called: its anchor.)
        where = user.anchor if user.anchor is not None else \
            (user.span.start if user.span is not None else None)
        return user.kind == "from" or (user.kind == "update from" and where is not None
                                       and where >= (transfer.anchor or 0))
    return user.kind == transfer.kind


def _covers(user: Transfer, transfer: Transfer, lengths: dict[str, str]) -> bool:
    whole = lengths.get(user.base)
    wide = same_section(user.item, transfer.item) or \
        (whole is not None and same_section(user.item, user.base + whole))
    return wide and user.depth >= transfer.depth


def _keys(transfers: list[Transfer]) -> list[tuple]:
    return sorted((t.kind, t.base, t.item, t.anchor if t.kind.startswith("update") else -1)
                  for t in transfers)


def _next_statement(nodes: list[Node], offset: int) -> Node | None:
    after = [n for n in nodes if n.stmt.span.start >= offset]
    return min(after, key=lambda n: (n.stmt.span.start, -n.stmt.span.end)) if after else None


def _loop_depth(node: Node) -> int:
    depth, parent = 0, node.parent
    while parent is not None:
        depth += parent.kind == "loop"
        parent = parent.parent
    return depth
