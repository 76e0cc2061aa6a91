"""The main-file walk of one translation unit in a single libclang traversal.

:meth:`s2s.frontend.core.context.ExtractContext.nodes` is every cursor spelled in the main file (or
expanded there from a macro), in pre-order, each with its depth and the template and function
around it; the walk recurses only into such cursors (the headers' declarations are most of a
unit). It used to ask libclang for the children of every cursor, one ``clang_visitChildren``
per cursor, and then test each child's location with two more calls: about 27,000 cursors per
5,000-line file, so those calls and the Python around them were a large share of the load of
a big program. Here one ``clang_visitChildren`` per top-level declaration visits the whole
subtree: the callback answers *recurse* for a main-file cursor and *continue* (skip it and its
subtree) for any other, which keeps exactly the same cursors in the same order.

Two things make the callback cheap:

* The parent of each visited cursor comes with it; its place on the current path (and so the
  depth, template and function) is found by comparing the raw bytes of the cursor structs,
  since libclang hands back the very struct it was given when it recursed.
* A location is in the main file when its raw encoding lies in the main file's range of the
  source manager (:func:`main_file_range`, checked against libclang once per unit); only
  other locations (macro expansions, other files) go through libclang's own tests.

The cursors are the very ones the per-cursor walk gave, byte for byte: a statement or
expression cursor records the declaration its visit started from (``data[0]``, what
``semantic_parent`` returns for it), which a visit started at a statement leaves null. So a
statement or expression whose parent is no declaration gets a null there, as before.

The walk keeps each cursor's bytes, not the object the callback was given: a
:class:`CursorStore` makes the object when an extractor first asks for a node's ``cursor``.

The callback never lets an exception escape into ctypes (which would print it and go on): the
traversal is stopped and the exception raised again after it.
"""

from __future__ import annotations

import ctypes
import functools
from typing import NamedTuple

from s2s.frontend.core.fast_cursor import MAIN_RANGE
from s2s.frontend.core.toolchain import configure_libclang

#: CXChildVisitResult
_BREAK, _CONTINUE, _RECURSE = 0, 1, 2
#: top-level cursors that are no code (the preprocessing record)
_PREPROCESSING = frozenset({"MACRO_INSTANTIATION", "MACRO_DEFINITION", "INCLUSION_DIRECTIVE"})
#: SourceLocation's raw encoding marks macro locations with this bit
_MACRO_BIT = 1 << 31


class Node(NamedTuple):
    """A main-file cursor with the context extractors need.

    ``ref`` is the cursor itself, or (``store`` set) its number in the walk's
    :class:`CursorStore`, which makes the cursor object when it is first asked for."""

    ref: object
    kind: str
    depth: int
    template: str | None
    function: str | None
    store: CursorStore | None = None

    @property
    def cursor(self):
        """The cursor (made once, on first use, for a node of the walk)."""
        store = self.store
        return self.ref if store is None else store.cursor(self.ref)


#: a null pointer's bytes
_NULL = bytes(ctypes.sizeof(ctypes.c_void_p))


