"""Parse one source file with libclang: arguments per language and CUDA side, input checks,
and libclang's own diagnostics turned into s2s diagnostics.

CUDA files are parsed on the host side (launch sites, API calls and kernel bodies are all
visible there); the device side is parsed as well when asked, or automatically when the file
mentions ``__CUDA_ARCH__`` (code guarded by it exists only on the device side). OpenMP files
are parsed WITHOUT ``-fopenmp`` so the loops stay fully visible (with it, statements nested in
``target data`` vanish from the cursor tree); a second, cheap ``-fopenmp`` parse only
contributes diagnostics about the directives themselves.
"""

from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass, field, replace

from s2s import deep_stack, user_files
from s2s.bounded_read import read_at_most
from s2s.diagnostics import Diagnostic, InputError, Location, ParseError, Severity
from s2s.frontend.core import parse_reuse
from s2s.frontend.core.allowed_flags import allowed_flags
from s2s.frontend.core.flags import without_openmp_flags
from s2s.frontend.core.include_guard import check_includes
from s2s.frontend.core.toolchain import Toolchain, configure_libclang, default_toolchain
from s2s.model.launch_syntax import closed_up
from s2s.runtime_files import RUNTIME_INCLUDE
from s2s.user_files import file_kind

CUDA_EXTENSIONS = (".cu", ".cuh")
CXX_EXTENSIONS = (".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".C")
C_EXTENSIONS = (".c", ".h")
SIDES = ("host", "device")
DEFAULT_GPU_ARCH = "sm_90"


@dataclass(frozen=True)
class ParseOptions:
    """How to parse: forced language, CUDA sides, user flags and the toolchain."""

    language: str | None = None
    cuda_side: str = "auto"
    user_flags: tuple[str, ...] = ()
    toolchain: Toolchain | None = None
    openmp_check: bool = True
    gpu_arch: str = DEFAULT_GPU_ARCH
    #: check a CUDA rewrite with ``nvcc -c`` where nvcc exists (s2s.transform.nvcc_check);
    #: off for the library and the wrapper (which compiles the rewrite with nvcc anyway)
    nvcc_check: bool = False
    #: parses and extractions may come from, and go to, the fact cache
    #: (s2s.frontend.fact_cache; ``--no-cache``: False)
    cache: bool = True


@dataclass
class ParsedFile:
    """libclang translation units of one file (one per CUDA side) and what libclang said."""

    path: str
    source: bytes
    language: str
    units: dict[str, object]
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.diagnostics)

    @property
    def primary(self):
        """The unit host-side entities come from (the host side, or the only one parsed)."""
        return self.units.get("host") or next(iter(self.units.values()))




#: _OPENMP for the parse without -fopenmp: OpenMP 4.5 (201511), the first version with target
#: offload. clang-16 says 201811 under -fopenmp, but its omp.h then declares variants with
#: `begin declare variant`, which is a redeclaration error once the pragmas are ignored.
OPENMP_VERSION_MACRO = 201511


def detect_language(path: str) -> str:
    """``cuda``, ``c++`` or ``c`` from the file name (unknown extensions are C++)."""
    _, ext = os.path.splitext(path)
    if ext in CUDA_EXTENSIONS:
        return "cuda"
    if ext in C_EXTENSIONS:
        return "c"
    if ext in CXX_EXTENSIONS or ext.lower() in CXX_EXTENSIONS:
        return "c++"
    return "c++"


