"""gcc/clang options, classified for the wrapper when it launches a host compiler.

``s2s /usr/bin/clang-16 -fopenmp -c x.c`` (CMake's ``CMAKE_C_COMPILER_LAUNCHER=s2s``) reads its
command line against this table. It covers what builds pass in practice; families of flags
that never take a separate value are prefix rows (``-f``, ``-W``, ``-m``, ``-O``, ``-g``).
Anything else is unsupported and the compiler runs on the original command.
"""

from __future__ import annotations

from s2s.wrapper.args import Option, Phase, Role, Table, Value

N, S, J, JS = Value.NONE, Value.SEPARATE, Value.JOINED, Value.JOINED_OR_SEPARATE


def _rows(value: Value, role: Role, *names: str, phase: Phase | None = None,
          why: str = "") -> tuple[Option, ...]:
    return tuple(Option((name,), value, role, phase, why) for name in names)


CC_OPTIONS: tuple[Option, ...] = (
    *_rows(N, Role.PHASE, "-c", phase=Phase.COMPILE),
    *_rows(N, Role.PHASE, "-S", phase=Phase.ASSEMBLE),
    *_rows(N, Role.PHASE, "-E", phase=Phase.PREPROCESS),
    *_rows(N, Role.PHASE, "-M", "-MM", phase=Phase.DEPS),
    *_rows(N, Role.PHASE, "-fsyntax-only", phase=Phase.SYNTAX),
    *_rows(N, Role.DEPS, "-MD", "-MMD", "-MP", "-MG"),
    *_rows(JS, Role.DEPS, "-MF", "-MT", "-MQ"),
    *_rows(JS, Role.OUTPUT, "-o"),
    *_rows(JS, Role.PREPROCESS, "-I", "-D", "-U", "-iquote", "-isystem", "-idirafter",
           "-iprefix", "-iwithprefix", "-isysroot"),
    *_rows(S, Role.PREPROCESS, "-include", "-imacros"),
    *_rows(J, Role.PREPROCESS, "-std=", "--std=", "--sysroot="),
    *_rows(N, Role.PREPROCESS, "-nostdinc", "-nostdinc++", "-ansi", "-pthread", "-undef",
           "-trigraphs", "-P", "-C", "-CC", "-dD", "-dM"),
    *_rows(JS, Role.LANGUAGE, "-x"),
    *_rows(JS, Role.LINK, "-l", "-L"),
    *_rows(S, Role.LINK, "-Xlinker"),
    *_rows(J, Role.LINK, "-Wl,"),
    *_rows(N, Role.LINK, "-shared", "-static", "-rdynamic", "-pie", "-no-pie", "-nostdlib",
           "-nodefaultlibs", "-nostartfiles", "-s", "-static-libgcc", "-static-libstdc++"),
    # Families of flags without a separate value: optimisation, debug info, warnings,
    # machine and language features (-fopenmp, -fopenmp-targets=..., -fPIC, -march=native).
    *_rows(J, Role.CODEGEN, "-O", "-g", "-W", "-f", "-m", "-Wa,", "-Wp,", "--target=",
           "-flto="),
    *_rows(N, Role.CODEGEN, "-O", "-g", "-w", "-v", "-pedantic", "-pedantic-errors", "-pipe",
           "-Werror", "-Wall", "-Wextra", "-fopenmp", "-fPIC", "-fpic", "-fPIE", "-fpie"),
    *_rows(S, Role.CODEGEN, "-target", "-arch", "-Xassembler", "-B"),
    *_rows(S, Role.UNSUPPORTED, "-Xclang", "-Xpreprocessor", "-Xopenmp-target",
           why="passes options the wrapper cannot read"),
    *_rows(N, Role.UNSUPPORTED, "-save-temps", why="intermediate files named after the input"),
    *_rows(J, Role.UNSUPPORTED, "-save-temps=", why="intermediate files named after the input"),
    *_rows(N, Role.INFO, "--version", "--help", "-###", "-dumpversion", "-dumpmachine",
           "-print-search-dirs", "-print-libgcc-file-name"),
    *_rows(J, Role.INFO, "-print-file-name=", "-print-prog-name="),
)

CC = Table(
    name="C compiler",
    options=CC_OPTIONS,
    source_suffixes={".c": "c", ".cc": "c++", ".cpp": "c++", ".cxx": "c++", ".c++": "c++",
                     ".C": "c++", ".cu": "cuda"},
    equals_for_all=False,
    language_is_global=False,
    x_languages={"c": "c", "c++": "c++", "cuda": "cuda", "c-header": None, "c++-header": None,
                 "assembler": None, "assembler-with-cpp": None, "none": None,
                 "cpp-output": None, "c++-cpp-output": None},
)
