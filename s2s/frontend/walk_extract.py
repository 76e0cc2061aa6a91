"""The walk-based extraction of one context: every extractor of the front end, run over the
context's main-file walk into a :class:`~s2s.model.unit.TranslationUnit`.

Apart from :mod:`s2s.frontend.extract` (the front door: parse, outline, project headers) so
that a run whose files hold nothing for its pass (a file outlined: no target region, no
device code) never imports the extractors: they were most of such a run's start-up (issue 30,
item 4: ``s2s omp`` on a file without a target region).
"""

from __future__ import annotations

from collections.abc import Callable

from s2s.diagnostics import Diagnostic
from s2s.frontend.access.refs import extract_accesses
from s2s.frontend.core.context import ExtractContext
from s2s.frontend.core.parse import ParsedFile
from s2s.frontend.cuda.constructs import extract_api_calls, extract_kernels, extract_launches
from s2s.frontend.cuda.kernel_body import extract_kernel_bodies
from s2s.frontend.cxx.classes import extract_class_facts
from s2s.frontend.host.allocators import extract_allocations, extract_helper_facts
from s2s.frontend.host.callees import function_refs, with_launch_targets
from s2s.frontend.host.facts import extract_host_args, extract_host_decls, extract_var_uses
from s2s.frontend.host.functions import extract_functions
from s2s.frontend.host.member_writes import extract_member_writes
from s2s.frontend.host.tree import host_tree
from s2s.frontend.openmp.directives import extract_directives
from s2s.frontend.openmp.macros import extract_macro_directives
from s2s.model.unit import ANALYSIS_FIELDS, CALL_ARGUMENTS, TranslationUnit


def model_of(parsed: ParsedFile, contexts: list[ExtractContext], shown: frozenset[str] | None,
             new_context: Callable[[object, str], ExtractContext]
             ) -> tuple[TranslationUnit, list[Diagnostic]]:
    """The model of ``contexts[0]`` (the file, or a project header read in its parse) and
    the extractors' warnings; ``new_context(unit, side)`` makes the device side's context,
    added to ``contexts`` (the caller releases them); ``shown``: as
    :func:`s2s.frontend.extract.extract` has it."""
    host = contexts[0]
    wanted = (lambda name: True) if shown is None else shown.__contains__
    kernels = device_functions = launches = api_calls = bodies = ()
    if parsed.language == "cuda":
        device = host
        if "device" in parsed.units and parsed.units["device"] is not parsed.primary:
            device = new_context(parsed.units["device"], "device")
            contexts.append(device)
        kernels, device_functions = extract_kernels(device)
        bodies = extract_kernel_bodies(device) if wanted("kernel_bodies") else ()
        launches = with_launch_targets(host, extract_launches(host))
        api_calls = extract_api_calls(host)
    directives = extract_directives(host)
    project_headers = host.project_headers()
    macro_directives = (extract_macro_directives(host, project_headers, frozenset(
        d.span for d in directives if d.span.macro is not None))
                        if parsed.language != "cuda" else ())
    array_refs, pointer_copies = extract_accesses(host, directives,
                                                  structs=parsed.language != "cuda") \
        if wanted("array_refs") or wanted("pointer_copies") else ((), ())
    # Everything in source order, whichever order the extractors found it in.
    kernels, device_functions, launches, api_calls = (
        _in_source_order(items) for items in (kernels, device_functions, launches, api_calls))
    allocations = _in_source_order(extract_allocations(host))
    functions = tuple(extract_functions(host, directives, shown is None or CALL_ARGUMENTS in shown))
    model = TranslationUnit(
        path=host.index.path,
        language=parsed.language,
        sides=tuple(parsed.units),
        kernels=tuple(kernels),
        device_functions=tuple(device_functions),
        launches=tuple(launches),
        api_calls=tuple(api_calls),
        allocations=allocations,
        directives=tuple(directives),
        functions=functions,
        array_refs=array_refs,
        pointer_copies=pointer_copies,
        kernel_bodies=bodies,
        project_headers=project_headers,
        macro_directives=macro_directives,
        **(analysis_facts(host, parsed.language, directives, allocations, functions)
           if shown is None or not shown.isdisjoint(ANALYSIS_FIELDS) else {}))
    return model, [d for ctx in contexts for d in ctx.diagnostics]


def analysis_facts(host: ExtractContext, language: str, directives, allocations,
                    functions) -> dict:
    """The model's fields only the passes read (no printer shows them): a run that prints
    the model (``s2s inspect``) leaves them out and spends neither the time nor the memory
    (issue 30: they are most of a big CUDA file's extraction)."""
    helpers, helper_calls = extract_helper_facts(host)
    return dict(
        var_uses=extract_var_uses(host, None if language == "cuda" else var_use_functions(
            functions, directives, allocations, helper_calls)),
        member_writes=extract_member_writes(host) if language != "cuda" else (),
        classes=extract_class_facts(host) if language == "c++" else (),
        # (a function reached through a pointer runs its kernels where no region may be)
        function_refs=function_refs(host_tree(host)) if language != "cuda" and any(
            d.is_target_region for d in directives) else (),
        host_args=extract_host_args(host) if language == "cuda" else (),
        host_decls=extract_host_decls(host) if language == "cuda" else (),
        allocating_helpers=helpers,
        helper_calls=helper_calls,
    )


def var_use_functions(functions, directives, allocations, helper_calls) -> frozenset[str]:
    """The functions of a C or C++ file whose variable mentions are extracted: those with
    a directive or an allocation (an allocating helper's call too), those that call one of
    them and those one of them calls (directly or not, in the file): the functions OpenMP's
    analyses ask about (the locals of an allocating function, the uses of an array of
    pointers, a callee's definition of a count; a callee in another file without either
    has none, which its readers take as "not known"), and those calling a function of
    another file (a data region may be placed there: omp.scope needs its declarations).
    Transfers and fuse, which read the mentions of every host
    function, run on CUDA files, which get all of them. A mention costs a span and a
    referenced cursor: the never-called helpers of a big program are most of its mentions."""
    defined = {f.name for f in functions}
    chosen = {d.function for d in directives} | {a.function for a in allocations} | \
        {c.function for c in helper_calls} | \
        {f.name for f in functions if any(_elsewhere(c, defined) for c in f.calls)}
    chosen.discard(None)
    # ``main`` roots every plan of the program, also where its offload work is all in other
    # files (its calls of them are to functions this file only declares)
    chosen |= defined & {"main"}
    calls = {f.name: {c.name for c in f.calls} & defined for f in functions}
    grown = True
    while grown:
        grown = False
        for name, callees in calls.items():
            if name not in chosen and callees & chosen:
                chosen.add(name)
                grown = True
            if name in chosen and not callees <= chosen:
                chosen |= callees
                grown = True
    return frozenset(chosen)


def _elsewhere(call, defined) -> bool:
    """Whether ``call`` runs a program function of another file (not defined in this one, not
    declared in a system header): one that may hold directives, so that the caller may get a
    data region whose clauses need its declarations (omp.scope)."""
    return not call.system and call.name not in defined


def _in_source_order(items) -> tuple:
    return tuple(sorted(items, key=lambda item: (item.span.start, item.span.end)))
