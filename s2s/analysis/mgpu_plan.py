"""What ``s2s mgpu`` does to one CUDA file: a plan the transform turns into edits.

The file's kernels run on the s2s runtime (paper 002, sections 5 and 8): launches become
partitioned launches that carry the kernel's access model, and the CUDA runtime calls become
calls of the runtime with the same signatures. The plan lists

* the kernel table: every non-template ``__global__`` function defined in the file with its
  serialized access model (``s2s/analysis/kernel_access.py``), made unpartitionable here when
  the kernel writes a ``__device__`` variable (``mgpu_globals.py``);
* the launch edits (``mgpu_sites.py``);
* the CUDA API names the file calls (all must be supported: the rewritten program never calls
  the CUDA runtime, whose memory the runtime's virtual addresses are not);
* where the prologue goes (after the last ``#include``), and
* refusals: anything that would leave a launch or an API call running outside the runtime.
  One refusal refuses the file (a half-rewritten program mixes two address spaces).

Warnings name each launched kernel that runs on one device and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from s2s.analysis.kernel_access import analyze_unit
from s2s.analysis.mgpu_globals import global_write
from s2s.analysis.mgpu_sites import LaunchTokens, launch_tokens, mask
from s2s.model import SourceSpan
from s2s.model.unit import TranslationUnit

#: CUDA runtime functions the rewritten program may call -> their replacement in s2s_mgpu.h.
SUPPORTED_API = {
    "cudaMalloc": "Malloc", "cudaFree": "Free", "cudaMemcpy": "Memcpy",
    "cudaMemcpyAsync": "MemcpyAsync", "cudaMemset": "Memset", "cudaMemsetAsync": "MemsetAsync",
    "cudaDeviceSynchronize": "DeviceSynchronize", "cudaThreadSynchronize": "DeviceSynchronize",
    "cudaDeviceReset": "DeviceReset", "cudaGetDeviceCount": "GetDeviceCount",
    "cudaSetDevice": "SetDevice", "cudaGetDevice": "GetDevice",
    "cudaGetLastError": "GetLastError", "cudaPeekAtLastError": "PeekAtLastError",
    "cudaGetErrorString": "GetErrorString", "cudaGetErrorName": "GetErrorName",
    "cudaMallocHost": "MallocHost", "cudaHostAlloc": "HostAlloc", "cudaFreeHost": "FreeHost",
    "cudaStreamCreate": "StreamCreate", "cudaStreamCreateWithFlags": "StreamCreateWithFlags",
    "cudaStreamDestroy": "StreamDestroy", "cudaStreamSynchronize": "StreamSynchronize",
    "cudaEventCreate": "EventCreate", "cudaEventCreateWithFlags": "EventCreateWithFlags",
    "cudaEventRecord": "EventRecord", "cudaEventSynchronize": "EventSynchronize",
    "cudaEventElapsedTime": "EventElapsedTime", "cudaEventDestroy": "EventDestroy",
}

#: Why some common calls are not supported (the rest: "not supported by the s2s runtime").
UNSUPPORTED_WHY = {
    "cudaMallocManaged": "managed memory is dereferenced by the host, the runtime's device "
                         "addresses are virtual",
    "cudaMemcpyToSymbol": "the runtime has no copies to __device__/__constant__ symbols",
    "cudaMemcpyFromSymbol": "the runtime has no copies from __device__/__constant__ symbols",
    "cudaLaunchKernel": "launches through cudaLaunchKernel are not rewritten",
}

_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include\b[^\n]*$", re.M)


@dataclass(frozen=True)
class TableKernel:
    name: str
    access: dict            # KernelAccessModel.to_dict(), partitionability possibly overridden


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

    @property
    def empty(self) -> bool:
        return not self.launches and not self.api_names


def plan_file(model: TranslationUnit, source: bytes) -> MgpuPlan:
    masked = mask(source)
    kernels, by_name = _kernel_table(model)
    refusals: list[Refusal] = []
    warnings: list[Refusal] = []
    launches: dict[int, LaunchTokens] = {}
    warned: set[str] = set()
    for launch in model.launches:
        problem = _launch_problem(model, launch, by_name)
        if problem is None:
            found, problem = launch_tokens(masked, launch.span, launch.kernel)
            launches.update((t.open, t) for t in found)
        if problem is not None:
            refusals.append(Refusal(f"launch of '{launch.kernel}' cannot be rewritten: {problem}",
                                    "mgpu-launch", launch.span))
            continue
        access = by_name[launch.kernel].access
        if not access["partitionable"] and launch.kernel not in warned:
            warned.add(launch.kernel)
            warnings.append(Refusal(f"kernel '{launch.kernel}' runs on one device (not "
                                    f"partitioned): {access['reason']}", "mgpu-one-device",
                                    launch.span))
    api_names = []
    for call in model.api_calls:
        if call.name in SUPPORTED_API:
            api_names.append(call.name)
        elif call.name.startswith("cuda"):
            why = UNSUPPORTED_WHY.get(call.name, "not supported by the s2s runtime")
            refusals.append(Refusal(f"'{call.name}' cannot be rewritten: {why}", "mgpu-api",
                                    call.span))
    prologue_at = _after_includes(masked)
    for span in [c.span for c in model.api_calls] + [la.span for la in model.launches]:
        if span.start < prologue_at:
            refusals.append(Refusal("CUDA code before the file's last #include: the "
                                    "redirection of the CUDA API placed after the includes "
                                    "would not reach it", "mgpu-order", span))
            break
    return MgpuPlan(tuple(kernels), tuple(sorted(launches.values(), key=lambda t: t.open)),
                    tuple(sorted(set(api_names))), prologue_at, tuple(warnings), tuple(refusals))


def _kernel_table(model: TranslationUnit) -> tuple[list[TableKernel], dict[str, TableKernel]]:
    bodies = model.kernel_bodies
    functions = {b.name: b for b in bodies if not b.is_global}
    templates = {k.name for k in model.kernels if k.is_template}
    table = []
    for access in analyze_unit(bodies):
        if access.kernel in templates:
            continue
        data = access.to_dict()
        body = model.kernel_body(access.kernel)
        why = global_write(body, functions) if body is not None else None
        if why and data["partitionable"]:
            data = {**data, "partitionable": False, "reason": why}
        table.append(TableKernel(access.kernel, data))
    return table, {k.name: k for k in table}


def _launch_problem(model: TranslationUnit, launch, table: dict[str, TableKernel]) -> str | None:
    kernel = model.kernel(launch.kernel)
    if (kernel is not None and kernel.is_template) or launch.template_args:
        return ("template kernels are not rewritten (the runtime needs the instantiation's "
                "name, e.g. 'k<float>', which the host code does not spell out)")
    if launch.kernel not in table:
        return ("the kernel is not defined in this file (the runtime compiles kernels from "
                "the file that launches them)")
    return None


def _after_includes(masked: bytes) -> int:
    """Offset just after the last ``#include`` line (0 when there is none)."""
    matches = list(_INCLUDE.finditer(masked))
    if not matches:
        return 0
    last = matches[-1]
    end = last.end()
    return end + 1 if masked[end:end + 1] == b"\n" else end
