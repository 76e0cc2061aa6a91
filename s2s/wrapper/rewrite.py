"""Run the selected passes over one compiler input and keep what the build needs.

The passes see the source as the compiler would: the same language, the preprocessing flags
of the command line (``-I -D -U -include -isystem -std``, also inside ``-Xcompiler``) and the
same GPU architecture. Passes are chained: each one parses the previous one's output under
the original file name, so includes resolve exactly as for the original.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from s2s import run_cache
from s2s.diagnostics import Diagnostic
from s2s.edits import beside_name
from s2s.frontend.core import parse_reuse
from s2s.frontend.core.parse import DEFAULT_GPU_ARCH, LEGACY_PARSE_ID, ParseOptions, read_source
from s2s.transform import registry
from s2s.wrapper.args import FORWARDED, Arg, Classified, Role, Source, Value, classify
from s2s.wrapper.cc_args import CC

if TYPE_CHECKING:      # (the driver, and the extractor it imports, only when a chain runs: a
    # warm compile replays its rewrite from the cache without them, docs/benchmarks.md)
    from s2s.driver import Pass, RunOptions

_ARCH = re.compile(r"(?:sm|compute)_(\d+[a-z]?)")
#: nvcc's long spellings of preprocessing options, as clang spells them
_CLANG_SPELLING = {"--define-macro": "-D", "--undefine-macro": "-U", "--include-path": "-I",
                   "--system-include": "-isystem", "--pre-include": "-include", "--std": "-std=",
                   "-std": "-std="}
#: nvcc options whose value is a comma-separated list
_LIST_VALUED = {"-D", "-U", "-I", "-isystem", "-include"}


class RewriteFailed(Exception):
    """A pass could not process a source; carries the first error."""

    def __init__(self, path: str, diagnostic: Diagnostic):
        super().__init__(diagnostic.headline())
        self.path = path
        self.diagnostic = diagnostic


@dataclass(frozen=True)
class Rewrite:
    """One source before and after the passes, and what the passes said about it."""

    source: Source
    before: bytes
    after: bytes
    diagnostics: tuple[Diagnostic, ...]
    #: (path, bytes) of the files the passes generate beside the source (mgpu's kernel
    #: table), which the rewritten source includes: the compile places them beside its copy
    generated: tuple[tuple[str, bytes], ...] = ()

    @property
    def changed(self) -> bool:
        return self.before != self.after


def parse_options(command: Classified, source: Source, nvcc_style: bool) -> ParseOptions:
    """How libclang must parse ``source`` to see what the compiler will see."""
    flags = preprocessing_flags(command, nvcc_style)
    arch = DEFAULT_GPU_ARCH
    for value in command.values(Role.ARCH):
        match = _ARCH.fullmatch(value)
        if match:
            arch = f"sm_{match.group(1)}"
    return ParseOptions(language=source.language, user_flags=tuple(flags), gpu_arch=arch)


def preprocessing_flags(command: Classified, nvcc_style: bool) -> list[str]:
    """The command's preprocessing flags in clang's spelling, host-compiler ones included.

    OpenMP flags are left out on purpose: the front end parses OpenMP sources without
    ``-fopenmp`` (the loops under ``target data`` vanish from the cursor tree otherwise).
    """
    flags: list[str] = []
    for arg in command.options:
        if arg.option.role is Role.PREPROCESS:
            flags += _clang_flags(arg, nvcc_style)
        elif arg.option.role is Role.HOST and arg.value is not None:
            split = nvcc_style and arg.option is not FORWARDED
            host = classify(arg.value.split(",") if split else [arg.value], CC)
            flags += [f for a in host.options if a.option.role is Role.PREPROCESS
                      for f in _clang_flags(a, False)]
    return flags


def _clang_flags(arg: Arg, nvcc_style: bool) -> list[str]:
    name = _CLANG_SPELLING.get(arg.name, arg.name)
    if arg.value is None:
        return [name]
    if arg.option.value is Value.JOINED or name.endswith("="):
        return [name + arg.value]
    values = arg.value.split(",") if nvcc_style and name in _LIST_VALUED else [arg.value]
    return [flag for value in values for flag in (name, value)]


def rewrite_source(source: Source, options: ParseOptions,
                   passes: Sequence[tuple[str, Pass]]) -> Rewrite:
    """Run ``passes`` in order over ``source``; raises RewriteFailed, InputError."""
    def chain() -> Chained:
        from s2s.driver import RunOptions

        return chain_passes(source.path, RunOptions(parse=options),
                            [(name, registry.resolved(run_pass)) for name, run_pass in passes])

    before, after, diagnostics, generated = run_cache.cached_chain(source.path, options, passes,
                                                                   chain)
    return Rewrite(source, before, after, diagnostics, generated)


def _in_intermediate(diagnostic: Diagnostic, path: str) -> Diagnostic:
    """A later pass's message about the text earlier passes produced: its line and column are
    not the user's file's, so they go into the message instead of the location."""
    location = diagnostic.location
    if location is None or location.file != path:
        return diagnostic
    return replace(diagnostic, location=None,
                   message=f"{path}, in the code the earlier passes produced (line "
                           f"{location.line}): {diagnostic.message}",
                   notes=tuple(_in_intermediate(n, path) for n in diagnostic.notes))


@dataclass(frozen=True)
class Chained:
    """A file before and after a chain of passes, what they said, and the files they generate
    beside it ((path, bytes): mgpu's kernel table)."""

    before: bytes
    after: bytes
    diagnostics: tuple[Diagnostic, ...]
    generated: tuple[tuple[str, bytes], ...] = ()


def chain_passes(path: str, options: RunOptions, passes: Sequence[tuple[str, Pass]],
                 incomplete_is_error: bool = False) -> Chained:
    """The file's bytes before and after ``passes`` ran in order, what the passes said
    (the front end's own warnings left out: the compiler gives its own; but not s2s's choice
    of headers, ``cuda-toolkit-rejects``, said once, which no compiler gives) and the files
    they generate beside it. Each pass parses the previous one's output under the file's name.
    Raises RewriteFailed, InputError.

    ``incomplete_is_error`` (``s2s verify``): a pass that dropped part of its rewrite because
    the rewrite did not compile (``mgpu-rewrite-invalid``) adds an error, so the verdict of a
    program whose asked-for rewrite was lost is a failure, not "same behaviour"."""
    from s2s.driver import Failed, Success, process_file, process_loaded

    before = read_source(path)
    current = before
    said: list[Diagnostic] = []
    loaded = None                   # the last load, reused while a pass leaves the bytes as they are
    generated: dict[str, bytes] = {}
    with parse_reuse.reusing_checked_parses():   # (a checked rewrite is the next pass's input)
        for name, run_pass in passes:
            with parse_reuse.overlaying(as_included(path, generated)):
                if loaded is not None and loaded.source == current:
                    result = process_loaded(loaded, options, run_pass)
                else:
                    result = process_file(path, options, run_pass, source=current)
            if isinstance(result, Failed):
                errors = [d for d in result.diagnostics if d.is_error] or list(result.diagnostics)
                raise RewriteFailed(path, errors[0] if errors else
                                    Diagnostic.error("the pass failed", "internal"))
            if isinstance(result, Success):
                loaded = result.loaded
                own = result.diagnostics[len(result.loaded.diagnostics):]
                said += [d for d in result.loaded.diagnostics
                         if d.id == LEGACY_PARSE_ID and d not in said]
                said += own if current == before else [_in_intermediate(d, path) for d in own]
                if result.change is not None:
                    current = result.change.after
                generated.update((c.path, c.after) for c in result.generated)
                if result.incomplete and incomplete_is_error:
                    said.append(incomplete_rewrite(name, path))
    return Chained(before, current, tuple(said), tuple(generated.items()))


def as_included(path: str, generated: dict[str, bytes]) -> tuple[tuple[str, bytes], ...]:
    """The files earlier passes generated beside ``path`` under the names its quoted includes
    form (its directory as given, "." for none, joined with the name beside it), for the next
    pass's parses to read from memory (:func:`s2s.frontend.core.parse_reuse.overlaying`)."""
    folder = os.path.dirname(path) or "."
    return tuple((os.path.join(folder, beside_name(p, path)), text)
                 for p, text in generated.items())


def incomplete_rewrite(name: str, path: str) -> Diagnostic:
    """The error ``s2s verify`` adds when pass ``name`` dropped part of its rewrite of
    ``path`` (the warning before it says what did not compile)."""
    return Diagnostic.error(f"{path}: the {name} pass dropped part of its rewrite because it did "
                            "not compile (see the warning above); the program verified is not "
                            f"the one 's2s {name}' was asked for", "verify-rewrite-incomplete")
