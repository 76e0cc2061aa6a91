"""``s2s mgpu``: rewrite a single-GPU CUDA file to run partitioned on the s2s runtime's devices.

From the plan (``s2s/analysis/mgpu/plan.py``) the file gets

* after its last ``#include`` before the first CUDA call or launch: ``#include <s2s_mgpu.h>``
  and one ``#define cudaX s2s_mgpu::X``
  per CUDA runtime function the file calls (same signatures, paper section 8.4; a macro
  reaches the calls inside the program's own macros such as ``CUDA_CHECK(...)``, whose
  arguments libclang reports only as the macro call's extent);
* at each launch: ``k<<<g, b, s, st>>>(args)`` -> ``s2s_mgpu_launch(k, g, b, s, st)(args)``
  (one replacement of ``k<<<...>>>``; the arguments keep their text), also inside macro bodies;
* at the end: ``__FILE__`` kept as ``s2s_mgpu_source_file`` and ``#include`` of the file's
  kernel table, a file s2s generates beside it (``saxpy.cu`` -> ``saxpy.cu.s2s_mgpu.h``,
  :mod:`s2s.transform.mgpu_table`): the original source as a string, the user's flags that
  change the kernels, the kernels with their access models. It is an edit of a file of its
  own (one :class:`~s2s.edits.Edit` on a file that need not exist yet), so a reviewer reads
  the few lines of the rewrite apart from some hundred lines of generated table, and
  ``--in-place``, ``-o DIR``, ``--diff`` and ``--check`` treat it as they treat the source.

Kernels themselves are not cloned: the runtime runs the unmodified kernel on each box of
blocks, with ``blockIdx`` offset to the box and ``gridDim`` the whole grid (the cpu emulator
takes the box; the cuda backend compiles the kernel behind a prelude that redefines both), see
docs/mgpu.md. The rewritten file builds with nvcc and the flags of ``python -m
runtime.capi_build --flags`` (``s2s nvcc --s2s-passes=mgpu`` adds them).
"""

from __future__ import annotations

import os

from s2s.analysis.mgpu.plan import SUPPORTED_API, MgpuPlan, plan_file
from s2s.analysis.mgpu.sites import LaunchTokens
from s2s.diagnostics import Diagnostic, Location, UnsupportedConstruct
from s2s.driver import PassOutput
from s2s.edits import Edit, line_col
from s2s.frontend.core.parse import LEGACY_PARSE_ID
from s2s.frontend.extract import Loaded
from s2s.frontend.headers import device_headers
from s2s.transform import mgpu_table, registry
from s2s.transform.check import EditGroup

LAUNCH_FUNCTION = "s2s_mgpu_launch"
#: the function of a kernel table that returns it (in the rewritten file itself before the
#: table had a file of its own: such a file is rewritten already)
UNIT_FUNCTION = "s2s_mgpu_this_unit"
#: what the pass says about each of its edits (s2s/printers/explain.py attaches it)
EXPLAIN_ID = "mgpu-explain"
#: the runtime's cudaDeviceProp with the members CUDA 13 removed (runtime/include/s2s_mgpu.h)
LEGACY_DEVICE_PROP = "LegacyDeviceProp"


def run_mgpu(loaded: Loaded) -> PassOutput:
    model, source, path = loaded.model, loaded.source, loaded.path
    if model.language != "cuda":
        return PassOutput()
    loaded_headers = device_headers(loaded)
    plan = plan_file(model, source, tuple(h.model for h in loaded_headers),
                     _header_texts(model.project_headers))
    if plan.refusals:
        first, *rest = plan.refusals
        notes = tuple(Diagnostic.note(r.message, r.id, r.span) for r in rest)
        raise UnsupportedConstruct(f"not rewritten for the s2s runtime: {first.message}",
                                   first.span, first.id, notes)
    warnings = tuple(Diagnostic.warning(w.message, w.id, w.span) for w in plan.warnings)
    # (a file s2s already rewrote defines its unit's table: registering it again would
    # define the table twice; running mgpu on its own output changes nothing)
    rewritten = any(f.name == UNIT_FUNCTION for f in model.functions) \
        or mgpu_table.includes_its_table(path, model.project_headers)
    if plan.empty and (rewritten or not any(k.exported for k in plan.kernels)):
        return PassOutput((), warnings)
    # a file of kernels only (no launch, no CUDA call) is rewritten too: its table registers its
    # kernels, which launches in the program's other rewritten files find at run time
    edits = [Edit(path, plan.prologue_at, 0, prologue(plan, _legacy_toolkit(loaded)))]
    notes = [_note(path, source, plan.prologue_at, _prologue_reason(plan))]
    for launch in plan.launches:
        edits.append(launch_edit(path, source, launch))
        notes.append(_note(path, source, launch.kernel_start, _launch_reason(launch)))
    texts = _header_texts(sorted({where for where, _ in plan.included_launches}))
    for where, launch in plan.included_launches:      # in a .cu file included as text
        edits.append(launch_edit(where, texts[where], launch))
        notes.append(_note(where, texts[where], launch.kernel_start, _launch_reason(launch)))
    tail = "" if source.endswith(b"\n") or not source else "\n"
    flags = kernel_flags(loaded.options.user_flags if loaded.options else ())
    table = mgpu_table.table_path(path)
    edits.append(Edit(path, len(source), 0, tail + mgpu_table.include_lines(table)))
    notes.append(_note(path, source, len(source), _epilogue_reason(plan, table)))
    table_edit = mgpu_table.table_edit(table, mgpu_table.table_text(plan, path, source, flags),
                                       Location(path, 1, 1, 0))
    edits += [table_edit] if table_edit is not None else []
    # all or nothing: a half-rewritten program mixes the runtime's addresses with CUDA's
    group = EditGroup("the file for the s2s runtime", tuple(edits), invalid_id="mgpu-rewrite-invalid")
    return PassOutput(tuple(edits), warnings + tuple(notes), (group,), check_compiles=True)


