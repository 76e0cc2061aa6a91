"""Compile flags from ``compile_commands.json`` (as clang-tidy's ``-p``), filtered for libclang.

A build's command line holds much that libclang must not see (``-c``, ``-o out.o``, the input
itself, dependency-file flags) and, for nvcc, options clang does not know (``-arch=sm_90``,
``-Xcompiler -fPIC``, ``--expt-relaxed-constexpr``).  The table below says what happens to each
flag: kept (with relative paths made absolute against the entry's directory), dropped because it
only concerns code generation or the build, or unknown (dropped and reported once, so the user
learns that the parse may differ from the build).
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from s2s.diagnostics import UsageError
from s2s.user_files import decode_utf8, read_regular

#: the largest compile_commands.json s2s reads (LLVM's own, 4,000 files, is about 6 MiB)
MAX_DATABASE_BYTES = 256 * 1024 * 1024

# Flags that take a path argument (joined "-Idir" or separate "-I dir"); kept, path absolutized.
_PATH_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros", "--include-path",
               "--system-include", "--pre-include")
# Flags kept as they are (joined value or "=" value).
_KEEP_PREFIXES = ("-D", "-U", "-std=", "-std", "--std", "-f", "-m", "-O", "-g", "-W", "-pedantic",
                  "-ansi", "-nostdinc", "-pthread", "--cuda-gpu-arch=", "--cuda-path=",
                  "--offload-arch=", "-fopenmp")
# nvcc spellings translated to clang's.
_NVCC_SPELLING = {"--define-macro": "-D", "--undefine-macro": "-U", "--include-path": "-I",
                  "--system-include": "-isystem", "--pre-include": "-include"}
# Flags dropped with their separate argument: build outputs and code generation only.
_DROP_WITH_ARG = {"-o", "-MF", "-MT", "-MQ", "-x", "-arch", "-gencode", "-code", "-ccbin",
                  "--compiler-bindir", "--output-file", "-Xptxas", "-Xlinker", "-Xnvlink",
                  "--gpu-architecture", "--gpu-code", "--generate-code", "-maxrregcount",
                  "--maxrregcount", "-L", "-l", "--library", "--library-path", "-t", "--threads",
                  "-Xarch_device", "-Xarch_host", "--keep-dir", "-odir"}
# Flags dropped on their own (or with a joined value).
_DROP_PREFIXES = ("-c", "-S", "-E", "-M", "-o", "-arch=", "-gencode=", "-code=", "-ccbin=",
                  "--gpu-architecture=", "--gpu-code=", "--generate-code=", "-rdc", "--relocatable",
                  "-dc", "-dlink", "--device-c", "--device-link", "-lineinfo", "--expt-",
                  "--extended-lambda", "-extended-lambda", "-expt-", "--use_fast_math",
                  "-use_fast_math", "--keep", "-keep", "-L", "-l", "-Werror", "--Werror",
                  "-maxrregcount=", "--ptxas-options", "-Xptxas=", "--resource-usage", "-G",
                  "--threads=", "-t=", "-shared", "-static", "-fPIC", "-fpic", "-pipe",
                  "--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler",
                  "--diag-suppress", "-diag-suppress", "--display-error-number", "-Xcudafe",
                  "--cudart", "-cudart", "-rpath", "-Wl,", "-Xlinker=", "--source-in-ptx")
_HOST_COMPILER_PASSTHROUGH = ("-Xcompiler", "--compiler-options")
_SOURCE_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".C", ".i", ".ii"}


# OpenMP and offloading flags: the analysis parses never take them (see without_openmp_flags).
_OPENMP_JOINED = ("-fopenmp", "-fiopenmp", "-fno-openmp", "-foffload", "-fno-offload",
                  "--offload-arch=", "--no-offload-arch=", "-qopenmp", "-Xopenmp-target=",
                  "--offload=", "-fopenmp-targets=")
_OPENMP_WITH_ARG = ("-Xopenmp-target", "-Xoffload-linker")


_PASS_ON_ONE = ("-Xclang", "-Xpreprocessor", "-Xarch_host", "-Xarch_device")


def openmp_flag_width(flags: Sequence[str], at: int) -> int:
    """How many arguments from ``flags[at]`` on form an OpenMP or offloading flag (0: none).

    ``-Xopenmp-target[=triple] ARG`` and ``-Xclang -fopenmp`` are two; a flag that takes the
    next argument is never cut from its value."""
    flag = flags[at]
    if flag in _OPENMP_WITH_ARG or flag.startswith("-Xopenmp-target="):
        return 2
    if flag.startswith(_OPENMP_JOINED) or flag == "-mp" or flag.startswith("-mp="):
        return 1
    if flag in _PASS_ON_ONE and at + 1 < len(flags) and openmp_flag_width(flags, at + 1) == 1:
        return 2
    return 0


def without_openmp_flags(flags: Sequence[str]) -> tuple[str, ...]:
    """``flags`` less every OpenMP and offloading flag, with the argument that belongs to it.

    The one place for this rule, whether the flags come after ``--``, from
    ``compile_commands.json`` or through the compiler wrapper: s2s parses OpenMP sources
    without ``-fopenmp`` (with it, the statements inside ``target data`` vanish from the cursor
    tree, and every directive would look like one without a statement), and the device
    toolchain flags (``-fopenmp-targets=``, ``-Xopenmp-target=nvptx64 -march=sm_80``,
    ``--offload-arch=``) only concern code generation.
    """
    kept: list[str] = []
    at = 0
    while at < len(flags):
        width = openmp_flag_width(flags, at)
        if width == 0:
            kept.append(flags[at])
        at += max(width, 1)
    return tuple(kept)


@dataclass(frozen=True)
class DatabaseEntry:
    """One compile command: its working directory, source file and argument vector."""

    directory: str
    file: str
    arguments: tuple[str, ...]


@dataclass(frozen=True)
class CompilationDatabase:
    """The entries of one ``compile_commands.json``, looked up by the real path of the source."""

    path: str
    entries: tuple[DatabaseEntry, ...]

    def entry_for(self, source: str) -> DatabaseEntry | None:
        """The first entry whose file is ``source`` (paths compared after resolving links)."""
        wanted = os.path.realpath(source)
        for entry in self.entries:
            if os.path.realpath(os.path.join(entry.directory, entry.file)) == wanted:
                return entry
        return None


def load_compile_commands(build_dir: str | os.PathLike) -> CompilationDatabase:
    """Read ``BUILD_DIR/compile_commands.json`` (or the file itself when given one).

    Raises ``UsageError`` when it is missing or malformed: the user asked for it explicitly.
    """
    path = Path(build_dir)
    if path.is_dir():
        path = path / "compile_commands.json"
    try:
        data = read_regular(str(path), MAX_DATABASE_BYTES)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file (-p expects a build directory holding "
                         "compile_commands.json)") from None
    except OSError as err:
        raise UsageError(f"{path}: cannot read compilation database: "
                         f"{err.strerror or err}") from None
    try:
        raw = json.loads(decode_utf8(data, str(path)))
    except UnicodeError as err:
        raise UsageError(str(err)) from None
    except ValueError as err:      # JSONDecodeError: line and column of the fault
        raise UsageError(f"{path}: cannot read compilation database: {err}") from None
    except RecursionError:
        raise UsageError(f"{path}: cannot read compilation database: nested too "
                         "deeply") from None
    if not isinstance(raw, list):
        raise UsageError(f"{path}: a compilation database is a JSON list of commands")
    entries = []
    for number, item in enumerate(raw):
        entries.append(_entry_from_json(item, path, number))
    return CompilationDatabase(str(path), tuple(entries))


def _entry_from_json(item: object, path: Path, number: int) -> DatabaseEntry:
    """One entry, its types checked: ``file`` and ``directory`` strings, ``arguments`` a list
    of strings (a string would be split into characters) or ``command`` a string that
    ``shlex`` can split."""
    if not isinstance(item, dict) or "file" not in item or "directory" not in item:
        raise UsageError(f"{path}: entry {number} lacks 'file' or 'directory'")
    for key in ("file", "directory"):
        if not isinstance(item[key], str):
            raise UsageError(f"{path}: entry {number}: '{key}' must be a string, not "
                             f"{type(item[key]).__name__}")
    if "arguments" in item:
        listed = item["arguments"]
        if not isinstance(listed, list) or not all(isinstance(a, str) for a in listed):
            raise UsageError(f"{path}: entry {number}: 'arguments' must be a list of strings "
                             f"(use 'command' for one string), not {type(listed).__name__}")
        arguments = tuple(listed)
    elif "command" in item:
        if not isinstance(item["command"], str):
            raise UsageError(f"{path}: entry {number}: 'command' must be a string")
        try:
            arguments = tuple(shlex.split(item["command"]))
        except ValueError as err:      # "No closing quotation"
            raise UsageError(f"{path}: entry {number}: 'command' cannot be split into "
                             f"arguments: {err}") from None
    else:
        raise UsageError(f"{path}: entry {number} has neither 'arguments' nor 'command'")
    # The format asks for an absolute directory; a relative one (hand-written databases) is
    # read against the database's own folder, not against wherever s2s runs.
    directory = os.path.join(os.path.dirname(os.path.abspath(path)), str(item["directory"]))
    return DatabaseEntry(os.path.normpath(directory), str(item["file"]), arguments)


def filter_flags(arguments: tuple[str, ...] | list[str],
                 directory: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split a compile command into (flags for libclang, unknown flags that were dropped).

    ``arguments[0]`` is the compiler; source files are dropped; ``-Xcompiler a,b`` is unpacked and
    filtered like the rest; relative include paths become absolute against ``directory``.
    """
    kept: list[str] = []
    unknown: list[str] = []
    args = list(arguments[1:])
    i = 0
    while i < len(args):
        arg = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        width = openmp_flag_width(args, i)
        if width:
            i += width
            continue
        if arg in _HOST_COMPILER_PASSTHROUGH or arg.startswith(("-Xcompiler=", "--compiler-options=")):
            value = arg.split("=", 1)[1] if "=" in arg else nxt
            inner, inner_unknown = filter_flags(["cc", *(value or "").split(",")], directory)
            kept.extend(inner)
            unknown.extend(inner_unknown)
            i += 1 if "=" in arg else 2
            continue
        taken = _classify(arg, nxt, directory, kept, unknown)
        i += taken
    return tuple(kept), tuple(dict.fromkeys(unknown))


