"""CUDA constructs from libclang cursors: kernels and device functions, launches, API calls.

Three libclang habits shape this module:

* Code produced by a macro has macro-located cursors, which the shared main-file walk
  (``ExtractContext.nodes``) does not enter, so ``CUDA_CHECK(cudaMalloc(...))``, launches
  behind a ``LAUNCH(...)`` macro and every ``__shared__ T x[...];`` statement (it begins with
  the ``__shared__`` macro) would be invisible. :class:`_Unit` finds, for each macro call
  inside a function, the deepest walked cursor around it and adds the hidden children it has.
* Code from a macro *argument* has an empty extent, yet ``clang_getFileLocation`` still says
  where its text is spelled, so such expressions keep their exact text. Code from a macro
  *body* is recovered from a small text expansion of the file's own ``#define``s. Either way
  every span is the macro call's (flagged ``macro``), so nothing in there is ever edited.
* ``__global__``, ``__device__``, ``__shared__`` are macros of the CUDA headers: the
  attribute cursors live there, so they are read from a cursor's own children.

libclang calls cost microseconds each through ctypes; everything here visits the cached walk
once and asks libclang only about the cursors it keeps (calls, builtins, declarations).
"""

from __future__ import annotations

import bisect
import ctypes
import functools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from s2s.frontend.context import FUNCTION_KINDS, TEMPLATE_KINDS, ExtractContext, Node
from s2s.frontend.toolchain import configure_libclang
from s2s.model.cuda import ApiCall, BuiltinUse, DeviceCall, Kernel, Launch, Param, SharedArray
from s2s.model.span import Expr, SourceSpan

BUILTIN_VARS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim"})
#: The hidden call clang builds for ``<<<...>>>`` (``cudaConfigureCall`` before CUDA 9.2).
CONFIG_CALLS = frozenset({"__cudaPushCallConfiguration", "cudaConfigureCall"})
#: Qualifier macros that only ever start declarations outside statements: no cursor hides there.
ATTRIBUTE_MACROS = frozenset({"__global__", "__device__", "__host__", "__forceinline__",
                              "__noinline__", "__restrict__", "__launch_bounds__", "__constant__",
                              "__managed__", "__align__", "__inline__"})
ARRAY_KINDS = frozenset({"CONSTANTARRAY", "INCOMPLETEARRAY", "VARIABLEARRAY",
                         "DEPENDENTSIZEDARRAY"})
TEMPLATE_PARAM_KINDS = frozenset({"TEMPLATE_TYPE_PARAMETER", "TEMPLATE_NON_TYPE_PARAMETER",
                                  "TEMPLATE_TEMPLATE_PARAMETER"})

# --- device call categories -------------------------------------------------------------

