"""What fusion needs to know about one kernel: its class and where its arrays are indexed.

Classes (paper 001, section 3.2): *map* (each thread writes its own elements), *reduce*
(threads of several blocks or a block tree combine into one element: atomics, or one result
per block through shared memory), *nested* map or map-reduce over the rows or columns of
2-D data (a thread or block walks a row or column in a loop), and *other* with the reason.
The class is read off the access records of the symbolic interpreter (index polynomials:
does a write depend on the thread? does a read walk a loop counter, and with which stride?)
and off the kernel body (barriers, atomics, warp operations, shared arrays).

Alongside, every subscript of a pointer parameter is listed with its source span and
whether it is the target of an assignment: code generation rewrites exactly these spans
when an array is passed on chip. A parameter used any other way (``&q[i]``, ``p + k``,
passed to a function) *escapes* and is never rewritten.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from s2s.analysis.kernel.access import KernelAccessModel, analyze_kernel
from s2s.analysis.kernel.interp import interpret
from s2s.analysis.kernel.members import flatten_members, member_param
from s2s.analysis.kernel.values import AccessRecord
from s2s.analysis.mgpu.templates import TYPE_SIZES, instantiate, split_arguments
from s2s.model import kernel_ir as ir
from s2s.model.cuda import Kernel
from s2s.model.span import SourceSpan
from s2s.model.unit import TranslationUnit

#: the reason of a read record through a pointer the interpreter does not know (memory.py):
#: it may read any buffer, also one no parameter names
UNKNOWN_READ = "read through an unknown pointer"

#: type arguments put in a template's body: mgpu's arithmetic types and the 2-byte floats
#: (fusion needs no host-side arithmetic on them, only their size)
FUSE_TYPE_SIZES = {**TYPE_SIZES, "__half": 2, "half": 2, "__nv_bfloat16": 2}
THREAD_ATOMS = frozenset({"tx", "ty", "tz"})
BLOCK_ATOMS = frozenset({"bx", "by", "bz"})
GRID_ATOMS = frozenset({"gdx", "gdy", "gdz", "bdx", "bdy", "bdz"})
#: why a kernel whose cross-block writes only the small sample launches show stays unfused
#: (a column walk ``od[x + y * w]`` over a grid of more threads than ``w``: boxFilter's y pass)
SIZES_DECIDE = ("whether threads of different blocks write one element depends on the launch's "
                "sizes (large ones do not), which fuse does not check")


@dataclass(frozen=True)
class Site:
    """One ``p[index]`` in the body: ``write`` when it is an assignment's target (``op`` is
    the assignment operator), else a read."""

    span: SourceSpan
    write: bool
    op: str | None = None


@dataclass(frozen=True)
class KernelFacts:
    name: str
    kind: str                  # map | reduce | nested | other
    detail: str                # human description of the class (or the reason for other)
    access: KernelAccessModel
    records: tuple[AccessRecord, ...]
    barriers: bool
    atomics: bool
    shared: bool
    device_builtins: bool      # a called __device__ function reads blockIdx/threadIdx...
    sites: dict                # pointer param -> tuple[Site, ...]
    escapes: frozenset         # pointer params used other than as p[...]
    params: tuple              # (name, kind) of every parameter
    single_block: bool = False  # 'other' only as several blocks would write one element
    #: the template arguments of the instantiation these facts describe ('float, 128');
    #: None for an ordinary kernel (and for a template's own body, class 'other')
    instance: str | None = None
    #: the model's kernel (its spans may be in a project header)
    kernel: Kernel | None = None
    #: kernels of this name the unit defines: more than one are overloads or explicit
    #: specializations (``template <> __global__ void k<double>``), and the model's kernel
    #: of the name need not be the body a launch runs (class 'other')
    definitions: int = 1
    #: (struct parameter, member) of each pointer member of a by-value struct parameter the
    #: access model follows as a buffer of its own named ``s.m`` (kernel.members); the launch
    #: passes a struct variable whose member of that name is the buffer
    members: tuple = ()

    @property
    def fusible(self) -> bool:
        return self.kind != "other"

    def reads(self, param: str) -> bool:
        array = self.access.array(param)
        return array is not None and array.read is not None

    def writes(self, param: str) -> bool:
        array = self.access.array(param)
        return array is not None and array.write is not None

    def atomic_writes(self, param: str) -> bool:
        writes = [r for r in self.records if r.array == param and r.mode == "write"]
        return bool(writes) and all(r.atomic for r in writes)


def kernel_facts(unit: TranslationUnit, headers: tuple[TranslationUnit, ...] = ()
                 ) -> dict[str, KernelFacts]:
    """Facts of every ``__global__`` kernel of the unit and of the project ``headers`` it
    includes (each analysed with its own unit's device functions), by name, and of every
    template instantiation a launch of the unit resolves to, by :func:`facts_key`
    (``scale<float, 128>``): the template's body with the arguments put in, analysed as any
    kernel. The file's own definition of a name wins over a header's."""
    facts: dict[str, KernelFacts] = {}
    bodies = {}
    for one in (*headers, unit):
        functions = {b.name: b for b in one.kernel_bodies if not b.is_global}
        device = {k.name: k for k in one.device_functions}
        for kernel in one.kernels:
            body = one.kernel_body(kernel.name)
            if body is None:
                continue
            count = sum(1 for k in one.kernels if k.name == kernel.name and k.body_span)
            facts[kernel.name] = _facts(kernel, body, functions, device, definitions=count)
            bodies[kernel.name] = (body, functions, device)
    for launch in unit.launches:
        base, key = facts.get(launch.kernel), facts_key(facts, launch)
        if base is None or key == launch.kernel or key in facts or base.definitions > 1:
            continue
        body, functions, device = bodies[launch.kernel]
        instance = instantiate(base.kernel, body, split_arguments(launch.resolved_args),
                               FUSE_TYPE_SIZES)
        if instance is not None:
            facts[key] = _facts(base.kernel, instance, functions, device, launch.resolved_args)
    return facts


def facts_key(facts: dict[str, KernelFacts], launch) -> str:
    """The key of the facts a launch runs: its kernel's name, or for a template kernel
    ``name<arguments>`` of the specialization libclang resolved the launch to (the kernel's
    name alone when unresolved: the template's own facts, class 'other')."""
    base = facts.get(launch.kernel)
    if base is None or not base.kernel.is_template or launch.resolved_args is None:
        return launch.kernel
    return f"{launch.kernel}<{launch.resolved_args}>"


def instance_problem(base: KernelFacts, launch) -> str:
    """Why a launch of the template ``base`` describes has no instantiation to fuse (for
    ``--explain``)."""
    kernel = base.kernel
    if base.definitions > 1:
        return (f"template kernel '{kernel.name}' has {base.definitions} definitions "
                "(explicit specializations or overloads): which body the launch runs is not "
                "told apart")
    if launch.resolved_args is None:
        return (f"template kernel '{kernel.name}' launched with template arguments libclang "
                "does not resolve here (a launch inside a template, or dependent arguments)")
    arguments = split_arguments(launch.resolved_args)
    if len(arguments) != len(kernel.template_params):
        return (f"template kernel '{kernel.name}<{launch.resolved_args}>': a parameter pack "
                "or a template template parameter is not put in")
    odd = [a for a in arguments if a not in FUSE_TYPE_SIZES and not a.lstrip("-").isdigit()]
    return (f"template kernel '{kernel.name}<{launch.resolved_args}>': template argument "
            f"'{odd[0] if odd else launch.resolved_args}' is not an arithmetic type or an "
            "integer constant (only those are put in the body for analysis)")


def _facts(kernel: Kernel, body: ir.KernelBody, functions, device,
           instance: str | None = None, definitions: int = 1) -> KernelFacts:
    params = tuple((p.name, p.kind) for p in body.params)
    flat = flatten_members(body)
    body = flat.body
    outcome = interpret(body, functions)
    access = analyze_kernel(body, functions)
    called = _called(kernel, device)
    calls = list(kernel.calls) + [c for k in called for c in k.calls]
    barriers = any(c.category == "syncthreads" for c in calls)
    atomics = any(c.category == "atomic" for c in calls)
    warp = any(c.category == "warp" for c in calls)
    shared = bool(kernel.shared_arrays) or any(k.shared_arrays for k in called)
    device_builtins = any(k.builtins for k in called)
    pointers = {p.name for p in body.pointer_params}
    sites, escapes = _sites(body.body, pointers, kernel.name)
    escapes |= {member_param(*m) for m in flat.members}  # never rewritten in place
    kind, detail = _classify(kernel, body, access, outcome.records, barriers, warp, instance)
    single = kind == "other" and access.cross_block_only and barriers and not warp \
        and (instance is not None or not kernel.is_template) \
        and all(r.index is not None for r in outcome.records)
    if kind == "other" and flat.why:
        detail += f" ({flat.why})"
    if definitions > 1:
        kind, single = "other", False
        detail = (f"{definitions} definitions of '{kernel.name}' (overloads or explicit "
                  "specializations of a template): which body a launch runs is not told apart")
    return KernelFacts(kernel.name, kind, detail, access, tuple(outcome.records), barriers,
                       atomics, shared, device_builtins, sites, frozenset(escapes),
                       params, single, instance, kernel, definitions, flat.members)


def _called(kernel: Kernel, device: dict) -> list[Kernel]:
    seen, todo = {}, list(kernel.device_functions_called)
    while todo:
        name = todo.pop()
        if name in seen or name not in device:
            continue
        seen[name] = device[name]
        todo += list(device[name].device_functions_called)
    return list(seen.values())


def _classify(kernel, body, access, records, barriers, warp, instance) -> tuple[str, str]:
    if kernel.is_template and instance is None:
        return "other", ("template kernel: fused per instantiation at launches whose template "
                         "arguments libclang resolves")
    if warp:
        return "other", "warp-level intrinsics exchange data between lanes"
    writes = [r for r in records if r.mode == "write"]
    if not writes:
        member = _member_write(body.body)
        if member:
            return "other", (f"writes through '{member}', a pointer member of a struct "
                             "the access model does not follow (only pointer members of a "
                             "by-value struct parameter named as 's.m' are): its accesses "
                             "are unknown")
        return "other", "writes no global memory"
    if not access.partitionable and not _only_atomic_conflicts(access, records):
        if access.sizes_decide and access.cross_block_only:
            return "other", f"{access.reason} on a sample launch: {SIZES_DECIDE}"
        return "other", access.reason or "access not analysable"
    if any(r.index is None and (r.mode == "write" or r.why == UNKNOWN_READ) for r in records):
        return "other", "an access offset is not affine in the thread indices"
    atomic = [r for r in writes if r.atomic]
    walks = _walks(records)
    if atomic:
        names = sorted({r.atomic for r in atomic})
        return "reduce", (f"reduce: partial results combined with {', '.join(names)}"
                          + (f"; reads walk {walks}" if walks else ""))
    per_block = [r for r in writes if not (r.index.atoms() & THREAD_ATOMS)]
    if per_block and barriers:
        what = f"nested map-reduce over {walks}, one block per" if walks else "reduce:"
        return "reduce" if not walks else "nested", (
            f"{what} block tree in shared memory, one result per block"
            if not walks else f"{what} {walks[:-1] if walks.endswith('s') else walks}")
    if per_block:
        return "other", "threads of a block write the same element without a barrier"
    loop_writes = any(_loop_atoms(r) for r in writes)
    if walks and not loop_writes:
        return "nested", f"nested map-reduce over {walks} (a thread reduces a {walks[:-1]})"
    if loop_writes:
        return "nested", "nested map over rows (threads of a block stride through a row)"
    return "map", "map: each thread writes its own elements"


def _member_write(block: ir.Block) -> str:
    """``GSD.samples`` when the body assigns an element through a struct's member
    (``GSD.samples[i] = v``): a write the access records do not hold; '' when none."""
    found: list[str] = []

    def name(node) -> str:
        if isinstance(node, ir.Var):
            return node.name
        if isinstance(node, ir.Member):
            base = name(node.base)
            return f"{base}{'->' if node.arrow else '.'}{node.name}" if base else ""
        return ""

    def visit(node):
        if found:
            return
        if isinstance(node, ir.Assign) and isinstance(node.target, ir.Index) \
                and isinstance(node.target.base, ir.Member):
            found.append(name(node.target.base))
        if isinstance(node, (tuple, list)):
            for item in node:
                visit(item)
        elif dataclasses.is_dataclass(node):
            for item in dataclasses.fields(node):
                if item.name != "span":
                    visit(getattr(node, item.name))

    visit(block)
    return next((f for f in found if f), "")


def _only_atomic_conflicts(access: KernelAccessModel, records) -> bool:
    """Unpartitionable only because atomics of different blocks meet in one element."""
    reason = access.reason or ""
    atomic_arrays = {r.array for r in records if r.atomic}
    return "reduction" in reason and any(f" {a}[" in reason for a in atomic_arrays)


def _loop_atoms(record: AccessRecord) -> set[str]:
    return {a for a in record.index.atoms() if a.startswith("_t")}


def _walks(records) -> str:
    """``rows`` when some read walks a loop with unit (or thread-block) stride, ``columns``
    when the stride is a scalar (a row length); '' when no read walks a loop."""
    kinds = set()
    for record in records:
        if record.mode != "read" or record.index is None:
            continue
        for atom in _loop_atoms(record):
            strides = [(mono, c) for mono, c in record.index.terms if atom in mono]
            for mono, _c in strides:
                rest = set(mono) - {atom}
                if rest & {"gdx", "gdy", "gdz"}:
                    continue  # a grid-stride loop: every thread of the grid, not a row
                kinds.add("rows" if rest <= GRID_ATOMS else "columns")
    if not kinds:
        return ""
    return "columns" if "columns" in kinds else "rows"


# --- subscripts of pointer parameters -------------------------------------------------------

def _sites(block: ir.Block, pointers: set[str], kernel: str) -> tuple[dict, set[str]]:
    """Subscripts of ``pointers`` by parameter, and the parameters that escape. A subscript
    in the kernel's own template body counts as written text: the fused kernel copies that
    body into a stage template of its own, instantiated once (not in a macro, though)."""
    sites: dict[str, list[Site]] = {p: [] for p in pointers}
    escapes: set[str] = set()

    def editable(span) -> bool:
        return span is not None and span.macro is None and span.template in (None, kernel)

    def visit(node, context: str | None = None, op: str | None = None):
        if isinstance(node, ir.Index) and isinstance(node.base, ir.Var) \
                and node.base.name in pointers:
            if context == "address" or not editable(node.span):
                escapes.add(node.base.name)
            else:
                sites[node.base.name].append(Site(node.span, context == "target", op))
            visit(node.index)
            return
        if isinstance(node, ir.Var):
            if node.name in pointers:
                escapes.add(node.name)
            return
        if isinstance(node, ir.Assign):
            visit(node.target, "target", node.op)
            visit(node.value)
            return
        if isinstance(node, ir.Unary) and node.op in ("&", "pre++", "pre--", "post++", "post--"):
            visit(node.operand, "address")
            return
        if isinstance(node, (tuple, list)):
            for item in node:
                visit(item)
            return
        if dataclasses.is_dataclass(node):
            for field in dataclasses.fields(node):
                if field.name != "span":
                    visit(getattr(node, field.name))

    visit(block)
    return {p: tuple(s) for p, s in sites.items()}, escapes
