"""Table-driven classification of a compiler command line (after ccache's option table).

A compiler wrapper must know, for every argument, whether it takes a value (or it would take
``-o out.o``'s ``out.o`` for a source file), whether it changes how sources are preprocessed
(those flags must reach the parser), which output it asks for (object, preprocessed text,
dependency list, link), and whether the wrapper can cope with it at all. That knowledge lives
in tables of :class:`Option` records (:mod:`s2s.wrapper.nvcc_args` for nvcc,
:mod:`s2s.wrapper.cc_args` for gcc/clang); this module only walks a command line against one.

Anything the table does not know, and anything it marks unsupported, makes the command
unsupported: the wrapper then runs the real compiler with the original arguments, so an
unknown option can never be misread as taking (or not taking) a value.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass


class Value(enum.Enum):
    """How an option takes its value."""

    NONE = "none"  # a plain flag: -c, -MD
    SEPARATE = "separate"  # "-o out" or "-o=out" (nvcc) / "--opt=out"
    JOINED = "joined"  # only glued to the name: -O3, -fopenmp, -Wall, -std=c++17 (gcc)
    JOINED_OR_SEPARATE = "joined-or-separate"  # -Idir, "-I dir", "-I=dir" (nvcc)


class Role(enum.Enum):
    """What an option means to the wrapper."""

    PHASE = "phase"  # selects what the compiler produces (-c, -E, -M, -cubin ...)
    OUTPUT = "output"  # -o
    DEPS = "deps"  # dependency output: -MD, -MMD, -MF, -MT, -MP
    PREPROCESS = "preprocess"  # changes preprocessing, so it reaches the parser: -I -D -U -std
    LANGUAGE = "language"  # -x: the language of the inputs
    HOST = "host"  # options forwarded to nvcc's host compiler (-Xcompiler): scanned for -I/-D
    ARCH = "arch"  # GPU architecture (-arch): the parse uses the same one
    CODEGEN = "codegen"  # code generation, warnings, optimisation: nothing for s2s
    LINK = "link"  # libraries, linker options
    INFO = "info"  # --version, --help, --dryrun: no compilation, run as given
    UNSUPPORTED = "unsupported"  # the wrapper cannot keep its promises: fall back


class Phase(enum.Enum):
    """What one compiler run produces (the last phase option wins, as in gcc and nvcc)."""

    LINK = "link"  # default: compile the sources and link everything
    COMPILE = "compile"  # -c, -dc, -dw: objects
    DEVICE_CODE = "device-code"  # -cubin, -ptx, -fatbin, -cuda, -optix-ir, -ltoir
    ASSEMBLE = "assemble"  # gcc -S
    PREPROCESS = "preprocess"  # -E
    DEPS = "deps"  # -M, -MM: a dependency list instead of an object
    SYNTAX = "syntax"  # -fsyntax-only
    DEVICE_LINK = "device-link"  # nvcc -dlink
    LIB = "lib"  # nvcc -lib: a static library


#: Phases after which the wrapper can rewrite the source inputs.
REWRITABLE_PHASES = frozenset({Phase.LINK, Phase.COMPILE, Phase.DEVICE_CODE, Phase.ASSEMBLE,
                               Phase.PREPROCESS, Phase.DEPS, Phase.SYNTAX, Phase.LIB})


@dataclass(frozen=True)
class Option:
    """One row of an option table: every spelling of one option and what it means."""

    names: tuple[str, ...]
    value: Value
    role: Role
    phase: Phase | None = None
    why: str = ""  # for UNSUPPORTED rows: why the wrapper gives up, shown to the user


@dataclass(frozen=True)
class Table:
    """An option table plus the input-file conventions of one compiler family."""

    name: str
    options: tuple[Option, ...]
    #: language of a positional input by suffix; inputs with other suffixes are not sources
    source_suffixes: dict[str, str]
    #: does "-opt=value" work for every option with a value (nvcc), or only where spelled so?
    equals_for_all: bool
    #: does -x apply to every input (nvcc) or only to the inputs after it (gcc)?
    language_is_global: bool
    #: -x values and the language s2s parses them as (None: not a source for s2s)
    x_languages: dict[str, str | None]
    #: options after which an unknown option is one argument for the host compiler (nvcc)
    forward_unknown: tuple[str, ...] = ()

    def exact(self) -> dict[str, Option]:
        return {name: option for option in self.options for name in option.names}

    def joined(self) -> list[tuple[str, Option]]:
        """(prefix, option) for options that may be glued to their value, longest first."""
        rows = [(name, option) for option in self.options for name in option.names
                if option.value in (Value.JOINED, Value.JOINED_OR_SEPARATE)]
        return sorted(rows, key=lambda row: -len(row[0]))


#: The table row of an unknown option that nvcc forwards to the host compiler.
FORWARDED = Option(("<forwarded>",), Value.NONE, Role.HOST)


@dataclass(frozen=True)
class Arg:
    """One option occurrence: where it starts in argv, how many entries it spans, its value."""

    index: int
    count: int
    name: str
    option: Option
    value: str | None


@dataclass(frozen=True)
class Source:
    """A source input: its index in argv, the path as written, and its language."""

    index: int
    path: str
    language: str  # "cuda", "c" or "c++"


@dataclass(frozen=True)
class Classified:
    """A command line read against a table: what the wrapper needs to rewrite and rebuild."""

    argv: tuple[str, ...]  # the compiler arguments, compiler name excluded
    options: tuple[Arg, ...]
    sources: tuple[Source, ...]
    other_inputs: tuple[str, ...]  # objects, libraries, .ptx, .i ...: passed through as written
    phase: Phase
    unsupported: tuple[str, ...]  # why the wrapper must fall back (empty: it need not)
    info_only: bool  # --version, --help ...: nothing is compiled

    def values(self, role: Role) -> tuple[str, ...]:
        return tuple(a.value for a in self.options if a.option.role is role and a.value is not None)

    def has(self, *names: str) -> bool:
        return any(a.name in names for a in self.options)

    def value_of(self, *names: str) -> str | None:
        """The value of the last occurrence of any of ``names`` (later options win)."""
        found = [a.value for a in self.options if a.name in names]
        return found[-1] if found else None

    @property
    def output(self) -> str | None:
        found = [a.value for a in self.options if a.option.role is Role.OUTPUT]
        return found[-1] if found else None

    @property
    def rewritable(self) -> bool:
        """True when the sources may be replaced by rewritten copies."""
        return bool(self.sources) and not self.unsupported and not self.info_only \
            and self.phase in REWRITABLE_PHASES


def classify(argv: list[str] | tuple[str, ...], table: Table) -> Classified:
    """Read ``argv`` (compiler name excluded) against ``table``; never raises."""
    exact, joined = table.exact(), table.joined()
    options: list[Arg] = []
    sources: list[Source] = []
    others: list[str] = []
    unsupported: list[str] = []
    phases: list[Phase] = []
    language: str | None = None  # the -x in force, as the table spells it
    forwarded = any(arg in table.forward_unknown for arg in argv)
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "-" or arg.startswith("@"):
            unsupported.append("input from stdin ('-')" if arg == "-"
                               else f"response file '{arg}' (options hidden from the wrapper)")
            i += 1
            continue
        if not arg.startswith("-"):
            if arg:
                _input(i, arg, language, table, sources, others)
            i += 1
            continue
        parsed = _match(argv, i, exact, joined, table)
        if parsed is None and forwarded:
            parsed = Arg(i, 1, arg, FORWARDED, arg)
        if parsed is None:
            unsupported.append(f"unknown {table.name} option '{arg}'")
            i += 1
            continue
        options.append(parsed)
        option = parsed.option
        if option.role is Role.UNSUPPORTED:
            unsupported.append(f"'{parsed.name}': {option.why}" if option.why else f"'{arg}'")
        if option.phase is not None:
            phases.append(option.phase)
        if option.role is Role.LANGUAGE:
            language = None if parsed.value == "none" else parsed.value
            if language is not None and language not in table.x_languages:
                unsupported.append(f"unknown input language '-x {language}'")
        i += parsed.count
    if table.language_is_global and language is not None:
        sources, others = _relabel(sources, others, language, table)
    if len(set(phases)) > 1:
        unsupported.append("several output phases in one command ("
                           + ", ".join(sorted({p.value for p in phases})) + ")")
    info_only = any(a.option.role is Role.INFO for a in options)
    phase = phases[-1] if phases else Phase.LINK
    return Classified(tuple(argv), tuple(options), tuple(sources), tuple(others), phase,
                      tuple(dict.fromkeys(unsupported)), info_only)


def _match(argv, i: int, exact: dict[str, Option], joined, table: Table) -> Arg | None:
    """The option starting at ``argv[i]``, with its value and how many entries it uses."""
    arg = argv[i]
    option = exact.get(arg)
    if option is not None:
        if option.value in (Value.NONE, Value.JOINED):
            return Arg(i, 1, arg, option, None)
        if i + 1 >= len(argv):
            return Arg(i, 1, arg, _missing_value(option), None)
        return Arg(i, 2, arg, option, argv[i + 1])
    if "=" in arg:
        name, value = arg.split("=", 1)
        option = exact.get(name)
        if option is not None and option.value is not Value.NONE \
                and (table.equals_for_all or option.value is Value.JOINED_OR_SEPARATE
                     or name.startswith("--")):
            return Arg(i, 1, name, option, value)
    for prefix, option in joined:
        if arg.startswith(prefix) and len(arg) > len(prefix):
            return Arg(i, 1, prefix, option, arg[len(prefix):])
    return None


def _missing_value(option: Option) -> Option:
    return Option(option.names, option.value, Role.UNSUPPORTED,
                  why="its value is missing at the end of the command line")


def _input(index: int, path: str, language: str | None, table: Table, sources: list[Source],
           others: list[str]) -> None:
    if language is not None and not table.language_is_global:
        parsed_as = table.x_languages.get(language)
        if parsed_as is None:
            others.append(path)
        else:
            sources.append(Source(index, path, parsed_as))
        return
    suffix = os.path.splitext(path)[1]
    parsed_as = table.source_suffixes.get(suffix)
    if parsed_as is None:
        others.append(path)
    else:
        sources.append(Source(index, path, parsed_as))


def _relabel(sources: list[Source], others: list[str], language: str, table: Table
             ) -> tuple[list[Source], list[str]]:
    """nvcc's -x applies to every input: source files and other inputs alike."""
    parsed_as = table.x_languages.get(language)
    if parsed_as is None:
        return [], others + [s.path for s in sources]
    # Inputs that are objects or libraries stay what they are even under -x.
    return [Source(s.index, s.path, parsed_as) for s in sources], others
