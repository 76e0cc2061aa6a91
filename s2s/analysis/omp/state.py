"""The lattice of the OpenMP dataflow (:mod:`s2s.analysis.omp.flow`): what is known at one point.

A :class:`State` maps each pointer name to the sides ('H', 'D') whose copy of the storage it
points to holds the newest data, to the storage labels it may point to, and to the sections
known stale on the host or surely written by the device; :func:`meet` joins the states of
two paths. A :class:`Failure` records where a copy is needed, a :class:`Frame` how one
function's names map to the root function's while it is interpreted.

These live apart from the interpreter because the planner, its placement of copies and the
coverage run all build and read states and frames without running statements. The package's
shared vocabulary sits here too, at the bottom of its imports: :class:`Unsupported`, which
every stage raises for what it cannot model, and :func:`norm_text`, the one normalization of
expression text by which names and sections are compared everywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from s2s.analysis.omp.ir import Access, Node
from s2s.analysis.polynomial import within

BOTH = frozenset("HD")
HOST = frozenset("H")
_ROOT = re.compile(r"^[A-Za-z_]\w*")


class Unsupported(Exception):
    """A construct the analysis cannot model soundly (goto, recursion with device work)."""


class State:
    """Fresh sides, points-to sets and "untouched since entry" flags per name."""

    __slots__ = ("valid", "pts", "pristine", "entry", "dirty", "cover")

    def __init__(self, entry: dict[str, frozenset]):
        self.entry = entry  # names mapped with `to` start fresh on both sides
        self.valid: dict[str, frozenset] = {}
        self.pts: dict[str, frozenset] = {}
        self.pristine: dict[str, bool] = {}
        #: sections the host wrote since both copies were fresh (None: not known)
        self.dirty: dict[str, frozenset | None] = {}
        #: label -> sections the device surely wrote since the region's entry (see omp.cover)
        self.cover: dict[str, frozenset] = {}

    def copy(self) -> State:
        other = State(self.entry)
        other.valid, other.pts, other.pristine, other.dirty = dict(self.valid), \
            dict(self.pts), dict(self.pristine), dict(self.dirty)
        other.cover = dict(self.cover)
        return other

    def get_dirty(self, name: str) -> frozenset | None:
        if name in self.dirty:
            return self.dirty[name]
        return frozenset() if self.get_valid(name) == BOTH else None

    def get_valid(self, name: str) -> frozenset:
        return self.valid.get(name, self.entry.get(name, HOST))

    def get_pts(self, name: str) -> frozenset:
        return self.pts.get(name, frozenset((name,)))

    def same_storage(self, name: str) -> list[str]:
        """``name`` and the names that certainly point to the same storage (one label)."""
        pts = self.get_pts(name)
        return [other for other in set(self.pts) | set(self.valid) | {name}
                if other == name or (len(pts) == 1 and self.get_pts(other) == pts)]

    def same(self, other: State) -> bool:
        """``self.key() == other.key()`` without building and sorting both keys (the loop
        fixpoint's test, run once per trip of every loop: sorting every entry of two states
        each time was the dataflow's largest cost on a big program)."""
        return self.valid == other.valid and self.pts == other.pts and \
            self.pristine == other.pristine and self.dirty == other.dirty and \
            self.cover == other.cover

    def key(self):
        dirty = tuple(sorted((n, tuple(sorted(d)) if d is not None else None)
                             for n, d in self.dirty.items()))
        cover = tuple(sorted((n, tuple(sorted(c))) for n, c in self.cover.items()))
        return (tuple(sorted(self.valid.items())), tuple(sorted(self.pts.items())),
                tuple(sorted(self.pristine.items())), dirty, cover)


def meet(*states: State | None) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    out = live[0].copy()
    for other in live[1:]:
        # Stale sections first: they depend on the fresh sides before the meet changes them.
        for name in _differing(out.dirty, other.dirty):
            mine, theirs = out.get_dirty(name), other.get_dirty(name)
            out.dirty[name] = None if mine is None or theirs is None else mine | theirs
        for name in _differing(out.valid, other.valid):
            out.valid[name] = out.get_valid(name) & other.get_valid(name)
        for name in _differing(out.pts, other.pts):
            out.pts[name] = out.get_pts(name) | other.get_pts(name)
        for name in _differing(out.pristine, other.pristine):
            out.pristine[name] = out.pristine.get(name, True) and other.pristine.get(name, True)
        for label in _differing(out.cover, other.cover):
            mine, theirs = out.cover.get(label, frozenset()), other.cover.get(label, frozenset())
            # (a nest pattern names one exact set: only the same pattern on both paths holds)
            out.cover[label] = mine & theirs if label.endswith(NEST) else \
                meet_cover(mine, theirs)
    return out


def _differing(mine: dict, theirs: dict) -> list:
    """The names whose entries may change in a meet: those in one table only, and those
    whose values differ (every join here is idempotent: x meet x = x). States of one
    program share most entries, so this skips nearly all of them."""
    if mine == theirs:
        return []
    out = list(mine.keys() ^ theirs.keys())
    out += [name for name, value in theirs.items() if name in mine and mine[name] != value]
    return out


#: the suffix of a ``State.cover`` key holding a label's nest patterns (omp.nest_cover)
NEST = "#nest"


def meet_cover(mine: frozenset, theirs: frozenset) -> frozenset:
    """Sections surely written on both paths: those of one side inside a section of the
    other (an under-approximation of the intersection, which is what a must-fact needs)."""
    return frozenset(s for s in mine if any(within(s, t) for t in theirs)) | \
        frozenset(t for t in theirs if any(within(t, s) for s in mine))


@dataclass(frozen=True)
class Failure:
    """A point where ``name``'s copy on ``side`` must be made fresh first.

    ``node`` is the IR node (in ``function``'s IR) holding the access, ``local`` the name as
    written there, ``name`` the same storage in the analyzed root function's names."""

    node: Node
    function: str
    local: str
    name: str
    labels: frozenset
    side: str
    pristine: bool
    access: Access | None  # None: a copy before a loop (see Interpreter._join_fixes)
    valid: frozenset
    chain: tuple = ()  # (call node, caller frame) from the root to the access's function
    scalars: tuple = ()  # (parameter, argument text) of the access's function
    dirty: frozenset | None = None  # the host-written sections, when only those are stale


@dataclass
class Frame:
    """One function being interpreted: its parameter bindings and local-name prefix."""

    function: str
    pointers: dict[str, str] = field(default_factory=dict)  # param -> root-scope name
    scalars: dict[str, str] = field(default_factory=dict)  # param -> argument text
    locals: frozenset = frozenset()
    prefix: str = ""
    offset_bound: frozenset = frozenset()  # params bound to a + k: no full writes
    #: parameter pack -> its (argument, frame written in) pairs (omp.calls)
    packs: dict = field(default_factory=dict)

    def resolve(self, name: str) -> str:
        match = _ROOT.match(name)
        if not match:
            return name
        root, rest = match.group(0), name[match.end():]
        if root in self.pointers:
            target = self.pointers[root]
            if target.startswith("&") and rest.startswith("->"):
                return target[1:] + "." + rest[2:]
            return target + rest
        if root in self.locals:
            return self.prefix + name
        return name


def path_root(name: str) -> str:
    """The variable a name path starts with: ``d`` for ``d->x``."""
    match = _ROOT.match(name)
    return match.group(0) if match else name


def norm_text(text: str) -> str:
    """Expression text without blanks or enclosing parentheses: ``( a [ i ] )`` -> ``a[i]``,
    so that the same name or section written differently compares equal."""
    text = re.sub(r"\s+", "", text)
    while text.startswith("(") and text.endswith(")") and balanced(text[1:-1]):
        text = text[1:-1]
    return text


def balanced(text: str) -> bool:
    """Whether ``text``'s parentheses pair up (``(a)+(b)`` stripped of its outer pair does
    not)."""
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0

