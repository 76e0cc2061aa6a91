"""Everything the front end found in one translation unit."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # (annotations only: a file outlined for a run's pass builds its model
    # without the dataclasses of every kind of fact, a tenth of such a run: issue 30)
    from s2s.model.access import ArrayRef, PointerCopy
    from s2s.model.cuda import ApiCall, Kernel, Launch
    from s2s.model.host import (
        AllocatingHelper,
        ClassFact,
        FunctionRef,
        HelperCall,
        HostAllocation,
        HostFunction,
    )
    from s2s.model.host_facts import HostArg, HostDecl, MemberWrite, VarUse
    from s2s.model.kernel_ir import KernelBody
    from s2s.model.openmp import MacroDirective, OmpDirective


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
    #: Project headers (not system headers) the file includes, directly or not, as libclang
    #: names them; their own entities are not in this model (a program adds them).
    project_headers: tuple[str, ...] = field(default=(), metadata={"json": False})
    #: Every mention of a variable in host functions with its role (``s2s.model.host_facts``);
    #: left out of the JSON form.
    var_uses: tuple[VarUse, ...] = field(default=(), metadata={"json": False})
    #: Writes of struct and class members in host functions of C and C++ files
    #: (``s2s.model.host_facts.MemberWrite``); left out of the JSON form.
    member_writes: tuple[MemberWrite, ...] = field(default=(), metadata={"json": False})
    #: C++ classes defined, copied, derived from ... in the file (C++ files that include
    #: ``<vector>`` only): what the OpenMP pass needs to map a class's vectors per object
    classes: tuple[ClassFact, ...] = field(default=(), metadata={"json": False})
    #: functions whose address is taken (frontend.host.callees), for OpenMP files
    function_refs: tuple[FunctionRef, ...] = field(default=(), metadata={"json": False})
    #: Arguments of CUDA, allocator and launch calls in host functions, lowered to the kernel
    #: IR (``s2s.model.host_facts.HostArg``); left out of the JSON form.
    host_args: tuple[HostArg, ...] = field(default=(), metadata={"json": False})
    #: Host locals declared with a value, lowered to the kernel IR (``HostDecl``); not in JSON.
    host_decls: tuple[HostDecl, ...] = field(default=(), metadata={"json": False})
    #: uses of macros that expand to OpenMP directives (``MacroDirective``), for OpenMP files
    macro_directives: tuple[MacroDirective, ...] = field(default=(), metadata={"json": False})
    #: Functions of the file that return a fresh array (their summary), and the file's calls
    #: to functions it does not define whose value is stored: a program joins the two into
    #: allocations (``s2s.model.program``); not in JSON.
    allocating_helpers: tuple[AllocatingHelper, ...] = field(default=(),
                                                             metadata={"json": False})
    helper_calls: tuple[HelperCall, ...] = field(default=(), metadata={"json": False})

    @property
    def target_regions(self) -> tuple[OmpDirective, ...]:
        return tuple(d for d in self.directives if d.is_target_region)

    def kernel(self, name: str) -> Kernel | None:
        return self._first_by_name["kernels"].get(name)

    def kernel_body(self, name: str) -> KernelBody | None:
        return self._first_by_name["kernel_bodies"].get(name)

    def function(self, name: str) -> HostFunction | None:
        return self._first_by_name["functions"].get(name)

    def in_function(self, items: str, function: str) -> tuple:
        """The entries of ``self.<items>`` (``launches``, ``api_calls``, ``allocations``,
        ``directives``, ``array_refs``, ``pointer_copies``) whose ``function`` is ``function``,
        in model order. Grouped once per unit: filtering the whole list for every function
        or launch made analyses quadratic on big files."""
        groups = self._by_function.get(items)
        if groups is None:
            grouped: dict[str, list] = {}
            for item in getattr(self, items):
                grouped.setdefault(item.function, []).append(item)
            groups = self._by_function[items] = {k: tuple(v) for k, v in grouped.items()}
        return groups.get(function, ())

    def cached(self, key, build):
        """``build()``, computed once per unit and ``key``: indexes that analyses derive from
        the unit (and the source it was built from) live and die with it."""
        memo = self._memo
        if key not in memo:
            memo[key] = build()
        return memo[key]

    # Lookup tables, built on first use. cached_property writes the instance's __dict__
    # directly, so it works on this frozen class; dataclass equality, hashing and the JSON
    # form only look at the fields.

    @cached_property
    def _first_by_name(self) -> dict[str, dict]:
        """``kernels``/``kernel_bodies``/``functions`` by name (the first of each name wins,
        as the linear searches these replace did)."""
        tables: dict[str, dict] = {}
        for items in ("kernels", "kernel_bodies", "functions"):
            table: dict = {}
            for item in getattr(self, items):
                table.setdefault(item.name, item)
            tables[items] = table
        return tables

    @cached_property
    def _by_function(self) -> dict[str, dict[str, tuple]]:
        return {}

    @cached_property
    def _memo(self) -> dict:
        return {}


#: the fields only the passes read (no printer shows them: ``s2s inspect`` leaves them out)
ANALYSIS_FIELDS = frozenset({"var_uses", "member_writes", "classes", "function_refs", "host_args",
                             "host_decls", "allocating_helpers", "helper_calls"})

#: not a field: in the fields a printer shows (``shown``), the arguments of the host functions'
#: call sites (``functions[*].body ... calls[*].args``); ``s2s inspect``'s tables print only
#: the callees' names, its JSON document every argument
CALL_ARGUMENTS = "functions.call_args"
