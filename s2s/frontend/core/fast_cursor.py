"""Facts of walk cursors read through libclang directly, without the bindings' wrappers.

Every property of a cindex Cursor first checks that the cursor is not null (a
``clang_equalCursors`` call), and ``cursor.type`` / ``Type.get_canonical()`` then look for the
translation unit through ``hasattr(arg, "translation_unit")``, one more null check. Cursors of
the main-file walk come from visiting a non-null parent, so none is null; for them these
helpers give the same objects (a ``Type`` keeps its unit in ``_tu``, as the bindings set it)
with one libclang call each. On a 50,000-line program the null checks were about a fifth of
the extraction.
"""

from __future__ import annotations

import ctypes
import functools

from s2s.frontend.core.toolchain import configure_libclang

#: the main file's range of raw locations, set on the translation unit by the walk
#: (:func:`s2s.frontend.core.walk.main_file_range`)
MAIN_RANGE = "_s2s_main_range"


@functools.cache
def _functions():
    """Fresh ctypes function objects (never change those cindex registered) without the
    bindings' result conversion."""
    cindex = configure_libclang()
    lib = cindex.conf.lib
    # the types hold their unit in a slot: a dictionary per type was a third of the access
    # scan's memory on the 1 MB CUDA file (issue 30)
    slim = type("SlimType", (cindex.Type,), {"__slots__": ("_tu",), "__module__": __name__})
    cursor_type = lib["clang_getCursorType"]
    cursor_type.argtypes, cursor_type.restype = [cindex.Cursor], slim
    canonical = lib["clang_getCanonicalType"]
    canonical.argtypes, canonical.restype = [cindex.Type], slim
    return cursor_type, canonical, lib.clang_getCursorSpelling


def cursor_type(cursor):
    """``cursor.type``."""
    found = _functions()[0](cursor)
    found._tu = cursor._tu
    return found


def canonical_type(cursor):
    """``cursor.type.get_canonical()``."""
    get_type, canonical, _ = _functions()
    found = canonical(get_type(cursor))
    found._tu = cursor._tu
    return found


def spelling(cursor) -> str:
    """``cursor.spelling``, kept on the cursor as the bindings keep it."""
    try:
        return cursor._spelling
    except AttributeError:
        pass
    found = cursor._spelling = configure_libclang()._CXString.from_result(_functions()[2](cursor))
    return found


def offsets(cursor) -> tuple[int, int]:
    """``(start, end)`` byte offsets of a cursor's extent (``cursor.extent.start.offset``...,
    at the expansion site of a macro).

    The extent's two raw locations are offsets into the main file plus its base when they lie
    in the main file's range (see :mod:`s2s.frontend.core.walk`); others are asked of libclang.
    """
    extent_of, range_start, range_end, location = _extent_functions()
    rng = extent_of(cursor)
    main = getattr(getattr(cursor, "_tu", None), MAIN_RANGE, None)
    if main is not None:
        lo, hi = main
        start, end = rng.begin_int_data, rng.end_int_data
        if lo <= start <= hi and lo <= end <= hi:
            return start - lo, end - lo
    start, end = ctypes.c_uint(), ctypes.c_uint()
    location(range_start(rng), None, None, None, ctypes.byref(start))
    location(range_end(rng), None, None, None, ctypes.byref(end))
    return start.value, end.value


@functools.cache
def _extent_functions():
    lib = configure_libclang().conf.lib
    return (lib.clang_getCursorExtent, lib.clang_getRangeStart, lib.clang_getRangeEnd,
            lib.clang_getInstantiationLocation)


def children(cursor) -> list:
    """``list(cursor.get_children())`` without the per-child null checks."""
    found: list = []
    configure_libclang().conf.lib.clang_visitChildren(cursor, _collect(), found)
    unit = cursor._tu
    for child in found:
        child._tu = unit        # the cursor keeps its unit alive, as the bindings' children do
    return found


def kind_name(cursor) -> str:
    """``cursor.kind.name``."""
    return _kind_names()[cursor._kind_id]


def is_attribute(cursor) -> bool:
    """``cursor.kind.is_attribute()``."""
    return cursor._kind_id in _attribute_kinds()


@functools.cache
def _kind_names() -> dict[int, str]:
    return {kind.value: kind.name for kind in configure_libclang().CursorKind.get_all_kinds()}


@functools.cache
def _attribute_kinds() -> frozenset[int]:
    return frozenset(kind.value for kind in configure_libclang().CursorKind.get_all_kinds()
                     if kind.is_attribute())


@functools.cache
def _collect():
    """One visitor callback that appends each child to the list passed as client data."""
    def collect(child, _parent, found) -> int:
        found.append(child)
        return 1    # CXChildVisit_Continue

    return configure_libclang().cursor_visit_callback(collect)


def type_kind(found_type) -> str:
    """``type.kind.name`` (TypeKind.from_id goes through the enum machinery each time)."""
    return _type_kind_names()[found_type._kind_id]


@functools.cache
def _type_kind_names() -> dict[int, str]:
    return {kind.value: kind.name for kind in configure_libclang().TypeKind}
