"""A program: several translation units seen as one, for passes that follow calls across files.

A pass written for one file indexes its source with the byte offsets of spans
(``source[span.start:span.end]``) and its directives by position. :func:`merge_units` keeps both
working for a whole program without touching the passes: the files' bytes are laid end to end
(each followed by a newline) in one *program source*, every span of every unit is moved by its
file's base offset, and directive indexes are renumbered into the merged list. Lines and columns
stay as they were, so diagnostics still point into the right file; :meth:`Program.locate` maps a
program offset back to ``(file, offset)`` for the edits.

The units' function names must be unique (the passes look functions up by name): two files that
each define a ``static`` helper of the same name are a :class:`NameClash`, and the caller falls
back to one file at a time.
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass, fields, is_dataclass, replace
from operator import is_not

from s2s.model.access import ArrayRef
from s2s.model.host import Stmt
from s2s.model.openmp import OmpDirective
from s2s.model.span import SourceSpan
from s2s.model.unit import TranslationUnit

#: (class, field) pairs that index ``TranslationUnit.directives``
_DIRECTIVE_INDEXES = {(ArrayRef, "directive"), (Stmt, "directive"), (OmpDirective, "parent")}


class NameClash(Exception):
    """Two units define functions of the same name: the program cannot be merged."""


@dataclass(frozen=True)
class Program:
    """The merged unit, its program source, and where each file lies in that source."""

    unit: TranslationUnit
    source: bytes
    #: (path, base offset, length in bytes), in the order the files were given
    files: tuple[tuple[str, int, int], ...]

    def local_span(self, span: SourceSpan | None) -> SourceSpan | None:
        """``span`` (of the merged unit) in its own file's offsets."""
        if span is None:
            return None
        base = self._base_of.get(span.file)
        if base is None:
            return span
        return replace(span, start=span.start - base, end=span.end - base)

    @functools.cached_property
    def _bases(self) -> list[int]:
        """The files' base offsets, made once: per call, they made every lookup linear in the
        number of files (a run over 2,000 files quadratic)."""
        return [base for _path, base, _length in self.files]

    @functools.cached_property
    def _base_of(self) -> dict[str, int]:
        """Each file's base offset by path (the first, if a path were given twice)."""
        out: dict[str, int] = {}
        for path, base, _length in self.files:
            out.setdefault(path, base)
        return out

    def locate(self, offset: int) -> tuple[str, int]:
        """``(path, offset in that file)`` of a program offset (the end of a file maps to
        that file's end, never to the next file)."""
        index = max(bisect.bisect_right(self._bases, offset) - 1, 0)
        path, base, length = self.files[index]
        return path, min(offset - base, length)


def merge_units(parts: list[tuple[TranslationUnit, bytes]]) -> Program:
    """One :class:`Program` of ``parts`` (model, file bytes); raises :class:`NameClash`."""
    seen: dict[str, str] = {}
    for unit, _source in parts:
        for function in unit.functions:
            other = seen.setdefault(function.name, unit.path)
            if other != unit.path:
                raise NameClash(f"'{function.name}' is defined in {other} and in {unit.path}")
    chunks, files, merged = [], [], {name: [] for name in _LISTS}
    base = directive_base = 0
    for unit, source in parts:
        files.append((unit.path, base, len(source)))
        shift = _Shift(unit.path, base, directive_base)
        for name in _LISTS:
            merged[name] += [shift(item) for item in getattr(unit, name)]
        chunks += [source, b"\n"]
        base += len(source) + 1
        directive_base += len(unit.directives)
    merged["allocations"] = _with_helper_allocations(merged["allocations"],
                                                     merged["allocating_helpers"],
                                                     merged["helper_calls"])
    defined = {f.name for f in merged["functions"] if f.body is not None}
    for name in ("member_writes", "pointer_copies"):
        # a call's writes of a struct it was given, kept for a function its file only
        # declared: none where another file of the program defines it (its writes are
        # extracted there)
        merged[name] = [item for item in merged[name] if item.through not in defined]
    first = parts[0][0]
    unit = TranslationUnit(first.path, first.language, first.sides,
                           **{name: tuple(items) for name, items in merged.items()})
    return Program(unit, b"".join(chunks), tuple(files))


