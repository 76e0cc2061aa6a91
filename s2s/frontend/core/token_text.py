"""Token spellings that survive bytes which are not UTF-8.

``clang.cindex.Token.spelling`` decodes strictly, so a comment or string literal holding a
Latin-1 byte (``/* caf\\xe9 */``) raised UnicodeDecodeError from every walk over a cursor's
tokens that reached it: an internal error for the whole file (found by ``s2s.verify.fuzz``).
:func:`spelling` decodes such a token with ``surrogateescape`` instead (the bytes survive, and
the text never equals a punctuator or a name the callers look for).
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator

from s2s.frontend.core.toolchain import configure_libclang


def spelling(token) -> str:
    """``token.spelling``; bytes that are not UTF-8 come back as surrogate escapes."""
    try:
        return token.spelling
    except UnicodeDecodeError:
        return _raw_spelling(token).decode("utf-8", "surrogateescape")


def spellings(cursor) -> Iterator[tuple[object, str]]:
    """``(token, spelling)`` of each token of ``cursor``'s extent."""
    for token in cursor.get_tokens():
        yield token, spelling(token)


def _raw_spelling(token) -> bytes:
    cindex = configure_libclang()
    lib = cindex.conf.lib
    # Fresh function objects: never change the argtypes cindex registered on shared ones.
    get = lib["clang_getTokenSpelling"]
    get.argtypes = [cindex.TranslationUnit, cindex.Token]
    get.restype = cindex._CXString
    text = lib["clang_getCString"]
    text.argtypes = [cindex._CXString]
    text.restype = ctypes.c_char_p
    cxstring = get(token._tu, token)  # disposed by _CXString.__del__
    return text(cxstring) or b""