SYNC_CALLS = frozenset({"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                        "__syncthreads_or", "__syncwarp"})
_ATOMIC_OPS = ("Add", "Sub", "Min", "Max", "Exch", "CAS", "Inc", "Dec", "And", "Or", "Xor")
ATOMIC_CALLS = frozenset(f"atomic{op}{scope}" for op in _ATOMIC_OPS
                         for scope in ("", "_block", "_system"))
WARP_CALLS = frozenset({"__ballot_sync", "__any_sync", "__all_sync", "__uni_sync",
                        "__activemask", "__ballot", "__any", "__all"})
_MATH_BASES = (
    "acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi cyl_bessel_i0 "
    "cyl_bessel_i1 erf erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fabs fdim floor fma "
    "fmax fmin fmod frexp hypot ilogb j0 j1 jn ldexp lgamma llrint llround log log10 log1p "
    "log2 logb lrint lround modf nan nearbyint nextafter norm norm3d norm4d normcdf "
    "normcdfinv pow rcbrt remainder remquo rhypot rint rnorm rnorm3d rnorm4d round rsqrt "
    "scalbln scalbn sin sincos sincospi sinh sinpi sqrt tan tanh tgamma trunc y0 y1 yn").split()
MATH_CALLS = frozenset(
    [*_MATH_BASES, *(b + "f" for b in _MATH_BASES)]
    + ("abs labs llabs min max umin umax llmin llmax ullmin ullmax isnan isinf isfinite "
       "signbit __expf __exp10f __logf __log2f __log10f __sinf __cosf __tanf __powf "
       "__sincosf __fdividef __fdivide __saturatef __frsqrt_rn __popc __popcll __clz __clzll "
       "__ffs __ffsll __brev __brevll __byte_perm __mul24 __umul24 __mulhi __umulhi "
       "__mul64hi __umul64hi __sad __usad __hadd __rhadd __uhadd __urhadd __funnelshift_l "
       "__funnelshift_lc __funnelshift_r __funnelshift_rc __fns").split())
#: Correctly rounded arithmetic and conversion intrinsics (__fadd_rn, __float2int_rz, ...).
MATH_PATTERN = re.compile(r"__(?:[fd](?:add|sub|mul|div|rcp|sqrt|fma|fmaf)|fmaf?|frcp|fsqrt|"
                          r"[a-z0-9]+2[a-z0-9]+)_r[nzud]$|__(?:float|double|int|uint|ll|ull|"
                          r"half|float2half|half2float)\w*2\w+$")
#: Headers whose functions are the math library; other CUDA-header functions are ``other``.
MATH_HEADERS = frozenset({
    "__clang_cuda_math.h", "__clang_cuda_cmath.h", "__clang_cuda_math_forward_declares.h",
    "__clang_cuda_device_functions.h", "__clang_cuda_libdevice_declares.h",
    "math_functions.h", "math_functions.hpp", "device_functions.h", "device_functions.hpp",
    "cmath", "math.h", "mathcalls.h", "std_abs.h", "cuda_fp16.hpp", "cuda_bf16.hpp",
    "cuda_fp16.h", "cuda_bf16.h", "sm_20_intrinsics.h", "sm_20_intrinsics.hpp"})
NOT_MATH = frozenset({"__trap", "__brkpt", "__nanosleep", "__prof_trigger", "clock",
                      "clock64", "printf", "malloc", "free", "memcpy", "memset", "assert",
                      "__assertfail", "__ldg"})


def device_call_category(name: str, user_device: bool = False) -> str:
    """Category of a call made in device code (``user_device``: a user ``__device__`` function).

    The fixed tables win over user definitions: a user ``atomicAdd(double*, double)`` written
    for old GPUs is still an atomic.
    """
    if name in SYNC_CALLS:
        return "syncthreads"
    if name in ATOMIC_CALLS:
        return "atomic"
    if name in WARP_CALLS or (name.startswith("__shfl")) or name.startswith("__match") or (
            name.startswith("__reduce") and name.endswith("_sync")):
        return "warp"
    if name.startswith("__threadfence"):
        return "fence"
    if user_device:
        return "device_function"
    if name in MATH_CALLS or MATH_PATTERN.match(name):
        return "math"
    return "other"


# --- runtime API categories -------------------------------------------------------------

API_CATEGORIES = {
    "alloc": "cudaMalloc cudaMallocManaged cudaMallocHost cudaHostAlloc cudaMallocPitch "
             "cudaMalloc3D cudaMallocAsync cudaMallocArray cudaMalloc3DArray "
             "cudaMallocFromPoolAsync cudaMallocMipmappedArray",
    "free": "cudaFree cudaFreeHost cudaFreeAsync cudaFreeArray cudaFreeMipmappedArray",
    "memcpy": "cudaMemcpy cudaMemcpyAsync cudaMemcpy2D cudaMemcpy2DAsync cudaMemcpy3D "
              "cudaMemcpy3DAsync cudaMemcpyToSymbol cudaMemcpyToSymbolAsync "
              "cudaMemcpyFromSymbol cudaMemcpyFromSymbolAsync cudaMemcpyPeer "
              "cudaMemcpyPeerAsync cudaMemcpy3DPeer cudaMemcpy3DPeerAsync cudaMemPrefetchAsync "
              "cudaMemcpyToArray cudaMemcpyFromArray cudaMemcpy2DToArray cudaMemcpy2DFromArray "
              "cudaMemcpy2DToArrayAsync cudaMemcpy2DFromArrayAsync cudaMemcpyBatchAsync",
    "memset": "cudaMemset cudaMemsetAsync cudaMemset2D cudaMemset2DAsync cudaMemset3D "
              "cudaMemset3DAsync",
    "sync": "cudaDeviceSynchronize cudaStreamSynchronize cudaEventSynchronize "
            "cudaThreadSynchronize cudaStreamWaitEvent",
    "device": "cudaSetDevice cudaGetDevice cudaGetDeviceCount cudaGetDeviceProperties "
              "cudaDeviceReset cudaThreadExit cudaSetDeviceFlags cudaGetDeviceFlags "
              "cudaChooseDevice cudaMemGetInfo cudaDriverGetVersion cudaRuntimeGetVersion "
              "cudaInitDevice",
    "error": "cudaGetLastError cudaPeekAtLastError cudaGetErrorString cudaGetErrorName",
    "launch": "cudaLaunchKernel cudaLaunchCooperativeKernel cudaLaunchKernelEx "
              "cudaLaunchCooperativeKernelMultiDevice",
}
API_CATEGORY = {name: cat for cat, names in API_CATEGORIES.items() for name in names.split()}


def api_category(name: str) -> str:
    """Category of a CUDA runtime function (``other`` when not one of the known families)."""
    category = API_CATEGORY.get(name)
    if category is not None:
        return category
    if name.startswith("cudaStream") or name == "cudaLaunchHostFunc":
        return "stream"
    if name.startswith("cudaEvent"):
        return "event"
    if name.startswith("cudaDevice"):
        return "device"
    return "other"


# --- fast libclang access ---------------------------------------------------------------


@functools.cache
def _clang():
    """ctypes entry points for offsets without building cindex's Python wrappers (4x faster)."""
    cindex = configure_libclang()
    lib = cindex.conf.lib
    uint_p = ctypes.POINTER(ctypes.c_uint)
    file_location = lib.clang_getFileLocation
    file_location.argtypes = [cindex.SourceLocation, ctypes.POINTER(ctypes.c_void_p),
                              uint_p, uint_p, uint_p]
    file_location.restype = None
    spelling_location = lib.clang_getSpellingLocation
    spelling_location.argtypes = file_location.argtypes
    spelling_location.restype = None
    return (lib.clang_getCursorExtent, lib.clang_getRangeStart, lib.clang_getRangeEnd,
            lib.clang_getInstantiationLocation, file_location, spelling_location)


def _offsets(cursor, file_level: bool = False) -> tuple[int, int]:
    """``cursor``'s extent as byte offsets: expansion positions, or with ``file_level`` where
    the text is spelled when that is in the file (macro arguments)."""
    extent, start, end, expansion, file_location, _ = _clang()
    get = file_location if file_level else expansion
    rng = extent(cursor)
    out = ctypes.c_uint()
    get(start(rng), None, None, None, ctypes.byref(out))
    begin = out.value
    get(end(rng), None, None, None, ctypes.byref(out))
    return begin, out.value


def _children(cursor) -> list:
    """``cursor.get_children()`` without its per-child null check (a libclang call each)."""
    cindex = configure_libclang()
    out = []

    def visit(child, _parent, _data):
        child._tu = cursor._tu
        out.append(child)
        return 1  # CXChildVisit_Continue

    cindex.conf.lib.clang_visitChildren(cursor, cindex.cursor_visit_callback(visit), None)
    return out


@functools.cache
def _kind_names() -> dict[int, str]:
    return {kind.value: kind.name for kind in configure_libclang().CursorKind.get_all_kinds()}


def _kind(cursor) -> str:
    """``cursor.kind.name`` without cindex's per-call null check."""
    return _kind_names()[cursor._kind_id]


def _spelling(cursor) -> str:
    """``cursor.spelling`` without cindex's per-call null check."""
    cindex = configure_libclang()
    return cindex._CXString.from_result(cindex.conf.lib.clang_getCursorSpelling(cursor))


def _has_file(cursor) -> bool:
    """False for cursors with no place in any file (default arguments, implicit nodes)."""
    extent, start, _, expansion, _, _ = _clang()
    handle = ctypes.POINTER(ctypes.c_void_p)()
    expansion(start(extent(cursor)), ctypes.byref(handle), None, None, None)
    return bool(handle)


# --- text helpers -----------------------------------------------------------------------

_CLOSE = {"(": ")", "[": "]", "{": "}"}
_LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|##|#\s*[A-Za-z_]\w*|'
                    r"[A-Za-z_]\w*")
_IDENT_AT_END = re.compile(r"([A-Za-z_]\w*)\s*$")
_BUILTIN_MEMBER = re.compile(r"\s*(threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*([xyz])\s*$")
_BUILTIN_AT = re.compile(r"(threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*([xyz])(?!\w)")


def _blank_literals(text: str) -> str:
    """``text`` with string and character literal contents blanked (same length)."""
    return _LITERAL.sub(lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1],
                        text)


