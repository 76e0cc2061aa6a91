"""The front door of the front end: parse a file and extract its frozen model.

Kernels come from the device-side unit when one was parsed (code under ``__CUDA_ARCH__``
exists only there), everything host-side from the host unit.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, replace
from typing import NamedTuple

from s2s.diagnostics import Diagnostic
from s2s.frontend.core.context import ExtractContext, project_headers_of
from s2s.frontend.core.parse import ParsedFile, ParseOptions, parse_file, parse_source
from s2s.model.launch_syntax import OPEN
from s2s.model.unit import ANALYSIS_FIELDS, TranslationUnit  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class Loaded:
    """A file's model (None when libclang reported errors) and every diagnostic about it."""

    path: str
    source: bytes
    model: TranslationUnit | None
    diagnostics: tuple[Diagnostic, ...]
    #: how it was parsed (the user's -D/-I/-std, which a pass may hand on to a runtime)
    options: ParseOptions | None = None
    #: the project headers with code a pass maps (OpenMP directives, CUDA device code), each
    #: extracted from this file's parse: in the context of this file (:func:`included_headers`)
    headers: tuple[Loaded, ...] = ()
    #: only the file's outline was taken (:func:`outline`): nothing in it for the run's pass
    outlined: bool = False

    @property
    def ok(self) -> bool:
        return self.model is not None


def extract(parsed: ParsedFile, header: _Header | None = None,
            shown: frozenset[str] | None = None) -> tuple[TranslationUnit, list[Diagnostic]]:
    """Build the model of an already parsed file; also return the extractors' warnings.
    With ``header``: the model of that project header as the file's parse has it. With
    ``shown`` (names of the model's fields a printer shows: ``s2s inspect``'s): only
    those fields; the others stay empty."""
    side = "host" if "host" in parsed.units else "device"
    # (every extractor: imported by the first file with something to extract)
    from s2s.frontend.walk_extract import model_of

    contexts = [_context(parsed, parsed.primary, side, header)]
    try:
        return model_of(parsed, contexts, shown, functools.partial(_context, parsed, header=header))
    finally:
        for ctx in contexts:
            ctx.release()


class _Header(NamedTuple):
    """A project header to extract from its includer's parse: its name as libclang has it,
    its bytes, and the path its spans carry."""

    name: str
    source: bytes
    path: str


def _context(parsed: ParsedFile, unit, side: str, header: _Header | None) -> ExtractContext:
    if header is None:
        return ExtractContext(parsed.path, parsed.source, unit, side)
    return ExtractContext(header.name, header.source, unit, side, included=True,
                          span_path=header.path)


def load(path: str, options: ParseOptions | None = None, source: bytes | None = None,
         read_files: list[str] | None = None, skip_without: bytes | None = None,
         shown: frozenset[str] | None = None) -> Loaded:
    """Parse and extract ``path`` (or ``source`` under that name).

    A file with libclang errors gets no model: every later stage would work from a wrong
    picture of the program. Input errors (missing, binary) raise InputError. ``read_files``
    gets the names of every file the parse included (the fact cache's dependencies).

    ``skip_without``: a word without which the run's pass has nothing to do (``target``: no
    OpenMP target construct, not even through a macro, is written without it). When neither
    the file, nor a project header it includes, nor a user flag (``-DOFFLOAD=...``) contains
    it, the model is the file's :func:`outline` and nothing is extracted (issue 30, item 1: a
    file with no target region costs a parse, not a walk of every cursor).

    ``shown``: the model's fields a printer shows (``s2s inspect``); only those are extracted
    and no project header is modelled (a pass never sees such a model).
    """
    parsed = parse_file(path, options) if source is None else parse_source(source, path, options)
    if _device_side_in_headers(parsed, options):
        parsed = parse_source(parsed.source, path, replace(options or ParseOptions(), cuda_side="both"))
    if read_files is not None:
        read_files.extend(included_files(parsed))
    diagnostics = list(parsed.diagnostics)
    if parsed.has_errors:
        return Loaded(path, parsed.source, None, tuple(diagnostics), options)
    if skip_without is not None:
        model = outline(parsed)
        flags = (options or ParseOptions()).user_flags
        # (a header that included_headers would model is a unit of the run's output: whole)
        words = (skip_without, *(DEVICE_WORDS if parsed.language == "cuda" else
                                 (*OMP_WORDS, b"_Pragma")))
        if not _mentions(parsed.source, model.project_headers, skip_without, words) and \
                not any(skip_without in flag.encode("utf-8", "surrogateescape") for flag in flags):
            return Loaded(path, parsed.source, model, tuple(diagnostics), options, outlined=True)
    model, warnings = extract(parsed, shown=shown)
    return Loaded(path, parsed.source, model, tuple(diagnostics + warnings), options,
                  included_headers(parsed, model, options) if shown is None else ())


