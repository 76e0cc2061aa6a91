"""Checks of a transfer region's buffers, split from :mod:`host_code`: how host statements
use the buffers (what may let one escape), and which buffers may go into the pools.

A mixin of ``host_code._Extractor``: the methods read its ``space``, ``local``, ``index``,
``alloc_at``, ``free_at``, ``allocation_spans``, ``size_words`` and ``source``.
"""

from __future__ import annotations

import bisect

from s2s.analysis.transfers.host_hoist import hoistable
from s2s.analysis.transfers.region import DEVICE, HOST
from s2s.model import Stmt
from s2s.model.host_facts import CHANGING_ROLES, DECLARING_ROLES

#: roles of a mention (``s2s.model.host_facts``) that give a variable a new value
CHANGING = DECLARING_ROLES | CHANGING_ROLES
#: roles of a buffer's mention in a host statement that let nothing escape: declared without
#: a value (a cudaMalloc target), or tested against null
HARMLESS = frozenset({"declare", "null-init", "null-test"})


def _covering(spans) -> list[tuple[int, int]]:
    """Sorted, disjoint ``[start, end)`` ranges covering the same offsets as ``spans``."""
    merged: list[list[int]] = []
    for start, end in sorted((s.start, s.end) for s in spans if s.end > s.start):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def _covered(ranges: list[tuple[int, int]], at: int) -> bool:
    i = bisect.bisect_right(ranges, (at, float("inf"))) - 1
    return i >= 0 and ranges[i][0] <= at < ranges[i][1]