def _header_texts(paths) -> dict[str, bytes]:
    """The bytes of each project header the file includes (unreadable ones and the tool's
    own parse stubs left out)."""
    texts, tool = {}, os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    for path in paths:
        if os.path.abspath(path).startswith(tool):
            continue
        try:
            with open(path, "rb") as handle:
                texts[path] = handle.read()
        except OSError:
            continue
    return texts


def launch_edit(path: str, source: bytes, launch: LaunchTokens) -> Edit:
    """``k<<<g, b, s, st>>>`` -> ``s2s_mgpu_launch(k, g, b, s, st)`` as one replacement (the
    kernel expression and the configuration keep their text; the arguments that follow are
    not touched). The blanks between the kernel, the brackets and the configuration
    (``k << < g, b >> >``, ``k <<<g, b>>>``) are the brackets' spelling, not the kernel's or
    the configuration's: they are left out of the call."""
    def text(a: int, b: int) -> str:
        return source[a:b].decode("utf-8", errors="surrogateescape")

    if launch.call_end >= 0:                  # the call of a macro that is only the launch
        before, after = launch.frame           # (or the text around it in the macro's body)
        return Edit(path, launch.kernel_start, launch.call_end - launch.kernel_start,
                    f"{before}{LAUNCH_FUNCTION}({launch.kernel_text}{launch.deduced}, "
                    f"{launch.config_text})({launch.args_text}){after}")
    end = launch.close + launch.close_len
    return Edit(path, launch.kernel_start, end - launch.kernel_start,
                f"{LAUNCH_FUNCTION}({text(launch.kernel_start, launch.open).rstrip()}"
                f"{launch.deduced}, {text(launch.open + launch.open_len, launch.close).strip()})")


def _note(path: str, source: bytes, offset: int, message: str) -> Diagnostic:
    line, column = line_col(source, offset)
    return Diagnostic.note(message, EXPLAIN_ID, Location(path, line, column, offset))


def _prologue_reason(plan: MgpuPlan) -> str:
    calls = ", ".join(plan.api_names)
    redirected = (f"; each CUDA runtime call of this file ({calls}) goes to the runtime's "
                  "function of the same signature" if calls else "")
    return ("the s2s runtime's header: the launches below run on its devices, which hold the "
            f"program's memory{redirected}")


def _launch_reason(launch: LaunchTokens) -> str:
    return (f"launch of '{launch.kernel_text}{launch.deduced}' through the s2s runtime: it "
            "splits the grid over its devices by the kernel's access model (a kernel without "
            "one runs whole on one device, as the warnings say)")


def _epilogue_reason(plan: MgpuPlan, table: str) -> str:
    return (f"this file's table for the runtime, generated into {os.path.basename(table)} "
            f"beside it: its original source (the runtime compiles the kernels from it for its "
            f"backend), {len(plan.kernels)} kernel(s) with their access models and "
            f"{len(plan.symbols)} symbol(s) named by cudaMemcpyTo/FromSymbol")


def prologue(plan: MgpuPlan, legacy: bool = False) -> str:
    """The runtime's header and the redirections of the file's CUDA calls; ``legacy``: the
    file was written for an older toolkit (``_legacy_toolkit``), its ``cudaDeviceProp`` is the
    runtime's with the members CUDA 13 removed."""
    lines = ["/* s2s mgpu: CUDA runtime calls and kernel launches of this file go to the s2s "
             "runtime (s2s_mgpu.h) */",
             "#include <s2s_mgpu.h>"]
    lines += [f"#define {name} s2s_mgpu::{SUPPORTED_API[name]}" for name in plan.api_names]
    lines += [f"#define cudaDeviceProp s2s_mgpu::{LEGACY_DEVICE_PROP}"] if legacy else []
    return "\n".join(lines) + "\n"


def _legacy_toolkit(loaded: Loaded) -> bool:
    """Whether the toolkit's headers rejected the file and s2s's (which keep what CUDA 13
    removed) accepted it (s2s.frontend.core.parse, warning ``cuda-toolkit-rejects``)."""
    return any(d.id == LEGACY_PARSE_ID for d in loaded.diagnostics)


def kernel_flags(flags) -> tuple[str, ...]:
    """The user's flags that change what the kernels mean, for the runtime's kernel compiler:
    ``-D``/``-U`` as given, ``-I`` made absolute (the program runs from anywhere), ``-std=``;
    an ``-isystem`` directory is searched as an ``-I`` one (the runtime takes no ``-isystem``)."""
    out, items, at = [], list(flags), 0
    while at < len(items):
        option, value = items[at][:2], items[at][2:]
        if items[at].startswith("-isystem"):
            option, value = "-I", items[at][len("-isystem"):]
        if option in ("-D", "-U", "-I") and not value and at + 1 < len(items):
            at += 1
            value = items[at]
        if option in ("-D", "-U") and value:
            out.append(option + value)
        elif option == "-I" and value:
            out.append(option + os.path.abspath(value))
        elif items[at].startswith("-std="):
            out.append(items[at])
        at += 1
    return tuple(out)


registry.register("mgpu", run_mgpu)