def _group_end(text: str, i: int) -> int:
    """Index just past the bracket group opening at ``text[i]`` (``len(text)`` if unclosed)."""
    stack = []
    for j in range(i, len(text)):
        ch = text[j]
        if ch in _CLOSE:
            stack.append(_CLOSE[ch])
        elif ch in ")]}" and stack:
            if ch == stack[-1]:
                stack.pop()
            if not stack:
                return j + 1
    return len(text)


def _split_top(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Top-level comma-separated pieces of ``text[start:end]``, trimmed (literals blanked)."""
    pieces, depth, begin = [], 0, start
    for j in range(start, end):
        ch = text[j]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(_trim(text, begin, j))
            begin = j + 1
    last = _trim(text, begin, end)
    if pieces or last[0] < last[1]:
        pieces.append(last)
    return pieces


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _call_args(text: str, name: str, nth: int = 0) -> list[str] | None:
    """Argument texts of the ``nth`` call ``name(...)`` in ``text``, or None."""
    blank = _blank_literals(text)
    found = list(re.finditer(rf"(?<![\w.>]){re.escape(name)}\s*\(", blank))
    if nth >= len(found):
        return None
    open_ = found[nth].end() - 1
    close = _group_end(blank, open_)
    return [text[s:e] for s, e in _split_top(blank, open_ + 1, close - 1)]


@dataclass(frozen=True)
class _LaunchText:
    """A ``kernel<targs><<<config>>>(args)`` recovered from text."""

    kernel: str
    template_args: str | None
    config: list[str]
    args: list[str]


def _parse_launch(text: str, nth: int = 0) -> _LaunchText | None:
    """The ``nth`` launch written in ``text`` (a macro expansion), or None."""
    blank = _blank_literals(text)
    starts = [m.start() for m in re.finditer(r"<<<", blank)]
    if nth >= len(starts):
        return None
    at = starts[nth]
    callee_end = at
    while callee_end > 0 and blank[callee_end - 1].isspace():
        callee_end -= 1
    targs = None
    name_end = callee_end
    if callee_end and blank[callee_end - 1] == ">":
        depth, j = 0, callee_end - 1
        while j >= 0:
            depth += {">": 1, "<": -1}.get(blank[j], 0)
            if depth == 0:
                break
            j -= 1
        targs = text[j + 1 : callee_end - 1].strip()
        name_end = j
    match = _IDENT_AT_END.search(blank, 0, name_end)
    close = blank.find(">>>", at + 3)
    if match is None or close < 0:
        return None
    config = [text[s:e] for s, e in _split_top(blank, at + 3, close)]
    open_ = close + 3
    while open_ < len(blank) and blank[open_].isspace():
        open_ += 1
    args: list[str] = []
    if open_ < len(blank) and blank[open_] == "(":
        end = _group_end(blank, open_)
        args = [text[s:e] for s, e in _split_top(blank, open_ + 1, end - 1)]
    return _LaunchText(match.group(1), targs, config, args)


# --- macros -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _MacroCall:
    start: int
    end: int
    name: str


class _Macros:
    """The file's macro calls (outermost ones) and ``#define``s, with a small text expander."""

    def __init__(self, ctx: ExtractContext):
        self.source = ctx.source
        calls, self._defs = [], {}
        for cursor in ctx.top_level:
            kind = cursor.kind.name
            if kind == "MACRO_INSTANTIATION":
                start, end = _offsets(cursor)
                calls.append(_MacroCall(start, end, cursor.spelling))
            elif kind == "MACRO_DEFINITION":
                start, end = _offsets(cursor)
                self._defs.setdefault(cursor.spelling, []).append((start, end))
        calls.sort(key=lambda c: (c.start, -c.end))
        self.all = calls
        self._all_starts = [c.start for c in calls]
        self.outer: list[_MacroCall] = []
        for call in calls:
            if not self.outer or call.start >= self.outer[-1].end:
                self.outer.append(call)
        self._starts = [c.start for c in self.outer]
        self._expansions: dict[tuple[str, int], str | None] = {}
        self._parsed: dict[tuple[int, int], tuple] = {}

    def call_at(self, offset: int) -> _MacroCall | None:
        """The outermost macro call whose text holds ``offset`` (its start included)."""
        i = bisect.bisect_right(self._starts, offset) - 1
        if i >= 0 and self.outer[i].start <= offset < max(self.outer[i].end, offset + 1):
            return self.outer[i]
        return None

    def inner_at(self, offset: int, outer_start: int) -> list[_MacroCall]:
        """Macro calls nested in the arguments of the call at ``outer_start`` that hold
        ``offset``, outermost first."""
        found, i = [], bisect.bisect_right(self._all_starts, offset) - 1
        while i >= 0 and self.all[i].start > outer_start:
            if offset < self.all[i].end:
                found.append(self.all[i])
            i -= 1
        return found[::-1]

    def text(self, start: int, end: int) -> str:
        return self.source[start:end].decode("utf-8", errors="surrogateescape")

    def expansion(self, call: _MacroCall) -> str | None:
        """The call's text with the file's own macros expanded (None: macro not defined here)."""
        text = self.text(call.start, call.end)
        spans = self._defs.get(call.name, ())
        # Same text under the same #define: same expansion (CHECK(cudaGetLastError()) x 50).
        key = (text, bisect.bisect_left(spans, (call.start,)))
        if key not in self._expansions:
            expanded = self._expand(text, call.start, frozenset(), 0)
            self._expansions[key] = expanded if expanded != text else None
        return self._expansions[key]

    def _definition(self, name: str, before: int):
        """(params or None for an object-like macro, body) of the last ``#define`` before."""
        spans = self._defs.get(name)
        if not spans:
            return None
        i = bisect.bisect_left(spans, (before,)) - 1
        if i < 0:
            return None
        key = spans[i]
        if key not in self._parsed:
            text = self.text(*key).replace("\\\n", " ")
            text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
            rest = text[len(name):]
            if not rest.startswith("("):
                self._parsed[key] = None, rest.strip()
            else:
                close = rest.find(")")
                params = [p.strip() for p in rest[1:close].split(",") if p.strip()]
                self._parsed[key] = params, rest[close + 1 :].strip()
        return self._parsed[key]

    def _expand(self, text: str, at: int, active: frozenset, depth: int) -> str:
        out, pos = [], 0
        for match in _TOKEN.finditer(text):
            if match.start() < pos:
                continue
            name = match.group(0)
            definition = None if name in active or depth > 8 else self._definition(name, at)
            if definition is None:
                continue
            params, body = definition
            end = match.end()
            if params is not None:
                open_ = end
                while open_ < len(text) and text[open_].isspace():
                    open_ += 1
                if open_ >= len(text) or text[open_] != "(":
                    continue
                end = _group_end(text, open_)
                blank = _blank_literals(text)
                args = [text[s:e] for s, e in _split_top(blank, open_ + 1, end - 1)]
                body = _substitute(body, params, args)
            out.append(text[pos : match.start()])
            out.append(self._expand(body, at, active | {name}, depth + 1))
            pos = end
        out.append(text[pos:])
        return "".join(out)


def _substitute(body: str, params: list[str], args: list[str]) -> str:
    """Replace macro parameters in ``body`` (``#p`` stringizes, ``##`` pastes)."""
    names = {p.removesuffix("..."): i for i, p in enumerate(params) if p != "..."}
    variadic = len(params) - 1 if params and params[-1].endswith("...") else None
    values = {n: args[i] if i < len(args) else "" for n, i in names.items()}
    if variadic is not None:
        rest = ", ".join(args[variadic:])
        values["__VA_ARGS__"] = rest
        if params[-1] != "...":
            values[params[-1].removesuffix("...")] = rest

    def replace(match):
        token = match.group(0)
        if token.startswith("#") and token != "##":
            name = token[1:].strip()
            return '"' + values[name].replace('"', '\\"') + '"' if name in values else token
        return values.get(token, token)

    return re.sub(r"\s*##\s*", "", _TOKEN.sub(replace, body))


# --- one extraction context ---------------------------------------------------------------


@dataclass(frozen=True)
class _Function:
    """A function-like cursor of the walk: its item index and the end of its subtree."""

    node: Node
    index: int
    end: int


class _Unit:
    """What the three extractors share for one context: the walk with macro-hidden cursors
    added, each item's parent and enclosing function, and cached per-cursor facts."""

    def __init__(self, ctx: ExtractContext):
        self.ctx = ctx
        self.macros = _Macros(ctx)
        self.items = self._with_hidden(ctx.nodes())
        self.depths = [node.depth for node in self.items]
        self.functions = self._find_functions()
        self._function_starts = [f.index for f in self.functions]
        self._attrs: dict = {}
        self._call_items = [i for i, n in enumerate(self.items) if n.kind == "CALL_EXPR"]

    # The walk -------------------------------------------------------------------------

    def _with_hidden(self, nodes: list[Node]) -> list[Node]:
        calls = [c for c in self.macros.outer if c.name not in ATTRIBUTE_MACROS]
        if not calls or not nodes:
            return nodes
        ends = _subtree_ends(nodes)
        if self._walk_enters_macros(nodes, ends, calls):
            return nodes
        containers = {self._container(nodes, ends, call) for call in calls}
        containers.discard(None)
        out: list[Node] = []
        for i, node in enumerate(nodes):
            out.append(node)
            if i in containers:
                out.extend(self._hidden_children(node, self._extent(nodes, i)))
        return out

    def _walk_enters_macros(self, nodes, ends, calls: list[_MacroCall]) -> bool:
        """Whether the context's walk already holds macro-produced cursors (a cursor lies
        within a macro call's text); a few probes suffice, as some macros produce none."""
        probes = 0
        for call in calls:
            index = self._container(nodes, ends, call)
            if index is None:
                continue
            start, end = self._extent(nodes, index)
            if call.start <= start and end <= call.end:
                return True
            probes += 1
            if probes == 5:
                return False
        return False

    def _container(self, nodes, ends, call: _MacroCall) -> int | None:
        """Index of the deepest walked cursor whose extent holds the macro call."""
        i = bisect.bisect_right(self._top_starts(nodes, ends), call.start) - 1
        if i < 0:
            return None
        index = self._tops[i]
        start, end = self._extent(nodes, index)
        if not (start <= call.start and call.end <= end):
            return None
        while True:
            child, found = index + 1, None
            while child < ends[index]:
                c_start, c_end = self._extent(nodes, child)
                if c_start > call.start:
                    break
                if c_start <= call.start and call.end <= c_end and c_start < c_end:
                    found = child
                    break
                child = ends[child]
            if found is None:
                return index
            index = found

    def _top_starts(self, nodes, ends) -> list[int]:
        if not hasattr(self, "_tops"):
            self._extents: dict[int, tuple[int, int]] = {}
            self._tops, i = [], 0
            while i < len(nodes):
                self._tops.append(i)
                i = ends[i]
            self._tops.sort(key=lambda j: self._extent(nodes, j)[0])
            self._top_start_list = [self._extent(nodes, j)[0] for j in self._tops]
        return self._top_start_list

    def _extent(self, nodes, index: int) -> tuple[int, int]:
        found = self._extents.get(index)
        if found is None:
            found = self._extents[index] = _offsets(nodes[index].cursor)
        return found

    def _hidden_children(self, parent: Node, bounds: tuple[int, int]) -> list[Node]:
        """Macro-produced descendants of ``parent``, in pre-order.

        A child the main-file walk skipped but that has a place inside ``parent``'s text can
        only come from a macro expanded there (header code has no place in this file; implicit
        nodes such as default arguments have no place at all).
        """
        out = []
        first = [c for c in _children(parent.cursor)
                 if not self.ctx.in_main_file(c) and _has_file(c)
                 and bounds[0] <= _offsets(c)[0] <= bounds[1]]
        stack = [(c, parent.depth + 1) for c in reversed(first)]
        while stack:
            cursor, depth = stack.pop()
            kind = _kind(cursor)
            template = parent.template
            if template is None and kind in TEMPLATE_KINDS:
                template = cursor.spelling
            out.append(Node(cursor, kind, depth, template, parent.function))
            children = _children(cursor)
            if kind == "CALL_EXPR":  # default arguments: nodes with no place in any file
                children = [c for c in children if _has_file(c)]
            stack.extend((c, depth + 1) for c in reversed(children))
        return out

    def _find_functions(self) -> list[_Function]:
        depths, count, out = self.depths, len(self.items), []
        for i, node in enumerate(self.items):
            if node.kind in FUNCTION_KINDS:
                end, depth = i + 1, depths[i]
                while end < count and depths[end] > depth:
                    end += 1
                out.append(_Function(node, i, end))
        return out

    def parent(self, index: int) -> int:
        """The walk parent of item ``index`` (-1 at the top): a short backward scan."""
        depths, depth = self.depths, self.depths[index]
        index -= 1
        while index >= 0 and depths[index] >= depth:
            index -= 1
        return index

    def owner(self, index: int) -> int:
        """Index in ``functions`` of the innermost function holding item ``index``, or -1."""
        i = bisect.bisect_left(self._function_starts, index) - 1
        while i >= 0 and not index < self.functions[i].end:
            i -= 1
        return i

    def body(self, function: _Function) -> Iterator[int]:
        """Item indices of a function's subtree, without those of nested functions."""
        index = function.index + 1
        while index < function.end:
            if self.items[index].kind in FUNCTION_KINDS:
                index = self.functions[bisect.bisect_left(self._function_starts, index)].end
                continue
            yield index
            index += 1

    def occurrence(self, index: int, call: _MacroCall) -> int:
        """How many calls of the same name precede the call at ``index`` in the expansion of
        ``call`` (the walk visits a macro's cursors as a block, in expansion order)."""
        name = self.call_name(index)
        count = 0
        i = bisect.bisect_left(self._call_items, index) - 1
        while i >= 0:
            other = self._call_items[i]
            start = _offsets(self.items[other].cursor)[0]
            if not call.start <= start < call.end:
                break
            count += self.call_name(other) == name
            i -= 1
        return count

    # Per-cursor facts ---------------------------------------------------------------------

    def attrs(self, cursor) -> frozenset[str]:
        """Kinds of the attribute children of a declaration (CUDAGLOBAL_ATTR, ...)."""
        key = cursor.hash
        found = self._attrs.get(key)
        if found is None:
            found = self._attrs[key] = frozenset(
                c.kind.name for c in cursor.get_children() if c.kind.name.endswith("_ATTR"))
        return found

    def is_device_only(self, function: int) -> bool:
        """True for kernels and ``__device__`` functions that are not also ``__host__``."""
        if function < 0:
            return False
        attrs = self.attrs(self.functions[function].node.cursor)
        return "CUDAGLOBAL_ATTR" in attrs or (
            "CUDADEVICE_ATTR" in attrs and "CUDAHOST_ATTR" not in attrs)

    def function_name(self, index: int) -> str:
        return self.items[index].function or ""

    # Spans and expressions ----------------------------------------------------------------

    def span(self, cursor, template: str | None) -> SourceSpan:
        """The cursor's span; inside a macro, the whole macro call's (flagged) span.

        Built here rather than by ``ctx.span`` to look the macro call up by bisection.
        """
        return self.span_of(*_offsets(cursor), template)

    def span_of(self, start: int, end: int, template: str | None) -> SourceSpan:
        """The span of ``[start, end)``, widened to the macro call holding it, if any."""
        macro = None
        call = self.macros.call_at(start)
        if call is not None and end <= call.end:
            start, end, macro = call.start, call.end, call.name
        index = self.ctx.index
        line, column = index.line_col(start)
        end_line, end_column = index.line_col(end)
        return SourceSpan(index.path, start, end, line, column, end_line, end_column,
                          index.indent(start), macro, template)

    def expr(self, cursor, template: str | None, whole_macro: bool = False) -> Expr:
        """Text and span of an expression; macro-argument text is kept exact.

        ``whole_macro``: the expression sits in plain code (an argument of a call outside any
        macro), so when it is exactly a macro call (``FULL_MASK``, ``MAX(a, b)``), that call
        is its text as written.
        """
        offsets = _offsets(cursor)
        span = self.span_of(*offsets, template)
        if span.macro is None or (whole_macro and offsets == (span.start, span.end)):
            return Expr(self.ctx.index.text(span.start, span.end), span)
        return Expr(self.spelled_text(cursor, span), span)

    def spelled_text(self, cursor, macro_span: SourceSpan) -> str:
        """The cursor's text when it is written in an argument of the macro call, else ''."""
        start, end = _offsets(cursor, file_level=True)
        # A nested macro written in the argument (CHECK(f(BYTES))) maps both ends of its
        # expansion to its name: widen to the whole nested call.
        for inner in self.macros.inner_at(start, macro_span.start) + self.macros.inner_at(
                end, macro_span.start):
            start, end = min(start, inner.start), max(end, inner.end)
        name_end = macro_span.start + len(macro_span.macro or "")
        if name_end < start < end < macro_span.end:
            return self.ctx.index.text(start, end)
        return ""

    def call_args(self, index: int, template: str | None) -> tuple[SourceSpan, tuple[Expr, ...]]:
        """Span and argument expressions of the call at walk item ``index``."""
        cursor = self.items[index].cursor
        span = self.span(cursor, template)
        plain = span.macro is None
        args = [self.expr(a, template, plain) for a in cursor.get_arguments() if _has_file(a)]
        if not plain and any(not a.text for a in args):
            texts = self._macro_call_texts(index, span)
            if texts is not None and len(texts) == len(args):
                args = [a if a.text else Expr(t.strip(), a.span)
                        for a, t in zip(args, texts, strict=True)]
        return span, tuple(args)

    def _macro_call_texts(self, index: int, span: SourceSpan) -> list[str] | None:
        call = self.macros.call_at(span.start)
        expansion = self.macros.expansion(call) if call else None
        if expansion is None:
            return None
        name = self.call_name(index)
        return _call_args(expansion, name, self.occurrence(index, call)) if name else None

    def call_name(self, index: int) -> str:
        """The callee's name; '' for a functional cast such as ``T(0)`` in a template.

        libclang leaves the spelling empty for unresolved calls in templates: the name is then
        that of the overload set, or read from the callee's text.
        """
        cursor = self.items[index].cursor
        name = _spelling(cursor)
        if name:
            return name
        children = _children(cursor)
        if not children or _kind(children[0]) == "TYPE_REF":
            return ""
        callee = children[0]
        for part in (callee, *_children(callee)):
            if _kind(part) == "OVERLOADED_DECL_REF" and part.spelling:
                return part.spelling
        text = self.expr(callee, None).text.split("<", 1)[0]
        match = _IDENT_AT_END.search(text)
        return match.group(1) if match else ""


def _subtree_ends(nodes: list[Node]) -> list[int]:
    """For each pre-order index, the index just past its subtree."""
    ends = [len(nodes)] * len(nodes)
    stack: list[int] = []
    for i, node in enumerate(nodes):
        while stack and nodes[stack[-1]].depth >= node.depth:
            ends[stack.pop()] = i
        stack.append(i)
    return ends


def _unit(ctx: ExtractContext) -> _Unit:
    return ctx.memo("cuda.unit", _Unit)


# --- kernels and device functions -----------------------------------------------------------


def extract_kernels(ctx: ExtractContext) -> tuple[tuple[Kernel, ...], tuple[Kernel, ...]]:
    """``__global__`` kernels and ``__device__`` functions (``__host__ __device__`` included)
    defined in the main file; a declaration counts only when no definition has its name."""
    unit = _unit(ctx)
    found = []
    for number, function in enumerate(unit.functions):
        node = function.node
        if node.kind in ("CONSTRUCTOR", "DESTRUCTOR"):
            continue
        attrs = unit.attrs(node.cursor)
        is_global = "CUDAGLOBAL_ATTR" in attrs
        if is_global or "CUDADEVICE_ATTR" in attrs:
            found.append((number, is_global, node.cursor.is_definition()))
    defined = {unit.functions[n].node.cursor.spelling for n, _, d in found if d}
    device_names = {unit.functions[n].node.cursor.spelling for n, g, _ in found if not g}
    shared_globals = _file_scope_shared(unit)
    kernels, device_functions = [], []
    for number, is_global, is_definition in found:
        name = unit.functions[number].node.cursor.spelling
        if not is_definition and name in defined:
            continue
        kernel = _kernel(unit, unit.functions[number], is_global, device_names, shared_globals)
        (kernels if is_global else device_functions).append(kernel)
    return tuple(kernels), tuple(device_functions)


def _kernel(unit: _Unit, function: _Function, is_global: bool, device_names: set[str],
            shared_globals: dict[str, tuple]) -> Kernel:
    node = function.node
    cursor, template = node.cursor, node.template
    params, template_params, body_span = [], [], None
    for child in cursor.get_children():
        kind = child.kind.name
        if kind == "PARM_DECL":
            params.append(_param(unit, child, template))
        elif kind in TEMPLATE_PARAM_KINDS:
            template_params.append(child.spelling)
        elif kind == "COMPOUND_STMT":
            body_span = unit.span(child, template)
    builtins, shared, calls = _body_facts(unit, function, device_names, shared_globals)
    return Kernel(
        name=cursor.spelling,
        span=unit.span(cursor, template),
        params=tuple(params),
        body_span=body_span,
        is_global=is_global,
        template_params=tuple(template_params),
        builtins=tuple(builtins),
        shared_arrays=tuple(shared),
        calls=tuple(calls),
        side=unit.ctx.side,
    )


def _param(unit: _Unit, cursor, template: str | None) -> Param:
    """A parameter with pointer facts; array parameters (``float a[]``) are pointers."""
    ptype = cursor.type
    canonical = ptype.get_canonical()
    is_pointer = canonical.kind.name == "POINTER" or ptype.kind.name == "POINTER"
    is_array = ptype.kind.name in ARRAY_KINDS
    pointee_const = False
    if is_pointer:
        pointee_const = ptype.get_pointee().is_const_qualified() or (
            canonical.get_pointee().is_const_qualified())
    elif is_array:
        pointee_const = ptype.element_type.is_const_qualified()
    spelling = ptype.spelling
    restrict = ptype.is_restrict_qualified() or bool(
        re.search(r"\*[^*]*\b(?:__restrict__|__restrict|restrict)\b[^*]*$", spelling))
    return Param(name=cursor.spelling, type=spelling, span=unit.span(cursor, template),
                 is_pointer=is_pointer or is_array, pointee_const=pointee_const,
                 restrict=restrict)


def _body_facts(unit: _Unit, function: _Function, device_names: set[str],
                shared_globals: dict[str, tuple]):
    """Builtin uses, shared arrays and calls in one pass over the function's walk items."""
    template = function.node.template
    builtins: list[BuiltinUse] = []
    shared: list[SharedArray] = []
    calls: list[DeviceCall] = []
    globals_used: list[str] = []
    for index in unit.body(function):
        node = unit.items[index]
        kind = node.kind
        if kind == "DECL_REF_EXPR":
            name = node.cursor.spelling
            if name in BUILTIN_VARS or name == "warpSize":
                builtins.append(_builtin(unit, index, name, template))
            elif name in shared_globals and name not in globals_used:
                globals_used.append(name)
        elif kind == "VAR_DECL":
            array = _shared_array(unit, node.cursor, template)
            if array is not None:
                shared.append(array)
        elif kind == "CALL_EXPR":
            call = _device_call(unit, index, template, device_names)
            if call is not None:
                calls.append(call)
    shared.sort(key=_start)  # macro-hidden cursors come first in the walk
    shared[:0] = [_shared_array(unit, *shared_globals[name]) for name in globals_used]
    return sorted(builtins, key=_start), shared, sorted(calls, key=_start)


def _start(item) -> int:
    return item.span.start


def _builtin(unit: _Unit, index: int, name: str, template: str | None) -> BuiltinUse:
    """``threadIdx.x`` (a property reference over the variable) or a bare use (component '')."""
    parent = unit.parent(index)
    if name == "warpSize" or parent < 0 or unit.items[parent].kind != "MEMBER_REF_EXPR":
        return BuiltinUse(name, "", unit.span(unit.items[index].cursor, template))
    member = unit.items[parent].cursor
    span = unit.span(member, template)
    text = unit.ctx.index.text(span.start, span.end) if span.macro is None else (
        unit.spelled_text(member, span))
    match = _BUILTIN_MEMBER.match(text)
    component = match.group(2) if match else _component_from_definition(unit, member)
    return BuiltinUse(name, component, span)


def _component_from_definition(unit: _Unit, member) -> str:
    """The component of a builtin written in a macro body (``#define tx threadIdx.x``): the
    reference's spelling location points at the builtin's name inside the ``#define``."""
    out = ctypes.c_uint()
    _clang()[5](member.location, None, None, None, ctypes.byref(out))
    text = unit.ctx.source[out.value : out.value + 64].decode("utf-8", errors="replace")
    match = _BUILTIN_AT.match(text)
    return match.group(2) if match else ""


def _shared_array(unit: _Unit, cursor, template: str | None) -> SharedArray | None:
    """A ``__shared__`` variable; ``dims`` as written (from the type when not readable)."""
    storage = cursor.storage_class.name
    if storage not in ("STATIC", "EXTERN") or "CUDASHARED_ATTR" not in unit.attrs(cursor):
        return None
    element = cursor.type
    while element.kind.name in ARRAY_KINDS:
        element = element.element_type
    dims = _written_dims(unit, cursor)
    if dims is None:
        dims = tuple(re.findall(r"\[([^\]]*)\]", cursor.type.spelling))
    if dims and not dims[0]:
        dims = dims[1:]
    return SharedArray(name=cursor.spelling, element_type=element.spelling, dims=dims,
                       extern=storage == "EXTERN", span=unit.span(cursor, template))


def _written_dims(unit: _Unit, cursor) -> tuple[str, ...] | None:
    name = cursor.spelling
    at = cursor.location.offset
    source = unit.ctx.source
    if unit.macros.call_at(at) is not None or source[at : at + len(name)] != name.encode():
        return None
    text = source[at + len(name) : at + len(name) + 4096].decode("utf-8", errors="replace")
    dims, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text) or text[pos] != "[":
            return tuple(dims)
        end = _group_end(text, pos)
        dims.append(text[pos + 1 : end - 1].strip())
        pos = end


