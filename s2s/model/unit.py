"""Everything the front end found in one translation unit."""

from __future__ import annotations

from dataclasses import dataclass, field

from s2s.model.access import ArrayRef, PointerCopy
from s2s.model.cuda import ApiCall, Kernel, Launch
from s2s.model.host import HostAllocation, HostFunction
from s2s.model.kernel_ir import KernelBody
from s2s.model.openmp import OmpDirective


@dataclass(frozen=True)
class TranslationUnit:
    """The frozen model of one source file.

    ``language`` is ``cuda``, ``c`` or ``c++``; ``sides`` lists the CUDA compilation sides
    that were parsed (``host``, ``device``). ``kernels`` holds ``__global__`` functions and
    ``device_functions`` the ``__device__`` ones (same class, ``is_global`` False).
    """

    path: str
    language: str
    sides: tuple[str, ...]
    kernels: tuple[Kernel, ...] = ()
    device_functions: tuple[Kernel, ...] = ()
    launches: tuple[Launch, ...] = ()
    api_calls: tuple[ApiCall, ...] = ()
    allocations: tuple[HostAllocation, ...] = ()
    directives: tuple[OmpDirective, ...] = ()
    functions: tuple[HostFunction, ...] = ()
    array_refs: tuple[ArrayRef, ...] = ()
    pointer_copies: tuple[PointerCopy, ...] = ()
    #: Lowered bodies of kernels and device functions (kernel IR), for access analysis;
    #: left out of the JSON form (it restates the source).
    kernel_bodies: tuple[KernelBody, ...] = field(default=(), metadata={"json": False})

    @property
    def target_regions(self) -> tuple[OmpDirective, ...]:
        return tuple(d for d in self.directives if d.is_target_region)

    def kernel(self, name: str) -> Kernel | None:
        for kernel in self.kernels:
            if kernel.name == name:
                return kernel
        return None

    def kernel_body(self, name: str) -> KernelBody | None:
        for body in self.kernel_bodies:
            if body.name == name:
                return body
        return None

    def function(self, name: str) -> HostFunction | None:
        for function in self.functions:
            if function.name == name:
                return function
        return None