class BufferChecks:
    """Uses of buffers in host statements, and pools (see the module docstring)."""

    # -- uses of buffers in host statements --------------------------------------------

    def _check_uses(self, stmt: Stmt, allowed: set[str] = frozenset()) -> None:
        """Every mention of a buffer in a host statement must be an array access, a null test
        or a call argument the access extraction saw, or declare it without a value; anything
        else may let it escape (mentions from the AST: ``block.x`` does not mention ``x``)."""
        fresh = self._first_allocations(stmt)
        nulled = self._nulled_before_allocation(stmt)
        for copy in self.index.pointer_copies.inside(stmt.span):
            if copy.source is None and any(u.name == copy.target and u.role == "null-init"
                                           for u in self._uses(copy.span)):
                continue  # T *d = NULL: no storage yet, nothing aliased
            if copy.source is None and copy.target in nulled:
                continue  # d = 0; before cudaMalloc(&d, ...): no storage yet either
            if copy.source is None and copy.target in fresh:
                continue  # if ((h = malloc(n)) == NULL): its first storage
            if copy.target in self.aliases():
                continue  # one of several device buffers, followed at its uses (host_choices)
            renamed = self.renamed_alias(copy.target)
            if renamed is not None:
                self._refuse(f"'{copy.target}' holds a device buffer that the pointer assignment at line "
                             f"{renamed.line} renames before '{copy.target}' is used", copy.span, "transfers-escape")
            if copy.source in self.space or (copy.target in self.space and copy.target not in allowed):
                self._refuse(f"'{copy.source or copy.target}' is aliased or reassigned", copy.span,
                             "transfers-escape")
        refs = self.index.array_refs.inside(stmt.span)
        for ref in refs:
            if ref.root in self.space and ref.call in ("realloc", "free"):
                self._refuse(f"'{ref.root}' is passed to {ref.call}", ref.span, "transfers-realloc")
            if ref.root in self.space and self.space[ref.root] == DEVICE:
                self._refuse(f"device buffer '{ref.root}' is used in host code", ref.span, "transfers-escape")
        in_refs = _covering(r.span for r in refs)
        for use in self._uses(stmt.span):
            if use.name not in self.space or use.name in allowed or _covered(in_refs, use.span.start) \
                    or self.alias_assignment(use.span):
                continue
            if use.role in HARMLESS or (use.role in ("assign", "init") and use.name in fresh) or \
                    use.role == "assign" and use.name in nulled:
                continue  # declared without a value (a cudaMalloc target), a null test, a first allocation
            self._refuse(f"'{use.name}' is used in a way the transfer rewrite cannot follow", use.span,
                         "transfers-escape")

    def _nulled_before_allocation(self, stmt: Stmt) -> set[str]:
        """Device buffers ``stmt`` sets to a null constant (``d = 0;``) before the statement
        that allocates them here: the pointer holds no storage yet, as after ``T *d = 0;``
        (an allocation helper's ``T *p = 0;`` inlined at ``d = helper(n);``)."""
        found = set()
        for use in self._uses(stmt.span):
            if use.role != "assign" or not use.null or self.space.get(use.name) != DEVICE or \
                    use.name not in self.local:
                continue
            allocating = self.function.body.children[self.alloc_at[use.name]]
            if stmt.span.end <= allocating.span.start:
                found.add(use.name)
        return found

    def _first_allocations(self, stmt: Stmt) -> set[str]:
        """Host buffers ``stmt`` gives their first storage other than by a pooled ``malloc``
        declaration (``if ((h = (float *)malloc(n)) == NULL)``, ``float *h = new float[n];``):
        the function allocates the buffer only here and mentions it before only to declare
        it. Not an alias: the buffer is followed from here on as one whose storage comes from
        outside the region (not pooled)."""
        found = set()
        for alloc in self.model.in_function("allocations", self.function.name):
            if not stmt.span.contains(alloc.span) or alloc.name in self.local:
                continue
            others = [a for a in self.model.in_function("allocations", self.function.name)
                      if a.name == alloc.name]
            earlier = [u for u in self.index.var_uses.inside(self.function.span)
                       if u.name == alloc.name and u.span.start < stmt.span.start]
            if len(others) == 1 and all(u.role in ("declare", "null-init") for u in earlier):
                found.add(alloc.name)
        return found

    # -- pools --------------------------------------------------------------------------

    def _poolable(self, name: str, statements: list) -> bool:
        """A buffer goes into a pool when it is allocated and freed at the top level here
        (host: by a malloc declaration) and its size can be computed where
        the pools are made (nothing in between declares or assigns a name the size uses, but
        a declaration that may move up to the pools: ``host_hoist``)."""
        if name not in self.local or name not in self.free_at:
            return False
        at = self.alloc_at[name]
        if self.space[name] == HOST:
            stmt = statements[at].stmt
            span = self.allocation_spans[name]
            tail = self.source[span.end:stmt.span.end].decode(errors="replace")
            # The frontend takes a malloc in a declaration as the allocation of a variable only
            # when the call (through casts and parentheses) is the declarator's whole initializer
            # (``host_alloc._target``, from the AST); this text test only checks that the edited
            # span ends it: at most the closing parenthesis of a cast, then the end of the
            # statement or the next declarator (``float *a = (float *)malloc(n), *b = ...;``).
            end = tail.split(",", 1)[0] + (";" if "," in tail else "")
            if end.strip() not in ("", ";", ")", ");") or end.count(")") > 1:
                return False
        if self.pool_start is None:  # the same for every buffer
            self.pool_start = min(self.alloc_at[n] for n in self.local if n in self.free_at)
        start = self.pool_start
        moved = []
        for word in self.size_words[name]:
            hits = self._changed_at(word, statements)
            for hit in hits[bisect.bisect_left(hits, start):bisect.bisect_left(hits, at)]:
                if not hoistable(statements, hit, start, self.function.span, self._uses):
                    return False
                moved.append(hit)  # a declaration the size needs goes up to the pools (host_hoist)
        self.hoisted.update((hit, start) for hit in moved)
        return True

    def _changed_at(self, word: str, statements: list) -> list[int]:
        """Indices of the statements that declare ``word``, assign it or take its address
        (from the AST's mentions, collected once for all words)."""
        if self.changed is None:
            self.changed = {}
            for i, entry in enumerate(statements):
                for use in self._uses(entry.stmt.span):
                    if use.role in CHANGING:
                        hits = self.changed.setdefault(use.name, [])
                        if not hits or hits[-1] != i:
                            hits.append(i)
        return self.changed.get(word, [])