def clang_args(language: str, toolchain: Toolchain, side: str = "host",
               user_flags: tuple[str, ...] = (), openmp: bool = False,
               gpu_arch: str = DEFAULT_GPU_ARCH) -> list[str]:
    """The libclang command line for one parse (file name not included)."""
    args: list[str] = []
    if language == "cuda":
        args += ["-x", "cuda", f"--cuda-gpu-arch={gpu_arch}", "-Wno-unknown-cuda-version",
                 "--cuda-host-only" if side == "host" else "--cuda-device-only"]
        if not _has_std(user_flags):
            args.append("-std=c++17")
        if toolchain.cuda_path is not None:
            args += [f"--cuda-path={toolchain.cuda_path}", "-idirafter", toolchain.stub_dir,
                     "-idirafter", RUNTIME_INCLUDE,
                     "-include", os.path.join(toolchain.stub_dir, "s2s_cuda_legacy.h"),
                     "-include", os.path.join(toolchain.shim_dir, "nvcc_compat.h")]
            args += [arg for d in _cccl_dirs(toolchain.cuda_path) for arg in ("-idirafter", d)]
        else:
            args += ["-nocudainc", "-nocudalib", "-isystem", toolchain.shim_dir,
                     "-idirafter", RUNTIME_INCLUDE,
                     "-include", "cuda_runtime.h"]
        # nvcc's host compiler (gcc) finds its own omp.h without -fopenmp; libclang-ng has
        # none: Rodinia's kmeans_cuda.cu includes <omp.h> for omp_get_wtime()
        args += ["-idirafter", toolchain.omp_include or os.path.join(toolchain.shim_dir, "omp")]
    else:
        args += ["-x", language]
        if language == "c++" and not _has_std(user_flags):
            args.append("-std=c++17")
        # Without -fopenmp the program must still see what its real (-fopenmp) build sees:
        # `#ifdef _OPENMP #include <omp.h>` guards omp_get_wtime() and friends in real code.
        args += ["-fopenmp"] if openmp else ["-Wno-unknown-pragmas", "-Wno-source-uses-openmp",
                                             f"-D_OPENMP={OPENMP_VERSION_MACRO}"]
        omp_dir = toolchain.omp_include or os.path.join(toolchain.shim_dir, "omp")
        args += ["-idirafter", omp_dir]
    # the allow-list again: every parse gets only flags that cannot load code or write files
    args += without_openmp_flags(allowed_flags(user_flags)[0])
    return args + [f"-Wno-error={name}" for name in NEWER_DEFAULT_ERRORS]


#: Warnings the bundled libclang (22) makes errors by default that clang-16, the compiler
#: the programs are built and the rewrites checked with, accepts: an error there would make
#: s2s refuse a file its users compile (miniBUDE's ``devices.template emplace_back(...)``).
NEWER_DEFAULT_ERRORS = ("missing-template-arg-list-after-template-kw",)


@functools.cache
def _cccl_dirs(cuda_path: str) -> tuple[str, ...]:
    """The toolkit's CCCL headers (``cuda/std/...``, thrust, cub), which nvcc 13 puts on every
    compile's system include path (``nvcc.profile``: ``-isystem $(TOP)/targets/<arch>/include/
    cccl``) while clang's ``--cuda-path`` does not: without them ``<cooperative_groups.h>`` and
    ``<thrust/...>`` do not parse. After the other directories, as nvcc's system includes."""
    found = [os.path.join(cuda_path, "include", "cccl")]
    targets = os.path.join(cuda_path, "targets")
    if os.path.isdir(targets):
        found += [os.path.join(targets, t, "include", "cccl") for t in sorted(os.listdir(targets))]
    real = {}
    for d in found:
        if os.path.isdir(d):
            real.setdefault(os.path.realpath(d), d)
    return tuple(real.values())[:1]


def _has_std(flags: tuple[str, ...]) -> bool:
    return any(f.startswith(("-std=", "--std=")) for f in flags)


@functools.cache
def _index():
    return configure_libclang().Index.create()


#: Largest source file s2s reads (a generated amalgamation is a few MiB; more is no source).
MAX_SOURCE_BYTES = 64 * 1024 * 1024