def _file_scope_shared(unit: _Unit) -> dict[str, tuple]:
    """``__shared__`` variables declared outside functions, by name: (cursor, template)."""
    found = {}
    for index, node in enumerate(unit.items):
        if node.kind == "VAR_DECL" and unit.owner(index) < 0:
            if "CUDASHARED_ATTR" in unit.attrs(node.cursor):
                found[node.cursor.spelling] = (node.cursor, node.template)
    return found


def _device_call(unit: _Unit, index: int, template: str | None,
                 device_names: set[str]) -> DeviceCall | None:
    cursor = unit.items[index].cursor
    name = unit.call_name(index)
    if not name or name in CONFIG_CALLS:
        return None
    ref = cursor.referenced
    ref_kind = ref.kind.name if ref is not None else None
    if ref_kind in ("CONSTRUCTOR", "DESTRUCTOR") or (
            name.startswith("operator") and _implicit_operator(ref)):
        return None
    if ref is not None and ref_kind in FUNCTION_KINDS:
        attrs = unit.attrs(ref)
        if "CUDAGLOBAL_ATTR" in attrs:  # a launch from device code: out of scope
            category = "other"
        else:
            user = not ref.location.is_in_system_header and ref.location.file is not None
            category = device_call_category(name, user and "CUDADEVICE_ATTR" in attrs)
            if category == "other" and _declared_in_math_header(ref, name):
                category = "math"
    else:
        category = device_call_category(name, name in device_names)
    span, args = unit.call_args(index, template)
    return DeviceCall(name=name, category=category, args=args, span=span)


