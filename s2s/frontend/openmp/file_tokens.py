"""The main file's raw tokens, read from libclang in one piece (for omp.openmp's pragmas).

Tokenising a whole file through the Python bindings costs ~50 us a token (a 12k-line file
took 10 s), so the token array is read in one piece through ctypes; the raw location encoding
is checked against libclang's own offsets and the slow path is used if it ever differs. The
preprocessor's skipped ranges (inactive ``#if`` branches) come with them: a pragma there is
no directive.
"""

from __future__ import annotations

import bisect
import ctypes
from dataclasses import dataclass, field

from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.toolchain import configure_libclang
from s2s.frontend.openmp.clauses import COMMENT, Tok, clean_spelling


class _CXSourceRangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.c_void_p)]


@dataclass
class FileTokens:
    """The main file's raw tokens as parallel arrays (kind, start, end) plus skipped ranges."""

    source: bytes
    kinds: list[int]
    starts: list[int]
    ends: list[int]
    skipped: list[tuple[int, int]] = field(default_factory=list)
    _firsts: list[int] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, ctx: ExtractContext) -> FileTokens | None:
        cindex = configure_libclang()
        lib = cindex.conf.lib
        unit = ctx.unit
        cxfile = _main_file(ctx)
        if cxfile is None:
            return None
        begin = cindex.SourceLocation.from_offset(unit, cxfile, 0)
        finish = cindex.SourceLocation.from_offset(unit, cxfile, len(ctx.source))
        extent = cindex.SourceRange.from_locations(begin, finish)
        # Fresh function objects: never change the argtypes cindex registered on shared ones.
        tokenize = lib["clang_tokenize"]
        tokenize.argtypes = [cindex.TranslationUnit, cindex.SourceRange,
                             ctypes.POINTER(ctypes.POINTER(cindex.Token)), ctypes.POINTER(ctypes.c_uint)]
        tokenize.restype = None
        array = ctypes.POINTER(cindex.Token)()
        count = ctypes.c_uint()
        tokenize(unit, extent, ctypes.byref(array), ctypes.byref(count))
        n = count.value
        try:
            kinds, starts, ends = _decode_tokens(cindex, lib, unit, array, n)
        finally:
            dispose = lib["clang_disposeTokens"]
            dispose.argtypes = [cindex.TranslationUnit, ctypes.POINTER(cindex.Token), ctypes.c_uint]
            dispose.restype = None
            dispose(unit, array, n)
        return cls(ctx.source, kinds, starts, ends, _skipped_ranges(cindex, lib, unit, cxfile))

    def spelling(self, i: int) -> str:
        return clean_spelling(self.source[self.starts[i] : self.ends[i]].decode("utf-8", "surrogateescape"))

    def tok(self, i: int) -> Tok:
        return Tok(self.kinds[i], self.spelling(i), self.starts[i], self.ends[i])

    def index_at(self, offset: int) -> int | None:
        """The token starting exactly at ``offset``."""
        i = bisect.bisect_left(self.starts, offset)
        return i if i < len(self.starts) and self.starts[i] == offset else None

    def first_from(self, offset: int) -> int:
        """Index of the first token starting at or after ``offset``."""
        return bisect.bisect_left(self.starts, offset)

    def is_skipped(self, offset: int) -> bool:
        i = bisect.bisect_right(self.skipped, (offset, float("inf"))) - 1
        return i >= 0 and self.skipped[i][0] <= offset < self.skipped[i][1]

    def newline_between(self, a: int, b: int) -> bool:
        """Whether ``source[a:b]`` (blank or comment text) holds a newline not spliced by ``\\``."""
        pos = self.source.find(b"\n", a, b)
        while pos >= 0:
            k = pos - 1
            while k >= a and self.source[k] in b" \t\r":
                k -= 1
            if k < a or self.source[k] != ord("\\"):
                return True
            pos = self.source.find(b"\n", pos + 1, b)
        return False

    def line_end(self, i: int) -> int:
        """Index one past the last token on the logical line of token ``i``."""
        j = i + 1
        while j < len(self.starts) and not self.newline_between(self.ends[j - 1], self.starts[j]):
            j += 1
        return j

    def at_line_start(self, i: int) -> bool:
        """Whether token ``i`` is the first non-comment token of its logical line."""
        j = i - 1
        while j >= 0 and self.kinds[j] == COMMENT:
            j -= 1
        return j < 0 or self.newline_between(self.ends[j], self.starts[i])

    def line_first(self, i: int) -> int:
        """The first non-comment token of the logical line holding token ``i`` (0 if none).

        Looked up in :meth:`_line_firsts`, built once: walking back token by token from every
        ``_Pragma`` was quadratic on a file written on one line.
        """
        firsts = self._line_firsts()
        k = bisect.bisect_right(firsts, i) - 1
        return firsts[k] if k >= 0 else 0

    def _line_firsts(self) -> list[int]:
        """Sorted indices of the non-comment tokens for which :meth:`at_line_start` holds.

        Such a token is the first non-comment token after a newline (or of the file), so only
        those candidates are tested: the cost follows the number of lines, not of tokens.
        """
        if self._firsts is None:
            kinds, n = self.kinds, len(self.starts)
            candidates = set()
            pos = -1
            while True:
                i = bisect.bisect_left(self.starts, pos + 1)  # first token after the newline
                while i < n and kinds[i] == COMMENT:
                    i += 1
                if i < n:
                    candidates.add(i)
                pos = self.source.find(b"\n", pos + 1)
                if pos < 0 or i >= n:
                    break
            self._firsts = sorted(i for i in candidates if self.at_line_start(i))
        return self._firsts

    def logical_line_end(self, offset: int) -> int:
        """End of the logical line holding ``offset``: the first newline not spliced by a
        ``\\`` (a ``\\r`` before it is left out)."""
        pos = offset
        while True:
            newline = self.source.find(b"\n", pos)
            if newline < 0:
                return len(self.source)
            k = newline - 1
            while k >= pos and self.source[k] in b" \t\r":
                k -= 1
            if k >= pos and self.source[k] == ord("\\"):
                pos = newline + 1
                continue
            return newline - 1 if newline > offset and self.source[newline - 1] == ord("\r") else newline


