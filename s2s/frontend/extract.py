"""The front door of the front end: parse a file and extract its frozen model.

Kernels come from the device-side unit when one was parsed (code under ``__CUDA_ARCH__``
exists only there), everything host-side from the host unit.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.diagnostics import Diagnostic
from s2s.frontend.accesses import extract_accesses
from s2s.frontend.callees import function_refs
from s2s.frontend.classes import extract_class_facts
from s2s.frontend.context import ExtractContext
from s2s.frontend.cuda import extract_api_calls, extract_kernels, extract_launches
from s2s.frontend.host import extract_allocations, extract_functions
from s2s.frontend.host_alloc import extract_helper_facts
from s2s.frontend.host_facts import extract_host_args, extract_host_decls, extract_var_uses
from s2s.frontend.host_tree import _tree
from s2s.frontend.kernel_body import extract_kernel_bodies
from s2s.frontend.openmp import extract_directives
from s2s.frontend.parse import ParsedFile, ParseOptions, parse_file, parse_source
from s2s.model.unit import TranslationUnit


@dataclass(frozen=True)
class Loaded:
    """A file's model (None when libclang reported errors) and every diagnostic about it."""

    path: str
    source: bytes
    model: TranslationUnit | None
    diagnostics: tuple[Diagnostic, ...]
    #: how it was parsed (the user's -D/-I/-std, which a pass may hand on to a runtime)
    options: ParseOptions | None = None

    @property
    def ok(self) -> bool:
        return self.model is not None


def extract(parsed: ParsedFile) -> tuple[TranslationUnit, list[Diagnostic]]:
    """Build the model of an already parsed file; also return the extractors' warnings."""
    side = "host" if "host" in parsed.units else "device"
    contexts = [ExtractContext(parsed.path, parsed.source, parsed.primary, side)]
    try:
        return _extract(parsed, contexts)
    finally:
        for ctx in contexts:
            ctx.release()


def _extract(parsed: ParsedFile, contexts: list[ExtractContext]
             ) -> tuple[TranslationUnit, list[Diagnostic]]:
    host = contexts[0]
    kernels = device_functions = launches = api_calls = bodies = ()
    if parsed.language == "cuda":
        device = host
        if "device" in parsed.units and parsed.units["device"] is not parsed.primary:
            device = ExtractContext(parsed.path, parsed.source, parsed.units["device"], "device")
            contexts.append(device)
        kernels, device_functions = extract_kernels(device)
        bodies = extract_kernel_bodies(device)
        launches = extract_launches(host)
        api_calls = extract_api_calls(host)
    directives = extract_directives(host)
    array_refs, pointer_copies = extract_accesses(host, directives)
    # Everything in source order, whichever order the extractors found it in.
    kernels, device_functions, launches, api_calls = (
        _in_source_order(items) for items in (kernels, device_functions, launches, api_calls))
    helpers, helper_calls = extract_helper_facts(host)
    model = TranslationUnit(
        path=parsed.path,
        language=parsed.language,
        sides=tuple(parsed.units),
        kernels=tuple(kernels),
        device_functions=tuple(device_functions),
        launches=tuple(launches),
        api_calls=tuple(api_calls),
        allocations=_in_source_order(extract_allocations(host)),
        directives=tuple(directives),
        functions=tuple(extract_functions(host, directives)),
        array_refs=array_refs,
        pointer_copies=pointer_copies,
        kernel_bodies=bodies,
        project_headers=host.project_headers(),
        # the host facts of transfers and fuse, which run on CUDA files only
        var_uses=extract_var_uses(host) if parsed.language == "cuda" else (),
        classes=extract_class_facts(host) if parsed.language == "c++" else (),
        # (a function reached through a pointer runs its kernels where no region may be)
        function_refs=function_refs(_tree(host)) if parsed.language != "cuda" and any(
            d.is_target_region for d in directives) else (),
        host_args=extract_host_args(host) if parsed.language == "cuda" else (),
        host_decls=extract_host_decls(host) if parsed.language == "cuda" else (),
        allocating_helpers=helpers,
        helper_calls=helper_calls,
    )
    return model, [d for ctx in contexts for d in ctx.diagnostics]


def _in_source_order(items) -> tuple:
    return tuple(sorted(items, key=lambda item: (item.span.start, item.span.end)))


def load(path: str, options: ParseOptions | None = None, source: bytes | None = None) -> Loaded:
    """Parse and extract ``path`` (or ``source`` under that name).

    A file with libclang errors gets no model: every later stage would work from a wrong
    picture of the program. Input errors (missing, binary) raise InputError.
    """
    parsed = parse_file(path, options) if source is None else parse_source(source, path, options)
    diagnostics = list(parsed.diagnostics)
    if parsed.has_errors:
        return Loaded(path, parsed.source, None, tuple(diagnostics), options)
    model, warnings = extract(parsed)
    return Loaded(path, parsed.source, model, tuple(diagnostics + warnings), options)