def _implicit_operator(ref) -> bool:
    """Operators nobody wrote: ``a = b`` on a float4 is an implicit copy assignment."""
    return ref is None or ref.location.is_in_system_header or (
        ref.kind.name == "CXX_METHOD" and ref.is_default_method())


def _declared_in_math_header(ref, name: str) -> bool:
    where = ref.location.file
    if where is None or name in NOT_MATH or not ref.location.is_in_system_header:
        return False
    return os.path.basename(where.name) in MATH_HEADERS


# --- launches ------------------------------------------------------------------------------


def extract_launches(ctx: ExtractContext) -> tuple[Launch, ...]:
    """Every ``kernel<<<...>>>(args)`` in host code (launches from device code are skipped)."""
    unit = _unit(ctx)
    launches = []
    for index, node in enumerate(unit.items):
        if node.kind != "CALL_EXPR" or _spelling(node.cursor) not in CONFIG_CALLS:
            continue
        launch = unit.parent(index)
        if launch < 0 or unit.items[launch].kind != "CALL_EXPR" or unit.is_device_only(
                unit.owner(launch)):
            continue
        launches.append(_launch(unit, launch, index))
    return tuple(sorted(launches, key=_start))


def _launch(unit: _Unit, index: int, config_index: int) -> Launch:
    node = unit.items[index]
    template = node.template
    cursor, config = node.cursor, unit.items[config_index].cursor
    span = unit.span(cursor, template)
    config_span = unit.span(config, template)
    config_args = list(config.get_arguments())
    plain = span.macro is None
    exprs: list[Expr | None] = [
        unit.expr(a, template, plain) if _has_file(a) else None for a in config_args[:4]]
    exprs += [None] * (4 - len(exprs))
    args = [unit.expr(a, template, plain) for a in cursor.get_arguments() if _has_file(a)]
    callee = _callee_text(unit, cursor, span)
    if span.macro is None:
        exprs = _checked_config(unit, exprs, config_span, template)
    elif _incomplete(exprs, args):
        exprs, args, callee = _launch_from_macro(unit, index, config_index, span, exprs, args,
                                                 callee)
    if span.macro is not None:
        unit.ctx.warn(f"launch inside macro '{span.macro}' cannot be rewritten; it will be left "
                      "as is", "launch-in-macro", span)
    kernel, template_args = _kernel_name(cursor, callee)
    grid, block, shared_bytes, stream = exprs
    empty = Expr("", span)
    return Launch(kernel=kernel, span=span, config_span=config_span, grid=grid or empty,
                  block=block or empty, shared_bytes=shared_bytes, stream=stream,
                  args=tuple(args), function=unit.function_name(index),
                  template_args=template_args)


