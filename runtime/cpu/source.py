"""Light textual preprocessing of CUDA source for the cpu backend.

The runtime cannot use the tool's libclang front end (it never imports ``s2s``), and it does not need to:
the host C++ compiler parses the kernels.  What has to happen before that is textual and small:

* host function definitions (``main``, launch wrappers; anything with neither ``__global__`` nor
  ``__device__``) are blanked out, because they contain ``<<<...>>>`` and CUDA API calls.  Blanking keeps
  every newline, so compiler messages point at the original line numbers (a ``#line`` directive carries
  the file name);
* ``extern __shared__ T name[];`` becomes a pointer to the emulator's per-OS-thread dynamic shared memory;
* constructs the emulator cannot run are reported with file:line:col before anything is compiled;
* the kernels are listed, and each is marked as needing fibers if it can reach a barrier or warp
  operation through the functions and macros it names (conservative: any mention counts).

The scanner masks comments, string and character literals and preprocessor lines so that brace matching
sees only code; it handles namespaces and ``extern "C"`` blocks by recursion.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from runtime.errors import UnsupportedConstruct

SYNC_NAMES = frozenset({
    "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__syncwarp",
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
    "__all_sync",
    # cooperative groups' thread_block (cuda_stub/cooperative_groups.h): `cta.sync()`,
    # `cg::sync(cta)` are its __syncthreads
    "sync",
})

# identifier -> what to call it in the error message
UNSUPPORTED_NAMES = {
    "asm": "inline assembly (asm)", "__asm__": "inline assembly (asm)", "__asm": "inline assembly (asm)",
    "__half": "half precision (__half)", "__half2": "half precision (__half2)", "half2": "half precision (half2)",
    "__nv_bfloat16": "bfloat16 (__nv_bfloat16)", "__nv_bfloat162": "bfloat16 (__nv_bfloat162)",
    "tiled_partition": "cooperative groups' tiles (tiled_partition)",
    "thread_block_tile": "cooperative groups' tiles (thread_block_tile)",
    "this_grid": "cooperative groups' grid synchronization (this_grid)",
    "grid_group": "cooperative groups' grid synchronization (grid_group)",
    "this_multi_grid": "cooperative groups' multi-device groups (this_multi_grid)",
    "coalesced_threads": "cooperative groups' coalesced groups (coalesced_threads)",
    "coalesced_group": "cooperative groups' coalesced groups (coalesced_group)",
    "wmma": "warp matrix functions (wmma)",
    "texture": "texture references", "tex1Dfetch": "texture fetch (tex1Dfetch)", "tex1D": "texture fetch (tex1D)",
    "tex2D": "texture fetch (tex2D)", "tex3D": "texture fetch (tex3D)", "surf2Dwrite": "surface writes",
    "surf2Dread": "surface reads", "cudaTextureObject_t": "texture objects",
    "__match_any_sync": "__match_any_sync", "__match_all_sync": "__match_all_sync",
    "__reduce_add_sync": "__reduce_add_sync", "__reduce_min_sync": "__reduce_min_sync",
    "__reduce_max_sync": "__reduce_max_sync", "__shfl": "legacy __shfl without _sync",
    "__shfl_up": "legacy __shfl_up without _sync", "__shfl_down": "legacy __shfl_down without _sync",
    "__shfl_xor": "legacy __shfl_xor without _sync", "__ballot": "legacy __ballot without _sync",
    "curand_init": "the cuRAND device API", "__cvta_generic_to_shared": "address-space conversion",
    "__pipeline_memcpy_async": "asynchronous copies (pipeline)", "__isGlobal": "address-space queries",
}
UNSUPPORTED_HEADERS = {
    "cuda_fp16.h": "half precision (cuda_fp16.h)", "cuda_bf16.h": "bfloat16 (cuda_bf16.h)",
    "mma.h": "warp matrix functions (mma.h)",
    "curand_kernel.h": "the cuRAND device API (curand_kernel.h)", "cuda_pipeline.h": "cuda_pipeline.h",
    "cuda/barrier": "libcu++ barriers (cuda/barrier)", "cuda/atomic": "libcu++ atomics (cuda/atomic)",
}
UNSUPPORTED_HEADER_PREFIXES = {"cooperative_groups/": "cooperative groups' collectives",
                               "cub/": "CUB", "thrust/": "Thrust", "cuda/std/": "libcu++"}

ATTRIBUTE_WORDS = frozenset({"__launch_bounds__", "__attribute__", "__align__", "alignas", "__declspec",
                             "decltype", "__maxnreg__"})
IDENT = re.compile(r"[A-Za-z_]\w*")
EXTERN_SHARED = re.compile(r"\bextern\s+__shared__\b")
EXTERN_SHARED_DECL = re.compile(
    r"extern\s+__shared__\s+(?P<type>.*?)\b(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*(?P<dims>(?:\[[^\]]*\]\s*)*);",
    re.S)
ALIGN = re.compile(r"__align__\s*\(\s*\d+\s*\)|alignas\s*\(\s*\d+\s*\)")
INCLUDE = re.compile(r"^\s*#\s*include\s*([<\"])([^>\"]+)[>\"]", re.M)
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(.*)$", re.S)


@dataclass(frozen=True)
class Function:
    """A top-level function definition: where it is and what it references."""
    name: str                  # qualified with enclosing namespaces
    start: int                 # byte offsets into the text (end exclusive)
    end: int
    kernel: bool
    device: bool
    template: bool
    constexpr: bool
    references: frozenset[str]


@dataclass
class KernelSource:
    """Result of preprocessing: text to compile, the kernels in it and which need fibers."""
    name: str
    text: str                                   # for the host compiler (extern __shared__ rewritten)
    kernels: list[str]                          # non-template kernels, exported automatically
    template_kernels: list[str]                 # need explicit instantiations
    fibers: dict[str, bool] = field(default_factory=dict)   # base kernel name -> needs fibers
    quoted_includes: list[str] = field(default_factory=list)
    device_text: str = ""                       # host code blanked, otherwise verbatim (for nvcc)

    def needs_fibers(self, kernel: str) -> bool:
        """Whether ``kernel`` (possibly ``name<args>``) must run its threads as fibers."""
        base = kernel.split("<", 1)[0].strip()
        return self.fibers.get(base, True)


def mask_text(text: str) -> str:
    """Same length as ``text``; comments, literals and preprocessor lines replaced by spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            j = i
            while j < n and not (text[j] == "\n" and text[j - 1] != "\\"):
                j += 1
            _blank(out, i, j)
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            _blank(out, i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            _blank(out, i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            _blank(out, i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _blank(chars: list[str], start: int, end: int) -> None:
    for k in range(start, end):
        if chars[k] != "\n":
            chars[k] = " "


#: directives kept inside blanked host code: the kernels after it may need what they define
KEPT_DIRECTIVE = re.compile(r"[ \t]*#[ \t]*(define|undef|if|ifdef|ifndef|elif|else|endif|include|line)\b")


def _blank_code(chars: list[str], text: str, start: int, end: int) -> None:
    """Blank ``text[start:end]`` except its preprocessor lines that define, undefine, include
    or select code: a ``#define`` inside ``main`` still holds for a kernel after ``main``, and
    an ``#if`` opened before the range is still closed after it. Pragmas go (nothing of the
    statement they applied to is left)."""
    at = start
    while at < end:
        line_end = text.find("\n", at, end)
        line_end = end if line_end < 0 else line_end
        line_start = text.rfind("\n", 0, at) + 1
        if line_start == at and KEPT_DIRECTIVE.match(text, at, line_end):
            while line_end < end and text[line_end - 1] == "\\":      # continuation lines
                nxt = text.find("\n", line_end + 1, end)
                line_end = end if nxt < 0 else nxt
        else:
            _blank(chars, at, line_end)
        at = line_end + 1


def _matching(masked: str, open_at: int) -> int:
    """Index of the bracket closing the one at ``open_at`` (any of (), [], {} nesting)."""
    depth = 0
    for k in range(open_at, len(masked)):
        ch = masked[k]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return k
    return len(masked) - 1


def _function_name(header: str) -> str | None:
    """Identifier naming the function in a definition header (skips attribute parentheses)."""
    k = 0
    while True:
        p = header.find("(", k)
        if p < 0:
            return None
        words = IDENT.findall(header[:p])
        if words and words[-1] not in ATTRIBUTE_WORDS:
            return words[-1]
        k = _matching(header, p) + 1


def scan_functions(masked: str, start: int = 0, end: int | None = None, prefix: str = "",
                   macros: dict[str, frozenset[str]] | None = None) -> list[Function]:
    """Top-level function definitions in ``masked[start:end]``, recursing into namespaces.

    Header words are expanded through ``macros`` so that ``#define DEV __device__`` still marks a function
    as device code."""
    macros = macros or {}
    end = len(masked) if end is None else end
    found: list[Function] = []
    item = start
    i = start
    while i < end:
        ch = masked[i]
        if ch == ";":
            item = i + 1
        elif ch in "([":
            i = _matching(masked, i)
        elif ch == "{":
            header = masked[item:i]
            close = _matching(masked, i)
            ns = re.search(r"\bnamespace\s+([A-Za-z_]\w*)?\s*$", header)
            if ns or re.search(r"\bextern\s*\"\s*\"\s*$", header):
                inner = prefix + (ns.group(1) + "::" if ns and ns.group(1) else "")
                found += scan_functions(masked, i + 1, close, inner, macros)
                item = close + 1
            elif (record := _RECORD.search(_strip_groups(header.strip()))) and "(" not in header:
                # member functions are host code too (constructors, methods that launch)
                inner = prefix + (record.group(2) + "::" if record.group(2) else "")
                found += scan_functions(masked, i + 1, close, inner, macros)
                item = close + 1
            elif _is_function_header(header):
                words = _expand(set(IDENT.findall(header)), macros)
                name = _function_name(header) or "?"
                begin = item + len(header) - len(header.lstrip())   # not the lines before it
                found.append(Function(prefix + name, begin, close + 1, "__global__" in words,
                                      bool(words & {"__global__", "__device__"}), "template" in words,
                                      "constexpr" in words,
                                      frozenset(IDENT.findall(masked[i:close]))))
                item = close + 1
            i = close
        i += 1
    return found


_RECORD = re.compile(r"^(?:typedef\s+)?(?:template\s*<.*>\s*)?(struct|class|union)\b\s*"
                     r"(?:alignas\s*\(\s*\w+\s*\)\s*)?([A-Za-z_]\w*)?", re.S)


def _strip_groups(header: str) -> str:
    """The header without parenthesised groups and template parameter lists (defaults hold '=')."""
    out, depth, k = [], 0, 0
    while k < len(header):
        ch = header[k]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            out.append(ch)
        k += 1
    flat = "".join(out)
    while True:
        m = re.search(r"\btemplate\s*<", flat)
        if not m:
            return flat
        depth, k = 0, m.end() - 1
        while k < len(flat):
            depth += {"<": 1, ">": -1}.get(flat[k], 0)
            if depth == 0:
                break
            k += 1
        flat = flat[:m.start()] + flat[k + 1:]


def _is_function_header(header: str) -> bool:
    stripped = header.strip()
    if "(" not in stripped:
        return False
    flat = _strip_groups(stripped)
    if re.search(r"(?<![=!<>])=(?!=)", flat):
        return False
    return not re.match(r"^(typedef\s+)?(struct|class|union|enum)\b", flat.strip())


def _expand(words: set[str], macros: dict[str, frozenset[str]]) -> set[str]:
    todo, seen = list(words), set(words)
    while todo:
        for w in macros.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def _macros(text: str) -> dict[str, frozenset[str]]:
    macros = {}
    for line in re.findall(r"^\s*#\s*define\b(?:[^\n]*\\\n)*[^\n]*", text, re.M):
        m = DEFINE.match(line)
        if m:
            macros[m.group(1)] = frozenset(IDENT.findall(m.group(2)))
    return macros


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def check_supported(text: str, masked: str, name: str, device_spans: list[tuple[int, int]]) -> None:
    """Raise UnsupportedConstruct for the first construct the emulator cannot run."""
    for m in INCLUDE.finditer(text):
        header = m.group(2).strip()
        what = UNSUPPORTED_HEADERS.get(header) or next(
            (f"{lib} ({header})" for pre, lib in UNSUPPORTED_HEADER_PREFIXES.items() if header.startswith(pre)),
            None)
        if what:
            raise UnsupportedConstruct(name, *_line_col(text, m.start(2)), what)
    for lo, hi in device_spans:
        for m in IDENT.finditer(masked, lo, hi):
            if m.group(0) in UNSUPPORTED_NAMES:
                raise UnsupportedConstruct(name, *_line_col(text, m.start()), UNSUPPORTED_NAMES[m.group(0)])
        launch = masked.find("<<<", lo, hi)
        if launch >= 0:
            raise UnsupportedConstruct(name, *_line_col(text, launch),
                                       "dynamic parallelism (a kernel launch in device code)")


def rewrite_extern_shared(text: str, masked: str, functions: list[Function]) -> str:
    """Turn each ``extern __shared__ T name[];`` into a pointer to the dynamic shared memory."""
    pieces, last = [], 0
    for m in EXTERN_SHARED.finditer(masked):
        decl = EXTERN_SHARED_DECL.match(text, m.start())
        if not decl:
            raise UnsupportedConstruct("<source>", *_line_col(text, m.start()),
                                       "this form of extern __shared__ declaration")
        ctype = ALIGN.sub("", decl.group("type")).strip()
        var, dims = decl.group("name"), decl.group("dims").strip()
        cast = f"reinterpret_cast<{ctype} (*){dims}>(s2s::tls.dyn_smem)"
        inside = any(f.start <= m.start() < f.end for f in functions)
        newlines = text.count("\n", m.start(), decl.end())
        if inside:
            new = f"{ctype} (*const {var}){dims} = {cast};" + "\n" * newlines
        else:
            line, _ = _line_col(text, decl.end())
            new = f"\n#define {var} ({cast})\n#line {line + 1}\n"
        pieces += [text[last:m.start()], new]
        last = decl.end()
    pieces.append(text[last:])
    return "".join(pieces)


def _fiber_kernels(functions: list[Function], macros: dict[str, frozenset[str]]) -> dict[str, bool]:
    """For each kernel: can it reach a barrier or warp operation by name?"""
    refs: dict[str, set[str]] = {}
    for f in functions:
        refs.setdefault(f.name.split("::")[-1], set()).update(f.references)
    for name, body in macros.items():
        refs.setdefault(name, set()).update(body)
    result = {}
    for f in functions:
        if not f.kernel:
            continue
        seen, todo = set(), [f.name.split("::")[-1]]
        while todo:
            cur = todo.pop()
            if cur in seen:
                continue
            seen.add(cur)
            todo.extend(refs.get(cur, ()))
        result[f.name] = bool(seen & SYNC_NAMES)
    return result


def source_text(data: bytes) -> str:
    """Kernel source bytes as text. A byte that is not UTF-8 (in a comment, a string literal) is
    legal for g++ and nvcc: it is kept as a lone surrogate (``surrogateescape``) and written back
    unchanged by :func:`source_bytes`, never a UnicodeDecodeError."""
    return data.decode("utf-8", "surrogateescape")


def source_bytes(text: str) -> bytes:
    """The bytes of kernel source text made by :func:`source_text` (or any str)."""
    return text.encode("utf-8", "surrogateescape")


_INCLUDED_SOURCE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+\.cu)"[^\n]*$', re.M)


def inline_included_sources(text: str, name: str, include_dirs, depth: int = 0) -> str:
    """``text`` with each ``#include "x.cu"`` replaced by the text of ``x.cu`` (found in
    ``include_dirs``), between ``#line`` directives that keep both files' line numbers: a
    ``.cu`` file included as text (Rodinia's ``#include "opt1.cu"``) holds host functions with
    launches and CUDA calls, which ``prepare`` must blank like the includer's own (the host
    compiler would otherwise compile them against the emulator). Includes nested 8 deep stay."""
    if depth > 8 or ".cu\"" not in text:
        return text
    out, at = [], 0
    for match in _INCLUDED_SOURCE.finditer(text):
        found = next((os.path.join(d, match.group(1)) for d in include_dirs
                      if os.path.isfile(os.path.join(d, match.group(1)))), None)
        if found is None:
            continue
        with open(found, encoding="utf-8", errors="surrogateescape") as handle:
            inner = inline_included_sources(handle.read(), found, include_dirs, depth + 1)
        line = text.count("\n", 0, match.end()) + 2
        out += [text[at:match.start()], f'#line 1 "{_quoted(found)}"\n', inner,
                "" if inner.endswith("\n") else "\n", f'#line {line} "{_quoted(name)}"']
        at = match.end()
    return "".join(out) + text[at:]


_QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"[^\n]*$', re.M)


def inline_shared_headers(text: str, name: str, include_dirs, seen: set | None = None,
                          depth: int = 0) -> str:
    """``text`` with each quoted ``#include`` of a header that declares ``extern __shared__``
    (cuda-samples' ``sharedmem.cuh``: ``extern __shared__ int s_int[];`` in a member function
    of a struct), or includes one, replaced by the header's text between ``#line``
    directives, so that :func:`prepare` turns those declarations into pointers to the
    dynamic shared memory (the host compiler accepts no ``extern static thread_local``).
    Each header once (a second include is what its guard or ``#pragma once`` skips), 8 deep
    at most; a header that reaches none stays an ``#include``, made absolute inside an
    inlined header (whose folder is no longer the including file's)."""
    seen = set() if seen is None else seen
    here = os.path.dirname(os.path.abspath(name)) if depth else None
    out, at, memo = [], 0, {}
    for match in _QUOTED_INCLUDE.finditer(text) if depth <= 8 else ():
        found = _quoted_header(match.group(1), here, include_dirs)
        if found is None:
            continue
        if not _reaches_shared(found, include_dirs, memo):
            if here:
                out += [text[at:match.start()], f'#include "{_quoted(found)}"']
                at = match.end()
            continue
        line = text.count("\n", 0, match.end()) + 2
        out.append(text[at:match.start()])
        if found not in seen:
            seen.add(found)
            with open(found, encoding="utf-8", errors="surrogateescape") as handle:
                inner = handle.read().replace("#pragma once", "", 1)
            inner = inline_shared_headers(inner, found, include_dirs, seen, depth + 1)
            out += [f'#line 1 "{_quoted(found)}"\n', inner, "" if inner.endswith("\n") else "\n",
                    f'#line {line} "{_quoted(name)}"']
        at = match.end()
    return "".join(out) + text[at:]


def _quoted_header(target: str, here: str | None, include_dirs) -> str | None:
    """Where ``#include "target"`` finds a header that is not a ``.cu`` file (those are
    :func:`inline_included_sources`'): the including file's folder (``here``; None for the
    kernels' own text), then the include folders."""
    if target.endswith(".cu"):
        return None
    folders = ([here] if here else []) + [str(d) for d in include_dirs]
    return next((os.path.realpath(os.path.join(d, target)) for d in folders
                 if os.path.isfile(os.path.join(d, target))), None)


def _reaches_shared(path: str, include_dirs, memo: dict, depth: int = 0) -> bool:
    """Whether the header at ``path`` declares ``extern __shared__`` or includes (quoted, 8
    deep) a header that does."""
    if path not in memo:
        memo[path] = False                     # an include cycle adds nothing
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                text = handle.read()
        except OSError:
            return False
        here = os.path.dirname(path)
        memo[path] = bool(EXTERN_SHARED.search(mask_text(text))) or depth < 8 and any(
            _reaches_shared(found, include_dirs, memo, depth + 1)
            for match in _QUOTED_INCLUDE.finditer(text)
            if (found := _quoted_header(match.group(1), here, include_dirs)) is not None)
    return memo[path]


def _quoted(path: str) -> str:
    return path.replace("\\", "\\\\").replace('"', '\\"')


def prepare(text: str, name: str = "kernels.cu") -> KernelSource:
    """Preprocess CUDA source (a whole .cu file or just its device code) for the host compiler.

    Line ends are made ``\n`` first (CRLF and lone CR, as the compilers read them: one line
    each, so line numbers stay): the scanners below know only ``\n``, and a CRLF file was
    read as having no kernel at all."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    masked = mask_text(text)
    macros = _macros(text)
    functions = scan_functions(masked, macros=macros)
    device = [f for f in functions if f.device]
    check_supported(text, masked, name, [(f.start, f.end) for f in device])
    chars = list(text)
    for f in functions:
        if not f.device and not f.constexpr:
            _blank_code(chars, text, f.start, f.end)
    blanked = "".join(chars)
    try:
        rewritten = rewrite_extern_shared(blanked, mask_text(blanked), device)
    except UnsupportedConstruct as err:
        raise UnsupportedConstruct(name, err.line, err.column, err.construct) from None
    fibers = _fiber_kernels(functions, macros)
    quoted = [m.group(2) for m in INCLUDE.finditer(text) if m.group(1) == '"']
    kernels = [f.name for f in device if f.kernel and not f.template]
    templates = [f.name for f in device if f.kernel and f.template]
    return KernelSource(name, rewritten, list(dict.fromkeys(kernels)), list(dict.fromkeys(templates)),
                        {k.split("::")[-1]: v for k, v in fibers.items()} | fibers, quoted, blanked)