def read_source(path: str) -> bytes:
    """Read a source file, refusing what cannot be C/C++/CUDA text (missing, binary, special
    files such as a FIFO or /dev/zero, more than :data:`MAX_SOURCE_BYTES`).

    The file is opened non-blocking and checked with fstat before any read: opening a FIFO
    would otherwise wait for a writer forever, and /dev/zero never ends.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError as exc:
        raise InputError(f"no such file: {path}", id="no-such-file") from exc
    except IsADirectoryError as exc:
        raise InputError(f"is a directory: {path}", id="no-such-file") from exc
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}", id="unreadable") from exc
    info = os.fstat(fd)
    problem = _not_source_file(path, info)
    if problem is not None:
        os.close(fd)
        raise problem
    with os.fdopen(fd, "rb") as handle:
        os.set_blocking(fd, True)
        try:
            data = read_at_most(handle, MAX_SOURCE_BYTES)
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror}", id="unreadable") from exc
    data = _checked_text(path, data)
    user_files.remember(info)     # --in-place replaces it only if still so (issue 32)
    return data


def read_stream(handle, name: str) -> bytes:
    """Read a source from a binary stream (stdin) under the name ``name``, with the checks of
    :func:`read_source`: at most :data:`MAX_SOURCE_BYTES`, no NUL byte."""
    try:
        data = read_at_most(handle, MAX_SOURCE_BYTES)
    except OSError as exc:
        raise InputError(f"cannot read stdin: {exc.strerror}", id="unreadable") from exc
    return _checked_text(name, data)


def _checked_text(path: str, data: bytes) -> bytes:
    if len(data) > MAX_SOURCE_BYTES:  # grew while we read it
        raise InputError(_too_large(path, len(data)), id="file-too-large")
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        col = nul - (data.rfind(b"\n", 0, nul) + 1) + 1
        raise InputError("binary file: NUL byte found; not a C, C++ or CUDA source",
                         Location(path, line, col, nul), id="binary-file")
    return data


def _not_source_file(path: str, info: os.stat_result) -> InputError | None:
    if stat.S_ISDIR(info.st_mode):
        return InputError(f"is a directory: {path}", id="no-such-file")
    if not stat.S_ISREG(info.st_mode):
        return InputError(f"not a regular file ({file_kind(info.st_mode)}): {path}",
                          id="not-a-regular-file")
    if info.st_size > MAX_SOURCE_BYTES:
        return InputError(_too_large(path, info.st_size), id="file-too-large")
    return None


def _too_large(path: str, size: int) -> str:
    return (f"{path} is {size:,} bytes, more than the {MAX_SOURCE_BYTES:,} bytes s2s reads "
            "from one source file")


def input_warnings(path: str, data: bytes) -> list[Diagnostic]:
    """Warnings about the bytes themselves: empty file, invalid UTF-8."""
    if not data.strip():
        return [Diagnostic.warning("file is empty or blank: nothing to analyse", "empty-file",
                                   Location(path, 1, 1, 0))]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return [Diagnostic.warning("invalid UTF-8 byte; the file is kept byte for byte but "
                                   "messages may show it as '?'", "invalid-utf8",
                                   Location(path, line, col, exc.start))]
    return []


def parse_file(path: str, options: ParseOptions | None = None) -> ParsedFile:
    """Parse ``path`` into one or two libclang units plus diagnostics (errors included).

    Raises InputError when the file cannot be read; libclang errors do not raise, they are in
    ``ParsedFile.diagnostics`` so the caller can show all of them.
    """
    return parse_source(read_source(path), path, options)


def parse_source(source: str | bytes, name: str = "input.cu",
                 options: ParseOptions | None = None,
                 unsaved: tuple[tuple[str, bytes], ...] = ()) -> ParsedFile:
    """Parse source bytes under the file name ``name`` (which need not exist on disk);
    ``unsaved``: (path, bytes) of files it includes to read from memory instead of the disk
    (a header's rewrite checked in the context of its includer)."""
    options = options or ParseOptions()
    _check_name(name)
    if isinstance(source, str):
        source = source.encode("utf-8", errors="surrogateescape")
    kept = None if unsaved else parse_reuse.take_kept(name, source, options)
    if kept is not None:                # (a chain's checked rewrite, loaded by the next pass)
        return kept
    unsaved = parse_reuse.with_overlay(unsaved)
    language = options.language or detect_language(name)
    parsed = ParsedFile(name, source, language, {}, input_warnings(name, source))
    _parse_sides(parsed, options, _sides(language, options.cuda_side, source), unsaved)
    toolchain = options.toolchain or default_toolchain()
    if language == "cuda" and toolchain.cuda_path is not None and parsed.has_errors:
        parsed = _legacy_fallback(parsed, options, toolchain, unsaved)
    if language != "cuda" and options.openmp_check and b"omp" in source:
        args = clang_args(language, options.toolchain or default_toolchain(),
                          user_flags=options.user_flags, openmp=True)
        parsed.diagnostics.extend(convert_diagnostics(_parse(name, args, source, detailed=False,
                                                             unsaved=unsaved)))
    return _finished(parsed, unsaved)


def check_parse(source: bytes, name: str, options: ParseOptions,
                unsaved: tuple[tuple[str, bytes], ...] = ()) -> ParsedFile:
    """The parse that checks a rewrite of ``name`` for errors: :func:`parse_source`'s, but
    for an OpenMP C or C++ file only its ``-fopenmp`` parse (issue 30: one parse, not two).

    Why one is enough: the file's load had both parses without errors. The two differ only
    in the pragmas (ignored without ``-fopenmp``) and in ``_OPENMP``'s value (defined in
    both), so any error the rewrite brings into the parse without ``-fopenmp`` is in the
    ``-fopenmp`` parse too, which also sees the pragmas - as the build of the program does.
    Its unit is no load's (not detailed, pragmas hidden): never kept for one."""
    if not one_parse_checks(source, name, options):
        return parse_source(source, name, options, unsaved)
    unsaved = parse_reuse.with_overlay(unsaved)
    _check_name(name)
    language = options.language or detect_language(name)
    parsed = ParsedFile(name, source, language, {}, input_warnings(name, source))
    args = clang_args(language, options.toolchain or default_toolchain(),
                      user_flags=options.user_flags, openmp=True)
    check_includes(source, name, args)  # no special file reaches libclang
    unit = _parse(name, args, source, detailed=False, unsaved=unsaved)
    parsed.units["host"] = unit
    parsed.diagnostics.extend(convert_diagnostics(unit))
    return _finished(parsed, unsaved)


def one_parse_checks(source: bytes, name: str, options: ParseOptions) -> bool:
    """Whether :func:`check_parse` checks ``source`` with its ``-fopenmp`` parse alone (a
    C or C++ file with OpenMP, checked as the load checked it)."""
    language = options.language or detect_language(name)
    return language != "cuda" and options.openmp_check and b"omp" in source


def _parse_sides(parsed: ParsedFile, options: ParseOptions, sides: tuple[str, ...],
                 unsaved: tuple[tuple[str, bytes], ...]) -> None:
    """One detailed parse of ``parsed`` per side (OpenMP files without ``-fopenmp``)."""
    toolchain = options.toolchain or default_toolchain()
    name, source, language = parsed.path, parsed.source, parsed.language
    for side in sides:
        args = clang_args(language, toolchain, side, options.user_flags, gpu_arch=options.gpu_arch)
        if side == sides[0]:
            check_includes(source, name, args)  # no special file reaches libclang
        unit = _parse(name, args, source, unsaved=unsaved)
        parsed.units[side] = unit
        parsed.diagnostics.extend(convert_diagnostics(unit, side if len(sides) > 1 else None))


def _finished(parsed: ParsedFile, unsaved: tuple[tuple[str, bytes], ...]) -> ParsedFile:
    """``parsed`` with its diagnostics once each, its included files recorded (a run that
    records what it read: s2s.frontend.core.parse_reuse)."""
    parsed.diagnostics = _dedupe(parsed.diagnostics)
    if parse_reuse.recording():
        memory = {path for path, _ in unsaved}
        parse_reuse.record(inclusion.include.name for unit in parsed.units.values()
                           for inclusion in unit.get_includes()
                           if inclusion.include.name not in memory)
    return parsed


#: the warning of a CUDA file parsed against s2s's headers because the toolkit's rejected it
LEGACY_PARSE_ID = "cuda-toolkit-rejects"


def _legacy_fallback(parsed: ParsedFile, options: ParseOptions, toolchain: Toolchain,
                     unsaved) -> ParsedFile:
    """The parse against s2s's own CUDA headers when the toolkit's reject the file and those
    accept it: they declare what CUDA 13 removed and older programs still use
    (``cudaDeviceProp::clockRate``, ``deviceOverlap`` ... as Rodinia's gaussian prints them).
    The file is analysed and rewritten as its toolkit's users wrote it; a warning names the
    toolkit's first error (nvcc rejects the original as well: the compile check of a rewrite
    then counts only the errors the rewrite introduces). Otherwise the toolkit's errors stand."""
    shim = ParsedFile(parsed.path, parsed.source, parsed.language, {},
                      input_warnings(parsed.path, parsed.source))
    _parse_sides(shim, replace(options, toolchain=replace(toolchain, cuda_path=None)),
                 _sides(parsed.language, options.cuda_side, parsed.source), unsaved)
    if shim.has_errors:
        return shim if _refused_by_shim(shim, toolchain.shim_dir) else parsed
    first = next(d for d in parsed.diagnostics if d.is_error)
    shim.diagnostics.insert(0, Diagnostic.warning(
        f"the CUDA toolkit's headers reject this file ({first.message}); it is analysed against "
        "s2s's CUDA headers, which keep what CUDA 13 removed: nvcc of this toolkit rejects the "
        "original too", LEGACY_PARSE_ID, first.location))
    return shim


#: s2s's headers that declare what a CUDA version removed and s2s cannot analyse, unavailable
#: with the reason (header -> the reason's first words): their errors say more than the
#: toolkit's
REMOVED_API_HEADERS = {"removed_texture_refs.h": "texture references were removed in CUDA 12"}


def _refused_by_shim(shim: ParsedFile, shim_dir: str) -> bool:
    """Whether an error of the shim's parse is a use of a declaration s2s's headers mark
    unavailable: its note points into one of :data:`REMOVED_API_HEADERS` and it gives that
    header's reason (not, say, a program's own global named ``texture`` that the header's
    declaration collides with: the toolkit's errors are the ones to show then)."""
    removed = {os.path.realpath(os.path.join(shim_dir, name)): reason
               for name, reason in REMOVED_API_HEADERS.items()}
    return any(note.location is not None and removed.get(os.path.realpath(note.location.file),
                                                         "\0") in diag.message
               for diag in shim.diagnostics if diag.is_error for note in diag.notes)


def _check_name(name: str) -> None:
    """libclang takes file names as UTF-8 only: a name with other bytes (kept by Python as
    surrogates) is refused with its reason instead of failing inside the bindings."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(name).decode("utf-8", "backslashreplace")
        raise InputError(f"the file name {shown} is not valid UTF-8, and libclang reads "
                         "UTF-8 names only: rename the file (or link it under a UTF-8 name)",
                         id="file-name-encoding") from None


def _sides(language: str, cuda_side: str, source: bytes) -> tuple[str, ...]:
    if language != "cuda":
        return ("host",)
    if cuda_side == "both" or (cuda_side == "auto" and b"__CUDA_ARCH__" in source):
        return SIDES
    if cuda_side in SIDES:
        return (cuda_side,)
    return ("host",)


def _spaced_includes(path: str, unit, unsaved) -> tuple[tuple[str, bytes], ...]:
    """When a CUDA parse has errors: the files it included from the directory of ``path``
    (or below) whose launches are written with spaced brackets (``<< <``, as a ``.cu`` file
    included as text may be), closed up for a second parse (same lengths, so every offset
    holds); () when there is none."""
    if not any(d.severity >= 3 for d in unit.diagnostics):
        return ()
    given = {name for name, _ in unsaved}
    project = os.path.dirname(os.path.abspath(path)) + os.sep
    out = []
    for inclusion in unit.get_includes():
        name = inclusion.include.name
        if not os.path.abspath(name).startswith(project) or name in given:
            continue
        try:
            with open(name, "rb") as handle:
                text = handle.read(MAX_SOURCE_BYTES)
        except OSError:
            continue
        if closed_up(text) is not text:
            out.append((name, closed_up(text)))
            given.add(name)
    return tuple(out)


def _parse(path: str, args: list[str], source: bytes, detailed: bool = True,
           unsaved: tuple[tuple[str, bytes], ...] = ()):
    cindex = configure_libclang()
    flags = cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD if detailed else 0
    # The file's bytes go in as an unsaved file: libclang then never re-reads a file that
    # changed under us, and tests can parse in-memory sources.
    if "cuda" in args:                      # nvcc's '<< <' launches, closed up for clang
        source = closed_up(source)
    try:
        unit = deep_stack.call(_index().parse, path, args=args,
                               unsaved_files=[(path, source), *unsaved], options=flags)
        spaced = _spaced_includes(path, unit, unsaved) if "cuda" in args else ()
        if spaced:
            unit = deep_stack.call(_index().parse, path, args=args,
                                   unsaved_files=[(path, source), *unsaved, *spaced], options=flags)
        return unit
    except cindex.TranslationUnitLoadError as error:
        # libclang gives no reason; the usual one is a flag the parser cannot use.
        raise ParseError(f"libclang could not parse {path} with these flags ({error}); check "
                         f"the flags after -- or in compile_commands.json: {' '.join(args)}",
                         Location(path, 1, 1, 0), id="parse-failed") from None


_SEVERITY = {0: None, 1: Severity.NOTE, 2: Severity.WARNING, 3: Severity.ERROR, 4: Severity.ERROR}


def convert_diagnostics(unit, side: str | None = None) -> list[Diagnostic]:
    """libclang's diagnostics of ``unit`` as s2s Diagnostics (ids ``clang-<flag>``)."""
    out = []
    for diag in unit.diagnostics:
        converted = _convert(diag, side)
        if converted is not None:
            out.append(converted)
    return out


def _convert(diag, side: str | None) -> Diagnostic | None:
    severity = _SEVERITY.get(diag.severity)
    if severity is None:
        return None
    location = None
    if diag.location.file is not None:
        location = Location(diag.location.file.name, diag.location.line, diag.location.column,
                            diag.location.offset)
    option = diag.option or ""
    if option.startswith("-W"):
        ident = "clang-" + option[2:]
    else:
        ident = "clang-error" if severity is Severity.ERROR else "clang"
    message = diag.spelling
    if side is not None:
        message += f" (CUDA {side} side)"
    notes = tuple(n for n in (_convert(child, side) for child in diag.children) if n is not None)
    return Diagnostic(severity, message, ident, location, notes)


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple] = set()
    out = []
    for diag in diags:
        key = (diag.severity, diag.message.removesuffix(" (CUDA host side)")
               .removesuffix(" (CUDA device side)"), diag.location)
        if key not in seen:
            seen.add(key)
            out.append(diag)
    return out