def _callee_text(unit: _Unit, cursor, span: SourceSpan) -> str:
    children = list(cursor.get_children())
    if not children:
        return ""
    callee = unit.expr(children[0], None)
    return callee.text


def _kernel_name(cursor, callee: str) -> tuple[str, str | None]:
    """The kernel's name and explicit template arguments (``k<float, 256>`` -> 'float, 256')."""
    template_args = None
    head = callee
    if "<" in callee and callee.rstrip().endswith(">"):
        head, _, rest = callee.partition("<")
        template_args = rest.rstrip()[:-1].strip()
    ref = cursor.referenced
    if ref is not None and ref.kind.name in FUNCTION_KINDS and ref.spelling:
        return ref.spelling, template_args
    match = _IDENT_AT_END.search(head)
    return (match.group(1) if match else head.strip()), template_args


def _checked_config(unit: _Unit, exprs, config_span: SourceSpan, template: str | None):
    """Keep the config arguments libclang placed inside ``<<<...>>>``; re-split the text when a
    present argument has an odd extent (seen in dependent template code)."""
    present = [e for e in exprs if e is not None]
    if all(config_span.start < e.span.start <= e.span.end < config_span.end and e.text
           for e in present):
        return exprs
    text = unit.ctx.index.text(config_span.start, config_span.end)
    inner = text[3:-3] if text.startswith("<<<") and text.endswith(">>>") else text
    pieces = _split_top(_blank_literals(inner), 0, len(inner))
    out: list[Expr | None] = []
    for i, expr in enumerate(exprs):
        if i < len(pieces):
            start, end = (config_span.start + 3 + p for p in pieces[i])
            out.append(Expr(inner[pieces[i][0] : pieces[i][1]],
                            unit.span_of(start, end, template)))
        else:
            out.append(None if expr is None else expr)
    return out


