"""What ``s2s mgpu`` does to one CUDA file: a plan the transform turns into edits.

The file's kernels run on the s2s runtime (paper 002, sections 5 and 8): launches become
partitioned launches that carry the kernel's access model, and the CUDA runtime calls become
calls of the runtime with the same signatures. The plan lists

* the kernel table: every non-template ``__global__`` function defined in the file or in a
  project header it includes, with its serialized access model
  (``s2s/analysis/kernel/access.py``), made unpartitionable here when the kernel writes a
  ``__device__`` variable (``globals.py``), plus one entry per template instantiation a
  launch names (``templates.py``);
* the launch edits (``sites.py``);
* the CUDA API names the file calls (all must be supported: the rewritten program never calls
  the CUDA runtime, whose memory the runtime's virtual addresses are not);
* the variables ``cudaMemcpyTo/FromSymbol`` name;
* where the prologue goes (after the last ``#include`` before the first CUDA call or launch),
  and
* refusals: anything that would leave a launch or an API call running outside the runtime.
  One refusal refuses the file (a half-rewritten program mixes two address spaces).

Warnings name each launched kernel that runs on one device and why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from s2s.analysis.kernel.access import KernelAccessModel, analyze_unit
from s2s.analysis.mgpu.globals import global_write
from s2s.analysis.mgpu.header_calls import (
    before_project_includes,
    header_api_names,
    top_level_includes,
)
from s2s.analysis.mgpu.included import included_sources
from s2s.analysis.mgpu.sites import (
    LaunchTokens,
    forwarded_tokens,
    framed_tokens,
    launch_tokens,
    mask,
)
from s2s.analysis.mgpu.templates import instantiation_access
from s2s.model import SourceSpan
from s2s.model.cuda_legacy import LEGACY_CALLS
from s2s.model.kernel_ir import Var
from s2s.model.unit import TranslationUnit

#: CUDA runtime functions the rewritten program may call -> their replacement in s2s_mgpu.h.
SUPPORTED_API = {
    "cudaMalloc": "Malloc", "cudaFree": "Free", "cudaMemcpy": "Memcpy",
    "cudaMemcpyAsync": "MemcpyAsync", "cudaMemset": "Memset", "cudaMemsetAsync": "MemsetAsync",
    "cudaDeviceSynchronize": "DeviceSynchronize",
    "cudaDeviceReset": "DeviceReset", "cudaGetDeviceCount": "GetDeviceCount",
    "cudaSetDevice": "SetDevice", "cudaGetDevice": "GetDevice",
    "cudaGetLastError": "GetLastError", "cudaPeekAtLastError": "PeekAtLastError",
    "cudaGetErrorString": "GetErrorString", "cudaGetErrorName": "GetErrorName",
    "cudaMallocHost": "MallocHost", "cudaHostAlloc": "HostAlloc", "cudaFreeHost": "FreeHost",
    "cudaHostRegister": "HostRegister", "cudaHostUnregister": "HostUnregister",
    "cudaSetDeviceFlags": "SetDeviceFlags", "cudaGetDeviceFlags": "GetDeviceFlags",
    "cudaStreamCreate": "StreamCreate", "cudaStreamCreateWithFlags": "StreamCreateWithFlags",
    "cudaStreamDestroy": "StreamDestroy", "cudaStreamSynchronize": "StreamSynchronize",
    "cudaEventCreate": "EventCreate", "cudaEventCreateWithFlags": "EventCreateWithFlags",
    "cudaEventRecord": "EventRecord", "cudaEventSynchronize": "EventSynchronize",
    "cudaEventQuery": "EventQuery",
    "cudaEventElapsedTime": "EventElapsedTime", "cudaEventDestroy": "EventDestroy",
    "cudaGetDeviceProperties": "GetDeviceProperties",
    "cudaDeviceGetAttribute": "DeviceGetAttribute",
    "cudaProfilerStart": "ProfilerStart", "cudaProfilerStop": "ProfilerStop",
    "cudaFuncSetCacheConfig": "FuncSetCacheConfig",
    "cudaDeviceSetCacheConfig": "DeviceSetCacheConfig",
    "cudaDeviceGetCacheConfig": "DeviceGetCacheConfig",
    "cudaMemcpyToSymbol": "MemcpyToSymbol", "cudaMemcpyFromSymbol": "MemcpyFromSymbol",
    "cudaMemcpyToSymbolAsync": "MemcpyToSymbolAsync",
    "cudaMemcpyFromSymbolAsync": "MemcpyFromSymbolAsync",
}
#: the removed calls whose replacement the runtime offers are redirected as their replacement
SUPPORTED_API.update({old: SUPPORTED_API[new] for old, new in LEGACY_CALLS.items()
                      if new in SUPPORTED_API})
#: calls naming a __constant__/__device__ variable, and which argument does
SYMBOL_ARG = {"cudaMemcpyToSymbol": 0, "cudaMemcpyToSymbolAsync": 0, "cudaMemcpyFromSymbol": 1,
              "cudaMemcpyFromSymbolAsync": 1}

#: Why some common calls are not supported (the rest: "not supported by the s2s runtime").
UNSUPPORTED_WHY = {
    "cudaMallocManaged": "managed memory is dereferenced by the host, the runtime's device "
                         "addresses are virtual",
    "cudaLaunchKernel": "launches through cudaLaunchKernel are not rewritten",
    "cudaHostGetDevicePointer": "kernels would read host memory through a mapped address; the "
                                "runtime's devices cannot map host memory (canMapHostMemory 0)",
}

#: why an instantiation has no access model
TEMPLATE_ONE_DEVICE = ("template kernel: its template arguments are not integer literals or "
                       "arithmetic types, so its instantiation has no access model")


@dataclass(frozen=True)
class TableKernel:
    name: str               # what the runtime knows it by ('k', or 'k<float, 256>')
    access: dict | None     # KernelAccessModel.to_dict(), partitionability possibly overridden;
    #                         None: no model, every launch runs whole on one device
    stub: str = ""          # the host expression naming it (default: the name)
    exported: bool = True   # the runtime exports it by itself (defined in the file, no template)
    #: partitionable only where a launch's sizes make its writes injective: the sample-launch
    #: conflict the runtime checks at each launch (else the launch runs whole on one device)
    checked_at_launch: str = ""

    @property
    def stub_text(self) -> str:
        return self.stub or self.name


@dataclass(frozen=True)
class Refusal:
    message: str
    id: str
    span: SourceSpan | None


@dataclass(frozen=True)
class MgpuPlan:
    kernels: tuple[TableKernel, ...]
    launches: tuple[LaunchTokens, ...]
    api_names: tuple[str, ...]
    prologue_at: int
    warnings: tuple[Refusal, ...]
    refusals: tuple[Refusal, ...]
    symbols: tuple[str, ...] = ()           # variables named by cudaMemcpyTo/FromSymbol
    #: launches in the ``.cu`` files the file includes as text (``#include "opt1.cu"``): the
    #: included file's path and the launch's edit points in it
    included_launches: tuple[tuple[str, LaunchTokens], ...] = ()

    @property
    def instantiations(self) -> tuple[str, ...]:
        """Template kernels the runtime must instantiate (their names in the table)."""
        return tuple(k.name for k in self.kernels if not k.exported)

    @property
    def empty(self) -> bool:
        return not self.launches and not self.api_names


def plan_file(model: TranslationUnit, source: bytes,
              headers: tuple[TranslationUnit, ...] = (),
              header_texts: dict[str, bytes] | None = None) -> MgpuPlan:
    """The plan for one file; ``headers``: the models of the project headers it includes that
    define device code (their kernels are compiled with the file, so they join its table);
    ``header_texts``: the text of every project header it includes (host wrappers there, such
    as ``copy_to_device``, call the CUDA runtime, which the prologue must redirect too)."""
    masked = mask(source)
    kernels, by_name = _kernel_table(model, headers)
    sources = {h.path for h, _ in included_sources(model.path, headers, header_texts or {})}
    redirected = {os.path.abspath(p) for p in header_texts or {}}
    refusals: list[Refusal] = list(_header_refusals(
        (h for h in headers if h.path not in sources), redirected))
    warnings: list[Refusal] = []
    launches: dict[int, LaunchTokens] = {}
    warned: set[str] = set()
    for launch in model.launches:
        found = _plan_launch(model, headers, launch, masked, kernels, by_name, refusals)
        launches.update((t.open, t) for t in found)
        for name in (_table_names(launch) if found else ()):
            warnings += _launch_warnings(name, by_name, warned, launch)
    in_sources: list[tuple[str, LaunchTokens]] = []
    for header, text in included_sources(model.path, headers, header_texts or {}):
        others = tuple(h for h in (model, *headers) if h is not header)
        for launch in header.launches:
            found = _plan_launch(header, others, launch, mask(text), kernels, by_name, refusals)
            in_sources += [(header.path, t) for t in found]
            for name in (_table_names(launch) if found else ()):
                warnings += _launch_warnings(name, by_name, warned, launch)
    api_names, symbols = [], []
    for call in model.api_calls:
        if call.name in SYMBOL_ARG:
            symbol = _symbol(call, model.host_args)
            if symbol is None:
                refusals.append(Refusal(f"'{call.name}' cannot be rewritten: its symbol is not "
                                        "a variable's plain name", "mgpu-api", call.span))
                continue
            symbols.append(symbol)
        if call.name in SUPPORTED_API:
            api_names.append(call.name)
        elif call.name.startswith("cuda"):
            why = UNSUPPORTED_WHY.get(call.name, "not supported by the s2s runtime")
            refusals.append(Refusal(f"'{call.name}' cannot be rewritten: {why}", "mgpu-api",
                                    call.span))
    uses = [c.span.start for c in model.api_calls] + [la.span.start for la in model.launches]
    prologue_at = _after_includes(masked, min(uses, default=len(masked)))
    in_headers = header_api_names(header_texts or {})
    for name, header in in_headers.items():
        if name in SUPPORTED_API:
            api_names.append(name)
        else:
            why = UNSUPPORTED_WHY.get(name, "not supported by the s2s runtime")
            refusals.append(Refusal(f"'{name}', called in the project header {header}, cannot "
                                    f"be rewritten: {why}", "mgpu-api",
                                    SourceSpan(model.path, 0, 0, 1, 1)))
    if in_sources or any(name in SUPPORTED_API for name in in_headers):
        prologue_at = min(prologue_at, before_project_includes(masked, prologue_at,
                                                               tuple(header_texts or {})))
    return MgpuPlan(tuple(kernels), tuple(sorted(launches.values(), key=lambda t: t.open)),
                    tuple(sorted(set(api_names))), prologue_at, tuple(warnings), tuple(refusals),
                    tuple(dict.fromkeys(symbols)), tuple(in_sources))


def _plan_launch(unit: TranslationUnit, others: tuple[TranslationUnit, ...], launch,
                 masked: bytes, kernels: list[TableKernel], by_name: dict[str, TableKernel],
                 refusals: list[Refusal]) -> list[LaunchTokens]:
    """The edit points of one launch written in ``unit`` (the file, or a ``.cu`` file it
    includes) whose masked text is ``masked``, the table entries of the instantiations it
    names added; [] with a refusal when it cannot be rewritten."""
    problem = _launch_problem(unit, others, launch, by_name)
    for name, arguments in _table_names(launch).items():
        if problem is None and arguments and name not in by_name:   # instantiation
            data, checked = _instance_access(unit, others, launch, arguments)
            entry = TableKernel(name, data, name, False, checked_at_launch=checked)
            kernels.append(entry)
            by_name[name] = entry
    found: list[LaunchTokens] = []
    if problem is None:
        found, problem = ([forwarded_tokens(launch)], None) if launch.forwarded else \
            launch_tokens(masked, launch.span, launch.kernel, bool(launch.template_args))
        if problem is not None and launch.macro_frame is not None:
            found, problem = [framed_tokens(launch)], None    # a header's macro
        elif problem is not None and launch.macro_why:
            problem = (f"the macro '{launch.span.macro}' is more than the launch and its "
                       f"call cannot be replaced by its text: {launch.macro_why}")
        if launch.deduced_args and not launch.template_args and problem is None:
            if launch.span.macro is not None and not launch.forwarded:
                problem = ("a template kernel launched in a macro with deduced template "
                           "arguments (each use of the macro may deduce others); write "
                           "them out, 'k<float><<<...>>>'")
            found = [replace(t, deduced=f"<{launch.deduced_args}>") for t in found]
    if problem is not None:
        refusals.append(Refusal(f"launch of '{launch.kernel}' cannot be rewritten: {problem}",
                                "mgpu-launch", launch.span))
        return []
    return found


def _launch_warnings(name: str, by_name: dict, warned: set[str], launch) -> list[Refusal]:
    """What a launch of ``name`` is warned about, once per kernel: its kernel is defined in
    another file, or it runs on one device."""
    if name in warned:
        return []
    if name not in by_name:                 # declared here, defined in another .cu file
        warned.add(name)
        return [Refusal(f"kernel '{name}' is defined in another file: the launch finds it in "
                        "that file's table at run time, so that file must be rewritten by s2s "
                        "mgpu too (else the program stops at this launch)", "mgpu-other-file",
                        launch.span)]
    if by_name[name].checked_at_launch:
        warned.add(name)
        return [Refusal(f"kernel '{name}' runs on one device at a launch whose sizes make two "
                        f"blocks write one element ({by_name[name].checked_at_launch}); the "
                        "runtime checks each launch's "
                        "grid, block and integer arguments and splits the launches whose "
                        "writes are injective", "mgpu-run-time-check", launch.span)]
    access = by_name[name].access
    why = TEMPLATE_ONE_DEVICE if access is None else access["reason"] \
        if not access["partitionable"] else run_time_fallback(access)
    if why is None:
        return []
    warned.add(name)
    return [Refusal(f"kernel '{name}' runs on one device (not partitioned): {why}",
                    "mgpu-one-device", launch.span)]


def run_time_fallback(access: dict) -> str | None:
    """Why the runtime will run every launch of a partitionable kernel on one device, where
    the model already says so (runtime/launch.py's partition_plan checks the same at each
    launch): an array whose element size the model does not know (``void *``, a type of
    unknown size) cannot be split into byte ranges. None: nothing known now stops a split."""
    if access.get("held_pointers"):
        return ("its by-value argument(s) hold device pointers (a struct's pointer members): "
                "the runtime translates them and runs each launch whole, the buffers they name "
                "on one device")
    unsized = [name for name, array in access["arrays"].items() if not array["elem_size"]]
    if not unsized:
        return None
    return (f"element size of {unsized[0]!r} unknown to the model (a pointer to void or to a "
            "type of unknown size): the runtime runs each launch whole")


def _instance_access(model: TranslationUnit, headers: tuple[TranslationUnit, ...],
                     launch, arguments: str) -> tuple[dict | None, str]:
    """The access model of the instantiation a launch names (None: it runs on one device) and
    why the runtime checks each launch of it, as for any kernel (:func:`_table_access`)."""
    units = (model, *headers)
    kernel = next((k for unit in units if (k := unit.kernel(launch.kernel))), None)
    body = next((b for unit in units if (b := unit.kernel_body(launch.kernel))), None)
    if kernel is None or body is None:
        return None, ""
    functions = {b.name: b for unit in units for b in unit.kernel_bodies if not b.is_global}
    access = instantiation_access(kernel, body, arguments, functions)
    if access is None:
        return None, ""
    return _table_access(access, global_write(body, functions))


def _table_access(access: KernelAccessModel, why: str | None) -> tuple[dict, str]:
    """A kernel's serialized access model as the table gives it, and why the runtime checks
    each launch ("" when it need not): unpartitionable when it writes a ``__device__``
    variable (``why``); partitionable, checked at each launch, when only the launch's sizes
    decide whether threads of different blocks write one element (matrixMul's
    ``C[wB * BLOCK * by + BLOCK * bx + wB * ty + tx]``: injective when ``wB`` covers the
    grid's columns)."""
    data = access.to_dict()
    if why and data["partitionable"]:
        data = {**data, "partitionable": False, "reason": why}
    if access.sizes_decide and not why:
        return {**data, "partitionable": True, "reason": None}, access.sizes_decide[0]
    return data, ""


def instance_args(launch) -> str | None:
    """The template arguments of the instantiation a launch runs: written out, or deduced."""
    return launch.template_args or launch.deduced_args


def _table_names(launch) -> dict[str, str | None]:
    """The runtime's names of what a launch runs, with their template arguments: the kernel,
    its instantiation, (inside a function template) one per instantiation of the caller, or
    each kernel a function pointer can hold."""
    if launch.targets:
        return {t: None for t in launch.targets}
    if launch.instances:
        return {f"{launch.kernel}<{a}>": a for a in launch.instances}
    if not instance_args(launch):
        return {launch.kernel: None}
    return {f"{launch.kernel}<{instance_args(launch)}>": instance_args(launch)}


def _symbol(call, host_args) -> str | None:
    """The variable a cudaMemcpyTo/FromSymbol call names, else None: the argument as the
    host facts lowered it from the AST (a plain ``Var``; ``&table[0]``, a cast or a macro
    that expands to something else is no symbol the runtime can look up by name)."""
    at = SYMBOL_ARG[call.name]
    for arg in host_args:
        if arg.call == call.name and arg.position == at and \
                call.span.start <= arg.span.start < call.span.end:
            return arg.value.name if isinstance(arg.value, Var) else None
    return None


def _why_header(path: str) -> str:
    """Why a launch in the included file ``path`` stays: a ``.cu`` file outside the
    includer's folder may be another program's too (``analysis/mgpu/included.py``)."""
    if path.endswith(".cu"):
        return ("a .cu file included from outside the includer's folder may be another "
                "program's too: the rewrite edits the file given and the .cu files it includes "
                "from its folder or the folders below it; copy the file there to rewrite it")
    return ("the rewrite edits the file given and the .cu files it includes from its folder or "
            "the folders below it, not other headers")


def _header_refusals(headers, redirected: set[str]):
    """Host CUDA code in a project header is not rewritten (only the file's own text is): a
    launch there, or a call that allocates, copies or synchronises, would reach CUDA with the
    runtime's addresses; unless the header is one whose calls the prologue redirects
    (``redirected``: the headers whose texts the plan has, :func:`header_api_names`)."""
    for header in headers:
        for launch in header.launches:
            yield Refusal(f"launch of '{launch.kernel}' in a project header cannot be rewritten "
                          f"({_why_header(header.path)})", "mgpu-launch", launch.span)
        for call in header.api_calls:
            if call.category != "error" and os.path.abspath(header.path) not in redirected:
                yield Refusal(f"'{call.name}' in a project header is not redirected to the s2s "
                              "runtime (the rewrite edits the file given, not its headers)",
                              "mgpu-api", call.span)


def _kernel_table(model: TranslationUnit, headers: tuple[TranslationUnit, ...] = ()
                  ) -> tuple[list[TableKernel], dict[str, TableKernel]]:
    units = (model, *headers)
    bodies = tuple(b for unit in units for b in unit.kernel_bodies)
    by_body = {b.name: b for b in bodies}
    functions = {b.name: b for b in bodies if not b.is_global}
    templates = {k.name for unit in units for k in unit.kernels if k.is_template}
    own = {b.name for b in model.kernel_bodies}
    table = []
    for access in analyze_unit(bodies):
        if access.kernel in templates:            # instantiations: by launch
            continue
        body = by_body.get(access.kernel)
        data, checked = _table_access(access, global_write(body, functions)
                                      if body is not None else None)
        data = _with_held_pointers(data, next((k for unit in units
                                               if (k := unit.kernel(access.kernel))), None))
        table.append(TableKernel(access.kernel, data, exported=access.kernel in own,
                                 checked_at_launch=checked))
    return table, {k.name: k for k in table}


def _with_held_pointers(data: dict, kernel) -> dict:
    """The table's access model with ``held_pointers`` where the kernel's by-value parameters
    hold pointers (``Param.held_pointers``): the runtime translates the device pointers among
    them at each launch and runs such a launch whole (runtime/launch.py)."""
    held = kernel.held_pointer_table if kernel is not None else {}
    return {**data, "held_pointers": held} if held else data


def _launch_problem(model: TranslationUnit, headers: tuple[TranslationUnit, ...], launch,
                    table: dict[str, TableKernel]) -> str | None:
    kernel = next((k for unit in (model, *headers) if (k := unit.kernel(launch.kernel))), None)
    if kernel is not None and kernel.is_template:
        if not instance_args(launch):
            return ("a template kernel launched with template arguments libclang does not "
                    "resolve here (dependent, or a template or pack argument): the runtime "
                    "needs the instantiation's name; write them out, 'k<float><<<...>>>'")
        caller = next((f for f in model.functions if f.name == launch.function), None)
        if (caller is None or caller.is_template) and not launch.instances:
            return ("a template kernel launched inside a template whose instantiations the "
                    "file does not show (no call of it with arguments libclang resolves), or "
                    "whose kernel arguments are not deduced from the launch's argument types")
        return None
    if launch.template_args:
        return "template arguments given to a kernel that is not a template"
    if launch.targets:
        return _pointer_problem(launch, table, templates_of(model, headers))
    if launch.kernel not in table and kernel is not None and kernel.body_span is None:
        return None                             # declared only: defined in another .cu file
    if launch.kernel not in table and launch.through_pointer:
        return (f"'{launch.kernel}' is a function pointer whose values the file does not all "
                "show (a local pointer given only kernels by '=' or its initializer, and "
                "otherwise only called or compared, is followed): the runtime must find the "
                "kernel by its address in this file's table")
    if launch.kernel not in table:
        searched = ", ".join(model.project_headers) or "none"
        return ("the kernel is not defined in this file or a project header it includes "
                f"(project headers, read in this file's context: {searched}; the runtime "
                "compiles kernels from the file that launches them)")
    return None


def templates_of(model: TranslationUnit, headers: tuple[TranslationUnit, ...]) -> set[str]:
    """The template kernels of the file and its headers, by name."""
    return {k.name for unit in (model, *headers) for k in unit.kernels if k.is_template}


def _pointer_problem(launch, table: dict[str, TableKernel], templates: set[str]) -> str | None:
    """Why a launch through a local function pointer cannot run on the runtime, None when it
    can: the launcher finds the kernel by the pointer's value in the file's table (the host
    stub's address), so each function the pointer can hold must be a kernel of that table
    (cuda-samples transpose's ``kernel = &transposeNaive; ... kernel<<<grid, threads>>>``)."""
    missing = [t for t in launch.targets if t not in table or t in templates]
    if not missing:
        return None
    return (f"the function pointer '{launch.kernel}' can hold '{missing[0]}', which is not a "
            "kernel of this file's table (defined in this file or a project header it "
            "includes, no template): the runtime finds the kernel a launch runs by its address "
            "in that table")


def _after_includes(masked: bytes, before: int) -> int:
    """Offset just after the last ``#include`` line that ends before ``before`` (the first CUDA
    call or launch) outside every ``#if`` block, 0 when there is none: the redirection must
    precede every call, and an ``#include`` of a local file after the CUDA code stays where it
    is. An include inside ``#ifdef TIMING ... #endif`` (Rodinia's needle.cu) is no place for
    it: the block may be inactive, and the runtime's header with it."""
    last = None
    for match in top_level_includes(masked, before):
        last = match
    if last is None:
        return 0
    last_end = masked.find(b"\n", last.end())
    last_end = len(masked) if last_end < 0 else last_end
    return last_end + 1 if masked[last_end:last_end + 1] == b"\n" else last_end
