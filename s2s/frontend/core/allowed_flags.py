"""The allow-list of user flags that reach the tools s2s runs itself (issue 32, item 2).

s2s hands the user's flags (after ``--``, ``flags`` of the configuration file, an entry of
``compile_commands.json``) to libclang's in-process parse, to the ``clang-16 -fsyntax-only``
check of ``s2s omp``, to the ``nvcc -c`` check of CUDA rewrites and to the builds of
``s2s verify`` and ``s2s report --run``. None of these may run the user's code or write the
user's files: ``-fplugin=X.so`` is loaded by clang (code runs inside the check), ``-MD -MF
FILE`` makes a check that promises to write nothing write FILE. So only flags that say how to
read the source (``-I -D -U -std -x -include -isystem -iquote``, warnings, language and target
flags) are passed on; everything else is dropped and named in one note.

The compiler wrapper (``s2s nvcc ...``) is different: the user's own build gets the user's
flags as written (a drop-in wrapper must build what the build asked for); this list is for
what s2s runs on its own account. The one function to call is :func:`allowed_flags`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from s2s.diagnostics import Diagnostic
from s2s.frontend.core.flags import absolute_path

#: flags whose value may be the next argument (``-I dir``) or joined (``-Idir``)
_PATH_OR_VALUE = ("-isystem", "-iquote", "-idirafter", "-include", "-imacros", "-isysroot",
                  "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-I", "-D", "-U")
#: flags that always take the next argument as their value and are kept with it
_KEPT_WITH_ARG = {"-x", "--sysroot", "-target", "-std", "--std"}
#: flags kept as they are (exact spellings)
_KEPT_EXACT = {"-w", "-pedantic", "-pedantic-errors", "-ansi", "-nostdinc", "-nostdinc++",
               "-nostdlibinc", "-nobuiltininc", "-pthread", "-nocudainc", "-nocudalib",
               "--cuda-host-only", "--cuda-device-only", "--no-cuda-version-check", "-g",
               "-ggdb", "-trigraphs", "-undef", "-P", "-C", "-CC", "-H"}
#: kept with a joined value (``-std=c++17``, ``-O2``, ``-march=native``)
_KEPT_JOINED = re.compile(
    r"(?:-std=|--std=|-x|--sysroot=|--target=|-O[0-3sgz]?$|-O$|-g[0-3]$|-ggdb[0-3]?$"
    r"|--cuda-gpu-arch=|--offload-arch=|--cuda-path=|--cuda-include-ptx=|-arch=(?:sm|compute)_"
    r"|-l[A-Za-z0-9_.+-]+$|-L)")
#: ``-m`` target flags, less ``-mllvm`` (its options write files: ``-info-output-file=``)
_MACHINE = re.compile(r"-m(?!llvm)[a-z0-9][A-Za-z0-9_.,=+-]*\Z")
#: ``-W`` warning flags, less ``-Wl,`` ``-Wa,`` ``-Wp,`` (hand arguments to other tools)
_WARNING = re.compile(r"-W(?![lap],)(?:no-)?[A-Za-z0-9][A-Za-z0-9_.=+-]*\Z")
#: ``-f`` language flags that change how source is read or checked, and nothing else
_LANGUAGE_F = re.compile(
    r"-f(?:no-)?(?:"
    r"exceptions|cxx-exceptions|rtti|ms-extensions|ms-compatibility|ms-compatibility-version=.*"
    r"|gnu-keywords|gnu89-inline|gnu-inline-asm|asm|builtin|builtin-[a-z0-9_]+|common"
    r"|signed-char|unsigned-char|char8_t|short-wchar|short-enums|wrapv|trapv|strict-aliasing"
    r"|permissive|delayed-template-parsing|declspec|blocks|sized-deallocation"
    r"|aligned-allocation|coroutines|coroutines-ts|concepts|modules-ts|gnu-runtime"
    r"|pic|PIC|pie|PIE|omit-frame-pointer|fast-math|finite-math-only|math-errno"
    r"|fp-contract=[a-z]+|fp-model=[a-z]+|openmp|openmp=[a-z0-9]+|openmp-simd|openmp-version=\d+"
    r"|openmp-targets=[A-Za-z0-9_,.-]+|openmp-extensions|cuda-allow-variadic-functions"
    r"|gpu-rdc|cuda-approx-transcendentals|gpu-allow-device-init|hip-new-launch-api"
    r"|diagnostics-[a-z0-9-]+(?:=[A-Za-z0-9_-]+)?|color-diagnostics|caret-diagnostics"
    r"|show-column|show-source-location|spell-checking|elide-type|message-length=\d+"
    r"|macro-backtrace-limit=\d+|template-backtrace-limit=\d+|template-depth=\d+"
    r"|constexpr-depth=\d+|constexpr-steps=\d+|bracket-depth=\d+|error-limit=\d+"
    r"|visibility=[a-z]+|visibility-inlines-hidden|inline|inline-functions|strict-overflow"
    r"|threadsafe-statics|use-cxa-atexit|elide-constructors|access-control|operator-names"
    r"|dollars-in-identifiers|digraphs|trigraphs|lax-vector-conversions(?:=[a-z]+)?"
    r"|vectorize|slp-vectorize|unroll-loops|strict-enums|fixed-point|char8-t"
    r"|input-charset=[A-Za-z0-9_-]+|exec-charset=[A-Za-z0-9_-]+|extended-identifiers"
    r"|const-strings|writable-strings|zero-initialized-in-bss|stack-protector(?:-[a-z]+)?"
    r"|align-functions(?:=\d+)?|keep-inline-functions|implicit-templates|new-infallible"
    r"|relaxed-template-template-args|pch-validate-input-files-content|semantic-interposition"
    r"|plt|unsafe-math-optimizations|associative-math|reciprocal-math|signed-zeros"
    r"|honor-nans|honor-infinities|rounding-math|trapping-math|excess-precision=[a-z]+"
    r")\Z")
#: flags that take the next argument and are dropped with it (``-o FILE``, ``-MF FILE``,
#: ``-Xclang -load``): the value must not be read as a flag or an input of its own
_DROPPED_WITH_ARG = {"-o", "-MF", "-MT", "-MQ", "-MJ", "-Xclang", "-Xlinker", "-Xassembler",
                     "-Xpreprocessor", "-Xcompiler", "-Xarch_host", "-Xarch_device",
                     "-Xopenmp-target", "-Xcuda-ptxas", "-Xcuda-fatbinary", "-Xoffload-linker",
                     "-mllvm", "-load", "-B", "-specs", "--serialize-diagnostics", "-main-file-name",
                     "-dependency-file", "-dependency-dot", "-module-dependency-dir",
                     "-header-include-file", "-fmodules-cache-path", "-fmodule-file", "-ccbin",
                     "--compiler-bindir", "-arch", "--output-file", "-odir", "--keep-dir"}


def allowed_flags(flags: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split user ``flags`` into (kept, dropped), in their order.

    A flag is kept only when this module's allow-list says it only changes how the source is
    read (include paths, macros, language, warnings, target); everything else, in particular
    what loads code (``-fplugin=``, ``-Xclang -load``, ``-B``, ``--driver-mode=``, ``@file``)
    or writes files (``-o``, ``-MD``/``-MF``, ``--save-temps``, ``-fprofile-*``, ``-Wl,``), is
    dropped with the argument it takes. A dropped flag appears in ``dropped`` as the user
    wrote it (with its argument after a space). ``-arch sm_90`` (a GPU architecture) is kept.
    """
    kept: list[str] = []
    dropped: list[str] = []
    at = 0
    while at < len(flags):
        flag = flags[at]
        nxt = flags[at + 1] if at + 1 < len(flags) else None
        width = _kept_width(flag, nxt)
        if width:
            kept.extend(flags[at:at + width])
        else:
            width = 2 if _takes_next(flag) and nxt is not None else 1
            dropped.append(" ".join(flags[at:at + width]))
        at += width
    return tuple(kept), tuple(dropped)