def host_helper_headers(loaded: Loaded, names: frozenset[str] | None = None,
                        word: bytes = b"cuda") -> tuple[Loaded, ...]:
    """The project headers of a CUDA file that call the CUDA runtime from host code but hold
    no device code (``copy_to_device``, ``after_kernel`` in a ``device_io.h``), each extracted
    in the context of the file from a second parse of it, as :func:`included_headers` does
    for headers with device code: the passes follow the calls of those host helpers (issue
    29, item 4). ``names``: only headers whose text names one of these functions (what the
    caller looks for; the text only decides which headers are worth the parse); ``word``: what
    the header's text must contain (b"": also headers of plain helpers, ``iDivUp``). Empty
    when there are none or the file does not parse."""
    model = loaded.model
    if model is None or model.language != "cuda":
        return ()
    modelled = {h.path for h in loaded.headers}
    tool = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # s2s's own stubs
    texts = {}
    for name in model.project_headers:
        if os.path.normpath(name) in modelled or os.path.abspath(name).startswith(tool + os.sep):
            continue
        try:
            with open(name, "rb") as handle:
                text = handle.read()
        except OSError:
            continue
        if word in text and (names is None or any(n.encode() in text for n in names)):
            texts[name] = text
    if not texts:
        return ()
    parsed = parse_source(loaded.source, loaded.path, loaded.options)
    if parsed.has_errors:
        return ()
    return tuple(_included(parsed, name, text, loaded.options) for name, text in texts.items())


def included_files(parsed: ParsedFile) -> list[str]:
    """The names of every file the parse of ``parsed`` included (each side's, in order)."""
    return [inclusion.include.name for unit in parsed.units.values()
            for inclusion in unit.get_includes()]


def outline(parsed: ParsedFile) -> TranslationUnit:
    """The model of a file that holds nothing for the run's pass: its name, language, sides
    and project headers, what a program needs to place it (no walk of its cursors)."""
    return TranslationUnit(path=parsed.path, language=parsed.language, sides=tuple(parsed.units),
                           project_headers=project_headers_of(parsed.primary, parsed.path))


def _mentions(source: bytes, headers: tuple[str, ...], word: bytes,
              header_words: tuple[bytes, ...]) -> bool:
    """Whether ``word`` is in ``source`` or one of ``header_words`` in one of the project
    ``headers`` (one that cannot be read counts as mentioning it)."""
    if word in source:
        return True
    for name in headers:
        try:
            with open(name, "rb") as handle:
                text = handle.read()
        except OSError:
            return True
        if any(one in text for one in header_words):
            return True
    return False


#: what makes a project header worth a model of its own: code a pass maps there
OMP_WORDS = (b"#pragma omp", b"# pragma omp")
DEVICE_WORDS = (b"__global__", b"__device__", b"__constant__")


def _device_side_in_headers(parsed: ParsedFile, options: ParseOptions | None) -> bool:
    """Whether a CUDA file parsed on the host side only (``auto``: its own text never names
    ``__CUDA_ARCH__``) includes a project header that does: the header's kernels, read in
    the file's context, then need the device side too, as the file's own would."""
    if parsed.language != "cuda" or "device" in parsed.units or parsed.has_errors or \
            (options or ParseOptions()).cuda_side != "auto":
        return False
    for name in project_headers_of(parsed.primary, parsed.path):
        try:
            with open(name, "rb") as handle:
                if b"__CUDA_ARCH__" in handle.read():
                    return True
        except OSError:
            continue
    return False


def included_headers(parsed: ParsedFile, model: TranslationUnit,
                     options: ParseOptions | None) -> tuple[Loaded, ...]:
    """The models of the project headers of ``parsed`` that hold code a pass maps (OpenMP
    directives in C/C++, device code in CUDA), each extracted from the file's own parse: the
    header as the compiler sees it in this file, after the file's macros, types and includes
    before the ``#include`` line (many headers do not parse on their own). Spans point into
    the header; whichever includer loads a header first, its model is the one a program
    uses (:mod:`s2s.whole_program` compares the others with it).

    Which headers: those naming the words of such code (a cheap filter), in CUDA also those
    with a launch (a host driver included as text, ``#include "driver.cu"``); when the
    file launches a kernel defined neither in it nor in those (``__global__`` behind a macro
    of another header), every project header."""
    words = DEVICE_WORDS if parsed.language == "cuda" else OMP_WORDS
    texts = {}
    for name in model.project_headers:
        try:
            with open(name, "rb") as handle:
                texts[name] = handle.read()
        except OSError:
            continue
    if parsed.language != "cuda":   # directives written through _Pragma macros, too
        from s2s.frontend.openmp.macros import directive_macro_names

        words = words + directive_macro_names(parsed.primary, tuple(texts))
    launches = parsed.language == "cuda"        # a header with launches only: its launches
    chosen = [name for name, text in texts.items() if any(word in text for word in words)
              or (launches and OPEN.search(text))]
    found = [_included(parsed, name, texts[name], options) for name in chosen]
    if parsed.language == "cuda" and _kernels_missing(model, found):
        others = (_included(parsed, name, text, options) for name, text in texts.items()
                  if name not in chosen)
        found += [one for one in others if one.model.kernels or one.model.device_functions]
    return tuple(found)


def _included(parsed: ParsedFile, name: str, text: bytes, options: ParseOptions | None
              ) -> Loaded:
    header = _Header(name, text, os.path.normpath(name))
    unit, warnings = extract(parsed, header)
    return Loaded(header.path, text, unit, tuple(warnings), options)


def _kernels_missing(model: TranslationUnit, headers: list[Loaded]) -> bool:
    """Whether a launch of the file names a kernel whose body neither the file nor
    ``headers`` define."""
    units = (model, *(h.model for h in headers))
    return any(not any((k := unit.kernel(launch.kernel)) is not None and k.body_span is not None
                       for unit in units) for launch in model.launches)