class CursorStore:
    """The walk's cursors as the bytes libclang gave, each made into a cursor object when an
    extractor first asks for it (and kept from then on: the bindings cache values on it).

    A cursor object is about 240 bytes (the ctypes object, its slots, its 32-byte buffer);
    the walk of the 1 MB CUDA file visits 431,451 cursors, of which ``s2s inspect``'s
    extractors ask for about a third: keeping every one was a third of its peak memory
    (issue 30). Here a cursor not asked for costs its 32 bytes and a list entry."""

    __slots__ = ("raw", "made", "unit", "kind", "width", "data0")

    def __init__(self, unit, kind):
        #: the cursors' bytes, ``width`` each, in the order they were numbered
        self.raw = bytearray()
        #: the cursor objects made so far (None: not asked for yet); see ``complete``
        self.made: list = []
        self.unit, self.kind = unit, kind
        #: a cursor's size (32 bytes: kind, xdata, three pointers) and where ``data[0]`` lies
        self.width, self.data0 = ctypes.sizeof(kind), kind.data.offset

    def complete(self) -> None:
        """Room for every cursor numbered (the walk fills ``raw`` and calls this once)."""
        self.made = [None] * (len(self.raw) // self.width)

    def cursor(self, number: int):
        found = self.made[number]
        if found is None:
            found = self.made[number] = self.kind.from_buffer_copy(self.raw, number * self.width)
            found._tu = self.unit       # the cursor keeps its unit alive
        return found


class SubtreeLinks(NamedTuple):
    """Each pre-order index's parent (-1 at the top) and the index just past its subtree."""

    parent: list[int]
    end: list[int]


def subtree_links(nodes: list[Node]) -> SubtreeLinks:
    """The parents and subtree ends of a pre-order walk, from the depths in one pass.
    The host tree and the CUDA unit both need them over every node of the file (431,000 on
    the 1 MB CUDA file): :meth:`ExtractContext.subtree_links` works them out once for both."""
    count = len(nodes)
    parent, end = [-1] * count, [count] * count
    stack: list[int] = []
    for i, node in enumerate(nodes):
        depth = node.depth
        while stack and nodes[stack[-1]].depth >= depth:
            end[stack.pop()] = i
        if stack:
            parent[i] = stack[-1]
        stack.append(i)
    return SubtreeLinks(parent, end)


def main_file_range(ctx) -> tuple[int, int] | None:
    """``(lo, hi)``: the raw encodings of the main file's first and end-of-file positions.

    Every file location of the main file encodes as ``lo + offset``; None when libclang does
    not confirm that (the walk then asks libclang about every location).
    """
    cindex, unit, size = ctx._cindex, ctx.unit, len(ctx.source)
    try:
        cxfile = unit.get_file(ctx.path)
        first = cindex.SourceLocation.from_offset(unit, cxfile, 0)
        last = cindex.SourceLocation.from_offset(unit, cxfile, size)
    except Exception:   # no such file in the unit
        return None
    lo = first.int_data
    if lo & _MACRO_BIT or last.int_data != lo + size or not ctx._is_main(first) \
            or not ctx._is_main(last) or first.offset != 0 or last.offset != size:
        return None
    return lo, lo + size


def main_file_nodes(ctx, kind_name, template_kinds, function_kinds) -> list[Node]:
    """The walk of ``ctx``'s unit (see the module doc); ``kind_name(id)`` names a cursor kind."""
    lib = ctx._cindex.conf.lib
    location_of, is_main, is_system = lib.clang_getCursorLocation, ctx._is_main, ctx._is_system
    tu, path = ctx.unit, ctx.path
    main = main_file_range(ctx)
    setattr(tu, MAIN_RANGE, main)              # for fast_cursor.offsets
    lo, hi = main or (1, 0)                     # (1, 0): an empty range, never taken
    out: list[Node] = []
    keys: list[bytes] = []                      # the cursors on the current path
    scopes: list[tuple[int, str | None, str | None]] = []   # their depth, template, function
    errors: list[BaseException] = []
    kinds: dict[int, _KindInfo] = {}
    new_node = tuple.__new__        # Node(...) without the Python frame of its __new__
    store = CursorStore(tu, _slim_visitor()[2])
    raw, width, data0 = store.raw, store.width, store.data0
    extend_raw = raw.extend
    data0_end = data0 + len(_NULL)

    def info(kind_id: int) -> _KindInfo:
        found = kinds[kind_id] = _kind_info(kind_id, kind_name, template_kinds, function_kinds)
        return found

    def top_node(cursor) -> None:
        kind = kinds.get(cursor._kind_id) or info(cursor._kind_id)
        template, function = _scope_of(kind, cursor, None, None)
        out.append(Node(cursor, kind.name, 0, template, function))
        keys.append(bytes(cursor))
        scopes.append((0, template, function))

    def visit(child, parent, _data) -> int:
        try:
            kind = kinds.get(child._kind_id) or info(child._kind_id)
            parent_kind = kinds.get(parent._kind_id) or info(parent._kind_id)
            # An operand of a main-file expression is in the main file: its location is not
            # asked for (libclang finds an operator's location at its left operand's start,
            # a walk down the whole left spine: x+x+...+x would cost the square of its length)
            inherited = kind.expression and parent_kind.expression
            if not inherited:
                location = location_of(child)
                if not lo <= location.int_data <= hi and not (is_main(location) or (
                        not is_system(location) and file_is(location, path))):
                    return _CONTINUE
            key = bytes(parent)
            if keys[-1] != key:
                at = len(keys) - 2
                while at >= 0 and keys[at] != key:
                    at -= 1
                if at < 0:  # a parent the walk never entered (the implicit capture of
                    return _CONTINUE  # ``this`` by a ``[&]`` lambda in a template: miniBUDE)
                del keys[at + 1:], scopes[at + 1:]
            depth, template, function = scopes[-1]
            depth += 1
            if kind.scope:          # (the spelling and definition of a function or template)
                child._tu = tu
                template, function = _scope_of(kind, child, template, function)
            # (the key of the child is taken as libclang has it; a statement or expression
            # whose parent is no declaration is kept with data[0] null, as a visit started
            # at the parent leaves it)
            key, at = bytes(child), len(raw)
            extend_raw(key)
            if kind.code and not parent_kind.declaration:
                raw[at + data0:at + data0_end] = _NULL
            out.append(new_node(Node, (at // width, kind.name, depth, template, function, store)))
            keys.append(key)
            scopes.append((depth, template, function))
            return _RECURSE
        except BaseException as error:  # noqa: BLE001 - raised again after the traversal
            errors.append(error)
            return _BREAK

    callback_type, visit_children, _slim = _slim_visitor()
    callback = callback_type(visit)
    for top in ctx.top_level:
        if kind_name(top._kind_id) in _PREPROCESSING:
            continue
        keys.clear()
        scopes.clear()
        top_node(top)
        visit_children(top, callback, None)
        if errors:
            raise errors[0]
    store.complete()
    return out


@functools.cache
def _slim_visitor():
    """(callback type, ``clang_visitChildren``, ``SlimCursor``) whose visited cursors are ``SlimCursor``s: the
    bindings' ``Cursor`` with slots for its unit and for the values the bindings cache on a
    cursor (``_spelling``, ``_referenced``, ``_type`` ...).

    Every cursor must know its unit (``_tu``: the bindings' methods hand it on to the cursors
    and types they return, and it keeps the unit alive). Set on a plain ``Cursor`` it gave
    each of the walk's cursors an instance dictionary, about 320 bytes: 138 MB for the
    431,000 cursors of the 1 MB CUDA file (issue 30, inspect's peak memory). A slot costs 8
    bytes. The ``clang_visitChildren`` is a fresh function object (the bindings' own is
    declared with their callback type, which makes plain ``Cursor``s)."""
    cindex = configure_libclang()
    slim = type("SlimCursor", (cindex.Cursor,), {"__slots__": _CURSOR_SLOTS, "__module__": __name__})
    get_referenced = cindex.conf.lib["clang_getCursorReferenced"]
    get_referenced.argtypes, get_referenced.restype = [cindex.Cursor], slim
    is_null = cindex.conf.lib["clang_Cursor_isNull"]
    is_null.argtypes, is_null.restype = [cindex.Cursor], ctypes.c_int

    def referenced(cursor):
        """``Cursor.referenced`` (None for none), itself a ``SlimCursor``: a reference's
        declaration is asked for most references of a file (93,000 cursors with a dictionary
        each on the 1 MB CUDA file)."""
        try:
            return cursor._referenced
        except AttributeError:
            pass
        found = get_referenced(cursor)
        if is_null(found):
            found = None
        else:
            found._tu = cursor._tu
        cursor._referenced = found
        return found

    slim.referenced = property(referenced)
    callback_type = ctypes.CFUNCTYPE(ctypes.c_int, slim, slim, ctypes.py_object)
    visit_children = cindex.conf.lib["clang_visitChildren"]
    visit_children.argtypes = [cindex.Cursor, callback_type, ctypes.py_object]
    visit_children.restype = ctypes.c_uint
    return callback_type, visit_children, slim


def _scope_of(kind: _KindInfo, cursor, template: str | None, function: str | None
              ) -> tuple[str | None, str | None]:
    """The template and function around ``cursor``'s subtree, given those around it."""
    if kind.template and template is None:
        template = cursor.spelling
    if kind.function and cursor.is_definition():
        function = cursor.spelling
    return template, function


#: what a walk cursor holds: its unit, and what the bindings' properties cache on it
_CURSOR_SLOTS = ("_tu", "_spelling", "_referenced", "_loc", "_hash", "_type", "_semantic_parent", "_binopcode",
                 "_displayname", "_canonical")


class _KindInfo(NamedTuple):
    """What the walk needs to know about a cursor kind."""

    name: str
    template: bool          # opens a template definition
    function: bool          # a function-like declaration
    code: bool              # a statement or an expression
    declaration: bool
    scope: bool             # template or function: may open a scope
    expression: bool


def _kind_info(kind_id: int, kind_name, template_kinds, function_kinds) -> _KindInfo:
    name = kind_name(kind_id)
    kind = configure_libclang().CursorKind.from_id(kind_id)
    template, function = name in template_kinds, name in function_kinds
    return _KindInfo(name, template, function, kind.is_statement() or kind.is_expression(),
                     kind.is_declaration(), template or function, kind.is_expression())


def file_is(location, path: str) -> bool:
    """Whether ``location`` (expanded) lies in the file named ``path``."""
    file = location.file
    return file is not None and file.name == path