#: kept flags whose value is a path (joined or the next argument), for :func:`anchored`
_PATH_FLAGS = ("-isystem", "-iquote", "-idirafter", "-include", "-imacros", "-isysroot",
               "--sysroot=", "--sysroot", "-I")


def anchored(flags: Sequence[str], base: str) -> tuple[str, ...]:
    """``flags`` (kept ones) with every relative path value made absolute against ``base``:
    the same flags for a tool run in another working directory. A relative ``-include`` or
    ``-imacros`` file is anchored only where it exists under ``base`` (else the tool searches
    the include path for it, as it would have)."""
    out: list[str] = []
    at = 0
    while at < len(flags):
        flag = flags[at]
        option = next((o for o in _PATH_FLAGS if flag.startswith(o)), None)
        if option is None:
            out.append(flag)
            at += 1
            continue
        joined = flag != option
        value = flag[len(option):] if joined else (flags[at + 1] if at + 1 < len(flags) else "")
        value = _anchor(value, base, option in ("-include", "-imacros"))
        out += [option + value] if joined else [option, value]
        at += 1 if joined else 2
    return tuple(out)


def _anchor(value: str, base: str, file_only_if_there: bool) -> str:
    if not value:
        return value
    absolute = absolute_path(value, base)
    if file_only_if_there and not os.path.exists(absolute):
        return value
    return absolute


def _kept_width(flag: str, nxt: str | None) -> int:
    """How many arguments from ``flag`` on are kept (0: it is dropped)."""
    if flag == "-arch" and nxt is not None and re.fullmatch(r"(?:sm|compute)_\d+[a-z]?", nxt):
        return 2
    if flag in _DROPPED_WITH_ARG:        # before the prefixes: "-load" is no "-l" library
        return 0
    for option in _PATH_OR_VALUE:
        if flag == option:
            return 2 if nxt is not None else 0
        if flag.startswith(option):
            return 1
    if flag in _KEPT_WITH_ARG:
        return 2 if nxt is not None else 0
    if flag in _KEPT_EXACT or _KEPT_JOINED.match(flag):
        return 1
    if _MACHINE.match(flag) or _WARNING.match(flag) or _LANGUAGE_F.match(flag):
        return 1
    return 0


def _takes_next(flag: str) -> bool:
    """A dropped flag whose value is the next argument (``-MF FILE``, ``-Xopenmp-target=T
    ARG``): the value goes with it, never read as a flag or an input of its own."""
    return flag in _DROPPED_WITH_ARG or flag.startswith(("-Xopenmp-target=", "-Xarch_"))


def dropped_note(dropped: Sequence[str], where: str) -> Diagnostic:
    """The one note that says which of the flags from ``where`` s2s did not pass on."""
    listed = ", ".join(f"'{flag}'" for flag in dict.fromkeys(dropped))
    return Diagnostic.note(
        f"flags from {where} not passed to the tools s2s runs itself (they could load code or "
        f"write files, or are not on its allow-list): {listed}", "flags-dropped")