def _incomplete(exprs, args) -> bool:
    return any(e is not None and not e.text for e in exprs) or any(not a.text for a in args)


def _launch_from_macro(unit: _Unit, index: int, config_index: int, span: SourceSpan, exprs,
                       args, callee: str):
    """Fill the texts libclang cannot give (code of the macro's body) from its expansion."""
    call = unit.macros.call_at(span.start)
    expansion = unit.macros.expansion(call) if call else None
    parsed = None
    if expansion is not None:
        parsed = _parse_launch(expansion, unit.occurrence(config_index, call))
    if parsed is None:
        return exprs, args, callee
    exprs = [e if e is None or e.text or i >= len(parsed.config)
             else Expr(parsed.config[i].strip(), e.span) for i, e in enumerate(exprs)]
    if len(parsed.args) == len(args):
        args = [a if a.text else Expr(t.strip(), a.span) for a, t in zip(args, parsed.args, strict=True)]
    if not callee:
        callee = parsed.kernel + (f"<{parsed.template_args}>" if parsed.template_args else "")
    return exprs, args, callee


# --- runtime API calls ---------------------------------------------------------------------


def extract_api_calls(ctx: ExtractContext) -> tuple[ApiCall, ...]:
    """Every call of a CUDA runtime function in host code, with its category."""
    unit = _unit(ctx)
    calls = []
    for index, node in enumerate(unit.items):
        if node.kind != "CALL_EXPR":
            continue
        name = unit.call_name(index)
        if not name.startswith("cuda") or unit.is_device_only(unit.owner(index)):
            continue
        ref = node.cursor.referenced
        if ref is not None and ctx.in_main_file(ref):
            continue  # the user's own cuda* helper
        if ref is not None and ref.kind.name in ("CONSTRUCTOR", "CONVERSION_FUNCTION"):
            continue  # a CUDA type's construction (cudaDeviceProp prop;), not a call
        if ref is None and name not in API_CATEGORY:
            continue
        span, args = unit.call_args(index, node.template)
        calls.append(ApiCall(name=name, category=api_category(name), args=args, span=span,
                             function=unit.function_name(index)))
    return tuple(sorted(calls, key=_start))


__all__ = ["api_category", "device_call_category", "extract_api_calls", "extract_kernels",
           "extract_launches"]