#: the TranslationUnit fields merged (kernel bodies are left out: the OpenMP pass has none)
_LISTS = ("kernels", "device_functions", "launches", "api_calls", "allocations", "directives",
          "functions", "array_refs", "pointer_copies", "classes",
          "function_refs", "allocating_helpers", "helper_calls", "macro_directives", "var_uses",
          "member_writes")


def _with_helper_allocations(allocations: list, helpers: list, calls: list) -> list:
    """``allocations`` and those of calls, in one file, to an allocating helper that another
    file defines (``double *u = alloc_field(cells, 0.0);`` with ``alloc_field`` in
    ``util.c``), in program order."""
    by_name = {helper.name: helper for helper in helpers}
    joined = [found for call in calls if call.callee in by_name
              for found in [by_name[call.callee].at_call(call.args, call.target, call.span,
                                                         call.function, call.elements)]
              if found is not None]
    if not joined:
        return allocations
    return sorted(allocations + joined, key=lambda a: (a.span.start, a.span.end))


class _Shift:
    """Moves spans of one file by ``base`` and directive indexes by ``directive_base``."""

    def __init__(self, path: str, base: int, directive_base: int):
        self.path, self.base, self.directive_base = path, base, directive_base
        #: id of a span -> (span, moved span): the front end shares one span object among
        #: the statements, expressions and accesses of the same range
        self._spans: dict[int, tuple[SourceSpan, SourceSpan]] = {}

    def __call__(self, value):
        kind = _KINDS.get(type(value)) or _kind(type(value))
        if kind is _PLAIN:
            return value
        if kind is _SPAN:
            return self.span(value)
        if kind is _TUPLE:
            return self.items(value)
        mover = _MOVERS.get(type(value), _UNKNOWN)
        if mover is _UNKNOWN:
            mover = _mover(type(value))
        if mover is not None:
            return mover(self, value)
        changes = {}
        for name, indexes in _field_names(type(value)):
            old = getattr(value, name)
            if indexes and isinstance(old, int):
                changes[name] = old + self.directive_base
                continue
            if _KINDS.get(type(old)) is _PLAIN:
                continue            # a str, a number, None: nothing to move (no call)
            new = self(old)
            if new is not old:
                changes[name] = new
        return _with(value, changes) if changes else value

    def items(self, value: tuple) -> tuple:
        """The tuple ``value`` with each item moved (``value`` itself where none moved)."""
        if not value:
            return value
        moved = tuple(map(self, value))
        return moved if any(map(is_not, moved, value)) else value

    def span(self, value: SourceSpan) -> SourceSpan:
        """``value`` moved by the base (one moved object per span object)."""
        if value.file != self.path or not self.base:
            return value
        return (self._spans.get(id(value)) or self.keep(value))[1]

    def keep(self, value: SourceSpan) -> tuple[SourceSpan, SourceSpan]:
        """(``value``, its moved copy), kept by the span's id (the front end shares one span
        object among the statements, expressions and accesses of a range)."""
        known = self._spans[id(value)] = (value, _moved_span(value, self.base))
        return known


def _with(value, changes: dict):
    """A shallow copy of the frozen ``value`` with ``changes`` set: ``replace`` runs
    __init__ and __post_init__ again for every node of every statement tree (a third of the
    merge), ``copy.copy`` goes through ``__reduce_ex__``."""
    cls = type(value)
    moved = object.__new__(cls)
    state = getattr(value, "__dict__", None)
    if state is None:               # a class with __slots__ (the model's dataclasses)
        for name in _slot_names(cls):
            object.__setattr__(moved, name, getattr(value, name))
    else:
        moved.__dict__.update(state)
    for name, new in changes.items():
        object.__setattr__(moved, name, new)
    return moved


