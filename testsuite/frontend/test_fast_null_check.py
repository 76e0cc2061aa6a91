"""``Cursor.is_null`` answered in Python (s2s.frontend.core.toolchain, issue 30 item 1) says what
libclang's ``clang_equalCursors`` with the null cursor says, for every cursor of a unit
(declarations, references, statements, expressions, a macro expansion), the null cursor
itself and the cursors the bindings return where there is none (a lexical parent of the
unit, a definition that is not there)."""

from __future__ import annotations

from s2s.frontend.core.parse import ParseOptions, parse_source
from s2s.frontend.core.toolchain import configure_libclang

SOURCE = rb"""
#include <stdlib.h>
#define TWICE(x) ((x) + (x))
struct point { double x, y; };
extern double declared_only(double);
static double norm(const struct point *p) { return TWICE(p->x) * p->y; }
int main(void)
{
    struct point *ps = (struct point *)malloc(4 * sizeof *ps);
    double s = 0;
    for (int i = 0; i < 4; ++i) {
        ps[i].x = i; ps[i].y = 2;
        s += norm(&ps[i]) + declared_only(s);
    }
    free(ps);
    return s > 0;
}
"""


def _libclang_says_null(cindex, cursor) -> bool:
    return bool(cindex.conf.lib.clang_equalCursors(cursor, cindex.conf.lib.clang_getNullCursor()))


def test_python_null_check_agrees_with_libclang_on_every_cursor():
    cindex = configure_libclang()
    assert getattr(cindex.Cursor.is_null, "_s2s_pure", False)   # the check is the Python one
    unit = parse_source(SOURCE, "points.c", ParseOptions()).primary
    seen = nulls = 0
    for cursor in unit.cursor.walk_preorder():
        seen += 1
        assert cursor.is_null() is _libclang_says_null(cindex, cursor) is False
        for related in (cindex.conf.lib.clang_getCursorDefinition(cursor),
                        cindex.conf.lib.clang_getCursorReferenced(cursor),
                        cindex.conf.lib.clang_getCursorLexicalParent(cursor)):
            assert related.is_null() is _libclang_says_null(cindex, related)
            nulls += related.is_null()
    assert seen > 500                      # stdlib.h's declarations included
    assert 0 < nulls < 3 * seen            # both answers were given
    null = cindex.conf.lib.clang_getNullCursor()
    assert null.is_null() and _libclang_says_null(cindex, null)
    assert unit.cursor.semantic_parent is None     # the bindings' null result is still None
    declared = next(c for c in unit.cursor.get_children() if c.spelling == "declared_only")
    assert declared.get_definition() is None


def test_kinds_come_from_the_enumerations_table_as_enum_gives_them():
    """``from_id`` read from the enumeration's table (issue 30) gives each member itself,
    and an id no member has still raises ValueError, as ``Enum.__call__`` does."""
    import pytest

    cindex = configure_libclang()
    for kinds in (cindex.CursorKind, cindex.TypeKind, cindex.TokenKind):
        assert all(kinds.from_id(member.value) is member for member in kinds)
        with pytest.raises(ValueError):
            kinds.from_id(987654)