def _main_file(ctx: ExtractContext):
    try:
        return ctx.unit.get_file(ctx.path)
    except Exception:
        for cursor in ctx.top_level:
            if cursor.location.file is not None:
                return cursor.location.file
    return None


def _decode_tokens(cindex, lib, unit, array, n: int) -> tuple[list[int], list[int], list[int]]:
    """Kinds and offsets of ``n`` CXTokens, read from the array in one piece.

    A CXToken is ``{unsigned int_data[4]; void *ptr_data;}``: ``int_data[0]`` the kind,
    ``[1]`` the raw SourceLocation, ``[2]`` the length in bytes. Raw locations of one file
    are its offsets plus a constant; that is checked against libclang on a few tokens.
    """
    if n == 0:
        return [], [], []
    size = ctypes.sizeof(cindex.Token)
    words = memoryview(ctypes.string_at(array, size * n)).cast("I")
    stride = size // 4
    kinds = list(words[0::stride])
    raws = list(words[1::stride])
    lengths = list(words[2::stride])
    get_loc = lib["clang_getTokenLocation"]
    get_loc.argtypes = [cindex.TranslationUnit, cindex.Token]
    get_loc.restype = cindex.SourceLocation
    base = raws[0] - get_loc(unit, array[0]).offset
    probes = {0, n - 1, n // 2, n // 3, (2 * n) // 3}
    if stride == 6 and all(raws[i] - base == get_loc(unit, array[i]).offset for i in probes):
        starts = [r - base for r in raws]
    else:  # unknown encoding: ask libclang for every token (slow but right)
        starts = [get_loc(unit, array[i]).offset for i in range(n)]
        get_ext = lib["clang_getTokenExtent"]
        get_ext.argtypes = [cindex.TranslationUnit, cindex.Token]
        get_ext.restype = cindex.SourceRange
        lengths = [get_ext(unit, array[i]).end.offset - starts[i] for i in range(n)]
    ends = [s + length for s, length in zip(starts, lengths, strict=True)]
    return kinds, starts, ends


def _skipped_ranges(cindex, lib, unit, cxfile) -> list[tuple[int, int]]:
    """Byte ranges the preprocessor skipped (inactive ``#if`` branches) in the main file.

    Needs the detailed preprocessing record, which s2s's parse always asks for.
    """
    try:
        fn = lib["clang_getSkippedRanges"]
    except AttributeError:
        return []
    fn.argtypes = [cindex.TranslationUnit, cindex.File]
    fn.restype = ctypes.POINTER(_CXSourceRangeList)
    result = fn(unit, cxfile)
    if not result:
        return []
    out = []
    try:
        lst = result.contents
        ranges = ctypes.cast(lst.ranges, ctypes.POINTER(cindex.SourceRange))
        for i in range(lst.count):
            out.append((ranges[i].start.offset, ranges[i].end.offset))
    finally:
        dispose = lib["clang_disposeSourceRangeList"]
        dispose.argtypes = [ctypes.POINTER(_CXSourceRangeList)]
        dispose.restype = None
        dispose(result)
    return sorted(out)