#: what _Shift does with a value, by its type: leave it, move a span, map a tuple, or
#: rebuild a dataclass instance (a dict lookup per value: ``is_dataclass`` and the
#: isinstance chain per value were most of the merge of a big program)
_PLAIN, _SPAN, _TUPLE, _DATACLASS = "plain", "span", "tuple", "dataclass"
_KINDS: dict[type, str] = {str: _PLAIN, int: _PLAIN, bool: _PLAIN, float: _PLAIN,
                           type(None): _PLAIN}


def _kind(cls: type) -> str:
    if issubclass(cls, SourceSpan):
        kind = _SPAN
    elif issubclass(cls, tuple):
        kind = _TUPLE
    elif is_dataclass(cls):
        kind = _DATACLASS
    else:
        kind = _PLAIN
    _KINDS[cls] = kind
    return kind


def _span_mover():
    """``moved(span, base)``: a copy of ``span`` with ``start`` and ``end`` moved by ``base``
    (what ``_with`` makes, its slots written out: most of a merge's copies are spans)."""
    names = _slot_names(SourceSpan)
    moved = {"start": "value.start + base", "end": "value.end + base"}
    lines = ["def moved(value, base):", "    out = _new(SourceSpan)"]
    lines += [f"    _set(out, {name!r}, {moved.get(name, 'value.' + name)})" for name in names]
    lines.append("    return out")
    scope = {"_new": object.__new__, "_set": object.__setattr__, "SourceSpan": SourceSpan}
    exec("\n".join(lines), scope)      # noqa: S102 - our own field names, no input text
    return scope["moved"]


#: a compiled mover by dataclass (None: the generic loop of _Shift.__call__), see _mover
_MOVERS: dict[type, object] = {}
#: (a class not seen yet by ``_MOVERS``)
_UNKNOWN = object()


def _mover(cls: type):
    """``move(shift, value)``, :meth:`_Shift.__call__` for instances of the slotted dataclass
    ``cls`` written out field by field: the same copies (a new object only where a field
    moved; a directive index always), without the loop's tuple unpacking, dict of changes
    and generic copy per node (the merge of a 50,000-line program walks 170,000 of them).
    None for a class with slots besides its fields, or none."""
    names = _field_names(cls)
    if getattr(cls, "__dictoffset__", 0) or _slot_names(cls) != tuple(n for n, _ in names):
        _MOVERS[cls] = None
        return None
    lines = ["def move(shift, value):", "    changed = False"]
    for k, (name, indexes) in enumerate(names):
        lines.append(f"    v{k} = value.{name}")
        lines.append(f"    k = _get(type(v{k}))")
        step = ["if k is _PLAIN:", f"    n{k} = v{k}",
                "elif k is _SPAN:", f"    n{k} = shift.span(v{k})",
                "elif k is _TUPLE:", f"    n{k} = shift.items(v{k})",
                "else:", f"    n{k} = shift(v{k})",
                f"if n{k} is not v{k}:", "    changed = True"]
        if indexes:
            lines += [f"    if isinstance(v{k}, int):", f"        n{k} = v{k} + shift.directive_base",
                      "        changed = True", "    else:"]
            lines += ["        " + line for line in step]
        else:
            lines += ["    " + line for line in step]
    lines += ["    if not changed:", "        return value", "    moved = _new(cls)"]
    lines += [f"    _set(moved, {name!r}, n{k})" for k, (name, _i) in enumerate(names)]
    lines.append("    return moved")
    scope = {"_get": _KINDS.get, "_PLAIN": _PLAIN, "_SPAN": _SPAN, "_TUPLE": _TUPLE,
             "_new": object.__new__,
             "_set": object.__setattr__, "cls": cls}
    exec("\n".join(lines), scope)      # noqa: S102 - our own field names, no input text
    _MOVERS[cls] = scope["move"]
    return scope["move"]


@functools.cache
def _slot_names(cls) -> tuple[str, ...]:
    """Every slot of ``cls`` and its bases (a slotted dataclass's fields)."""
    return tuple(name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ()))


@functools.cache
def _field_names(cls) -> tuple[tuple[str, bool], ...]:
    """The dataclass fields of ``cls``, each with whether it indexes the directives."""
    return tuple((f.name, (cls, f.name) in _DIRECTIVE_INDEXES) for f in fields(cls))


_moved_span = _span_mover()