def _classify(arg: str, nxt: str | None, directory: str, kept: list[str],
              unknown: list[str]) -> int:
    """Append what ``arg`` contributes to ``kept`` / ``unknown``; return how many args it used."""
    if not arg:
        return 1
    if not arg.startswith("-"):
        if Path(arg).suffix in _SOURCE_SUFFIXES or Path(arg).suffix in {".o", ".obj", ".a"}:
            return 1
        unknown.append(arg)
        return 1
    spelled = arg
    for nvcc, clang in _NVCC_SPELLING.items():
        if arg == nvcc or arg.startswith(nvcc + "="):
            spelled = clang + arg[len(nvcc) + 1:] if arg.startswith(nvcc + "=") else clang
    for flag in _PATH_FLAGS:
        if spelled == flag:
            if nxt is None:
                unknown.append(arg)
                return 1
            kept.extend([flag, absolute_path(nxt, directory)])
            return 2
        if spelled.startswith(flag) and flag in ("-I", "-isystem", "-iquote", "-idirafter"):
            kept.append(flag + absolute_path(spelled[len(flag):], directory))
            return 1
    if spelled in ("-D", "-U") and nxt is not None:
        kept.extend([spelled, nxt])
        return 2
    if arg in _DROP_WITH_ARG:
        return 2
    if arg.startswith(_DROP_PREFIXES):
        return 1
    if spelled.startswith(_KEEP_PREFIXES):
        kept.append(spelled)
        return 1
    unknown.append(arg)
    return 1


def absolute_path(path: str, directory: str) -> str:
    """``path`` as given, if absolute, else anchored at ``directory`` (normalised)."""
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(directory, path))
