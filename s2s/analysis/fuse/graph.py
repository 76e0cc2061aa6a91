"""Launch sequences of host code as a dependence DAG, with host liveness and span layers.

A *run* is a maximal sequence of launch statements in one block of a host function with
nothing between them that calls a function (a ``cudaMemcpy``, a host routine could observe or
change device data); declarations such as ``dim3 grid2(...)``, launch-error checks
(``CHECK(cudaGetLastError())``, which then check the fused launch) and synchronizations of the
default stream may sit between. Each launch becomes a node: its kernel's facts, the host
buffer bound to every pointer parameter (an argument that is exactly one variable, from the
AST's mentions, ``s2s/frontend/host/facts.py``) and the text of its scalar arguments.

Dependences are per buffer (RAW, WAR, WAW); the legality module refines them with the access
maps. Span layering follows FusionStitching (paper 004, section 3.1): a node without
successors has span 0, any other node one more than its largest successor; nodes of one
layer are independent of each other.

Host liveness: a buffer is *dead* after a point when it was allocated with ``cudaMalloc`` in
the same function, the run is not inside a loop, and every later mention of the variable in
the AST is a ``cudaFree`` or an argument of a launch that only writes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from s2s.analysis.fuse.kernels import KernelFacts, facts_key, instance_problem
from s2s.analysis.fuse.reporting import closed_under_calls, reporting_helpers
from s2s.analysis.host_eval import host_trees
from s2s.analysis.kernel.members import member_param
from s2s.model.cuda import Launch
from s2s.model.cuda_legacy import LEGACY_CALLS
from s2s.model.host import Stmt
from s2s.model.host_facts import CHANGING_ROLES, DECLARING_ROLES
from s2s.model.span import SpanIndex
from s2s.model.unit import TranslationUnit

ONE_BLOCK = re.compile(r"1|dim3\(1(,1){0,2}\)")
LOOPS = frozenset({"for", "while", "do", "range_for"})
#: Calls that cannot observe or change device data (constructors of launch shapes, value
#: conversions of scalar arguments such as ``__float2half(alpha)``).
HARMLESS = frozenset({"dim3", "make_uint3", "make_int3", "make_float2", "make_float3",
                      "make_float4", "make_double2", "__float2half", "__float2half_rn",
                      "__half2float", "__float2bfloat16", "__double2half"})
#: A statement calling only these, one of the first two among them, checks the last launch
#: error (``CHECK(cudaGetLastError())``): it touches no device data, so a run goes on past it.
ERROR_CHECK = frozenset({"cudaGetLastError", "cudaPeekAtLastError"})
#: Synchronizations of the default stream: they order the host after the launches before
#: them, not one launch after another (launches on the default stream run in order anyway),
#: so a run goes on past them; they stay where they are, before the fused launch.
SYNC = frozenset({"cudaDeviceSynchronize"} | {old for old, new in LEGACY_CALLS.items()
                                             if new == "cudaDeviceSynchronize"})
REPORTING = frozenset({"cudaGetErrorString", "cudaGetErrorName", "fprintf", "printf", "puts",
                       "fputs", "fflush", "perror", "exit", "abort"})
#: Library functions of values only (``(int)ceil(n / 256.0)`` in a launch's grid): a call of
#: one touches no device data, as a call of the program's own pure helpers
#: (:func:`pure_helpers`, ``iDivUp``).
MATH = frozenset({"ceil", "ceilf", "floor", "floorf", "sqrt", "sqrtf", "cbrt", "cbrtf", "pow",
                  "powf", "fabs", "fabsf", "abs", "labs", "fmin", "fminf", "fmax", "fmaxf", "min",
                  "max", "round", "roundf", "lround", "log", "logf", "log2", "log2f", "exp",
                  "expf", "exp2", "exp2f"})


@dataclass(frozen=True)
class LaunchNode:
    index: int
    launch: Launch
    facts: KernelFacts | None
    buffers: dict          # pointer param -> buffer name
    scalars: dict          # other param -> argument text
    config: tuple          # (grid text, block text, shared text) with blanks removed
    stmt: Stmt
    problem: str | None = None
    #: launched with a grid of one block (``final_sum<<<1, T>>>``): can complete a group of
    #: another grid in that grid's last block; kernels that would clash between blocks
    #: (class other, ``single_block``) are fusible only that way
    one_block: bool = False
    #: other param -> its argument lowered to the kernel IR (``HostArg``), where found
    scalar_trees: dict = field(default_factory=dict)
    #: the kernel's parameters (model ``Param``) with the types of the instantiation the
    #: launch runs (``T *x`` of ``scale<float, 128>``: ``float *``); the kernel's own ones
    #: for an ordinary kernel
    params: tuple = ()
    #: the template arguments the fused kernel instantiates its stage with ('float, 128');
    #: None for an ordinary kernel
    instance: str | None = None
    #: the explicit stream the launch is queued on, as written ('' for the default stream):
    #: launches of one stream run in order, as default-stream launches do, so they fuse
    #: into one launch on that stream; launches of different streams never fuse
    stream: str = ""

    @property
    def name(self) -> str:
        return f"{self.launch.kernel}#{self.index}"

    def reads(self, buffer: str) -> bool:
        return any(b == buffer and self.facts.reads(p) for p, b in self.buffers.items())

    def writes(self, buffer: str) -> bool:
        return any(b == buffer and self.facts.writes(p) for p, b in self.buffers.items())

    def params_of(self, buffer: str) -> list[str]:
        return [p for p, b in self.buffers.items() if b == buffer]


@dataclass(frozen=True)
class Dependence:
    first: int
    second: int
    buffer: str
    kind: str              # RAW | WAR | WAW


@dataclass
class Run:
    function: str
    nodes: list[LaunchNode]
    in_loop: bool
    function_span: object
    deps: list[Dependence] = field(default_factory=list)
    #: what ended the previous run of the same block ("" when nothing did): a call, or a
    #: launch nested in a loop or branch, between the two runs
    after: str = ""
    #: what ended this run ("" when its block did): the statement after its last launch
    ended: str = ""
    #: the block that holds the run, in words ("the then branch of the if statement at
    #: line 7"), for the warning on a launch alone in its block
    block: str = ""

    def edges(self, a: int, b: int) -> list[Dependence]:
        lo, hi = min(a, b), max(a, b)
        return [d for d in self.deps if d.first == lo and d.second == hi]

    def successors(self, a: int) -> set[int]:
        return {d.second for d in self.deps if d.first == a}


def error_check_helpers(unit) -> frozenset[str]:
    """Host functions of the file whose body only checks the last launch error and reports
    it (``after_kernel(name)``: ``cudaGetLastError``, ``fprintf``, ``exit``, or a reporting
    helper of the file given the status): a call of one touches no device data."""
    found = set()
    reporting = REPORTING | reporters(unit)
    for function in unit.functions:
        if function.body is None or unit.in_function("launches", function.name):
            continue
        names = {c.name for s in function.body.walk() for c in s.calls}
        if names & ERROR_CHECK and names <= ERROR_CHECK | SYNC | reporting:
            found.add(function.name)
    return frozenset(found)


def reporters(unit) -> frozenset[str]:
    """The reporting helpers of ``unit`` (:mod:`s2s.analysis.fuse.reporting`): a call of one
    given a launch-error check or a default-stream synchronization
    (``report(cudaDeviceSynchronize(), "...", __FILE__, __LINE__)``) ends no run."""
    return unit.cached(("fuse.graph.reporters",), lambda: reporting_helpers(
        unit, REPORTING | MATH | HARMLESS | pure_helpers(unit)))


#: statement kinds a pure helper's body may hold
_PURE_KINDS = frozenset({"block", "return", "decl", "if", "expr", "null"})


def pure_helpers(unit) -> frozenset[str]:
    """Host functions of ``unit`` that compute a value from by-value parameters and locals
    only (``int iDivUp(int a, int b) { return (a % b != 0) ? (a / b + 1) : (a / b); }``):
    no pointer or reference parameter, no global named, no call but of library math and of
    each other. A call of one (in a launch's grid, a wrapper's ``dim3``) touches no device
    data."""
    candidates = {}
    for function in unit.functions:
        if function.body is None or function.return_type.strip() in ("void", "") or \
                function.member_of is not None or \
                any(p.is_pointer or "&" in p.type or "[" in p.type for p in function.params):
            continue
        span = function.span
        if any(s.kind not in _PURE_KINDS for s in function.body.walk()) or any(
                not span.start <= u.decl < span.end
                for u in unit.in_function("var_uses", function.name)):
            continue
        candidates[function.name] = {c.name for s in function.body.walk() for c in s.calls}
    return closed_under_calls(candidates, MATH | HARMLESS)


def harmless_calls(unit: TranslationUnit) -> frozenset[str]:
    """Calls that touch no device data in ``unit``'s host code: shape constructors, library
    math, the pure helpers of the file and of the headers :func:`add_checks` was given."""
    own = unit.cached(("fuse.graph.pure",), lambda: pure_helpers(unit))
    return HARMLESS | MATH | own | unit.cached(("fuse.graph.other_pure",), set)


def find_runs(unit: TranslationUnit, source: bytes, facts: dict,
              lone: list | None = None) -> list[Run]:
    """The launch runs of every function; ``lone`` (when given) receives (launch, why) for
    each launch that joins no run: its statement is more than the launch (a call in its
    configuration, a loop or branch around it)."""
    runs = []
    for function in unit.functions:
        launches = unit.in_function("launches", function.name)
        if function.body is None or len(launches) < 1:
            continue
        by_span = SpanIndex(launches)
        if lone is not None:
            lone += _bare_bodies(function.body, by_span)
        for block, in_loop, where in _blocks(function.body, False, "the body of the function"):
            if block.span.macro is not None:    # a macro's body: every statement has its span
                continue
            found = _runs_in_block(unit, function, block, in_loop, by_span, facts,
                                   [] if lone is None else lone)
            runs += [replace(run, block=where) for run in found]
    return runs


def _bare_bodies(stmt: Stmt, launches: SpanIndex[Launch]) -> list[tuple[Launch, str]]:
    """(launch, why) for each launch statement that is a loop's or branch's whole body
    without braces (``for (m = 0; m < 12; m++) k<<<g, b>>>(m);``): no block holds it, so
    it joins no run; the reason names the statement (it is no "statement of its own in a
    block", but the user reads a loop body)."""
    out = []
    for inner in stmt.walk():
        for part in (inner.body, inner.orelse):
            if part is None or part.kind != "expr":
                continue
            what = "else branch" if part is inner.orelse else \
                "body" if inner.kind in LOOPS else "then branch"
            out += [(launch, f"it is the whole {what} of the {inner.kind} statement at line "
                     f"{inner.span.line}, without braces")
                    for launch in launches.inside(part.span)]
    return out


def _blocks(stmt: Stmt, in_loop: bool, where: str):
    """(block, in a loop, the block in words) for each block under ``stmt``, itself
    included; ``where`` names ``stmt`` when it is a block."""
    if stmt.kind == "block":
        yield stmt, in_loop, where
    inner = in_loop or stmt.kind in LOOPS
    at = f"the {stmt.kind} statement at line {stmt.span.line}"
    for part, what in ((stmt.body, "then branch" if stmt.kind == "if" else "body"),
                       (stmt.orelse, "else branch")):
        if part is not None:
            yield from _blocks(part, inner, f"the {what} of {at}")
    for child in stmt.children:
        own = f"a block of its own at line {child.span.line}" if stmt.kind == "block" else \
            f"the {'default' if stmt.kind == 'default' else 'case'} label's statement at line " \
            f"{stmt.span.line}" if stmt.kind in ("case", "default") else \
            f"a {stmt.kind} statement's block at line {child.span.line}"
        yield from _blocks(child, inner, own)


def _runs_in_block(unit, function, block: Stmt, in_loop, launches: SpanIndex[Launch], facts,
                   lone: list) -> list[Run]:
    runs, current, after = [], [], ""
    harmless = harmless_calls(unit)
    for child, entry in _statements(block):
        if entry:              # a case label or a jump: control enters or leaves here
            if current:
                runs.append(Run(function.name, current, in_loop, function.span, after=after,
                                ended=entry))
            after, current = (entry if current else ""), []
            continue
        inside = launches.inside(child.span)
        calls = [c for s in child.walk() for c in s.calls if c.name not in harmless]
        if len(inside) == 1 and child.kind == "expr" and len(calls) <= 1:
            current.append(_node(unit, len(current), inside[0], child, facts))
            continue
        names = {c.name for c in calls}
        if not inside and names & (ERROR_CHECK | SYNC) and \
                names <= ERROR_CHECK | SYNC | REPORTING | _reporting(unit):
            continue
        if not inside and names and names <= _checks(unit):    # after_kernel("step")
            continue
        changed = _changes_launch_values(unit, child, current) if not calls and not inside else None
        if changed:                   # t = a; a = b; b = t; between launches: the run ends there
            runs.append(Run(function.name, current, in_loop, function.span, after=after, ended=changed))
            after, current = changed, []
            continue
        if child.kind == "expr" and inside:
            lone += [(launch, _separation(child, names, inside)) for launch in inside]
        elif inside and child.span.macro is not None:       # do { k<<<...>>>(); check(); } ...
            lone += [(launch, f"it is inside macro '{child.span.macro}', which is more than the "
                      "launch (its call cannot be replaced by a fused launch)") for launch in inside]
        if calls or inside:
            if current or inside:  # the first statement after launches ends their run
                if current:
                    runs.append(Run(function.name, current, in_loop, function.span, after=after,
                                    ended=_separation(child, names, inside)))
                after = _separation(child, names, inside)
            current = []
    if current:
        runs.append(Run(function.name, current, in_loop, function.span, after=after))
    for run in runs:
        run.deps = dependences(run.nodes)
    return runs


def _statements(block: Stmt):
    """(statement, "") for each statement of ``block`` in order, with (label, why) before
    each statement that control can enter other than from the one before it, or that
    leaves the block: a switch's ``case``/``default`` label is a separator and its
    statement a statement of the block (``case 1: a<<<g, b>>>(d); b<<<g, b>>>(d); break;``
    is a run of two launches, as in braces), and ``break``/``continue``/``return``/``goto``
    ends the run (a launch after it is not run after the ones before it)."""
    for child in block.children:
        while child.kind in ("case", "default") and child.children:
            label = "default" if child.kind == "default" else f"case {child.cond.text}"
            yield child, (f"the switch label '{label}' at line {child.span.line} "
                          "(control can enter the case there)")
            child = child.children[-1]
        if child.kind in ("case", "default"):              # a label with no statement
            yield child, f"the switch label at line {child.span.line}"
        elif child.kind in _JUMPS:
            yield child, f"the {child.kind} statement at line {child.span.line}"
        else:
            yield child, ""


_JUMPS = frozenset({"break", "continue", "return", "goto"})


def _checks(unit: TranslationUnit) -> frozenset[str]:
    own = unit.cached(("fuse.graph.checks",), lambda: error_check_helpers(unit))
    return own | unit.cached(("fuse.graph.other_checks",), set)


def _reporting(unit: TranslationUnit) -> frozenset[str]:
    return reporters(unit) | unit.cached(("fuse.graph.other_reporters",), set)


def add_checks(unit: TranslationUnit, names: frozenset[str], pure: frozenset[str] = frozenset(),
               reporting: frozenset[str] = frozenset()) -> None:
    """Error-check helpers defined outside ``unit`` (a project header's ``after_kernel``),
    that a run of launches in ``unit`` goes on past, as past the file's own; ``pure``: the
    header's pure helpers (:func:`pure_helpers`); ``reporting``: its reporting helpers
    (:func:`reporters`, a ``helper_cuda.h``-style ``check`` template)."""
    unit.cached(("fuse.graph.other_checks",), set).update(names)
    unit.cached(("fuse.graph.other_pure",), set).update(pure)
    unit.cached(("fuse.graph.other_reporters",), set).update(reporting)


def header_helpers(helpers) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(error-check helpers, pure helpers, reporting helpers) of the models of project
    headers ``helpers``."""
    return (frozenset().union(*(error_check_helpers(h) for h in helpers)),
            frozenset().union(*(pure_helpers(h) for h in helpers)),
            frozenset().union(*(reporters(h) for h in helpers)))


#: roles of a mention that give the variable a new value (``s2s.model.host_facts``)
_CHANGING = DECLARING_ROLES | CHANGING_ROLES


def _changes_launch_values(unit: TranslationUnit, stmt: Stmt, nodes: list) -> str:
    """Why ``stmt`` ends the run of ``nodes``: it assigns a variable their launches read (a
    pointer rotation ``t = a; a = b; b = t;``, ``n /= 2``): a fused launch would pass one
    value where the launches before and after the statement saw two. "" when it does not."""
    if not nodes:
        return ""
    uses = unit.cached(("fuse.graph.var_uses", nodes[0].launch.function), lambda: SpanIndex(
        unit.in_function("var_uses", nodes[0].launch.function)))
    read = {use.name for node in nodes for use in uses.inside(node.launch.span)}
    changed = sorted({use.name for use in uses.inside(stmt.span) if use.role in _CHANGING} & read)
    if not changed:
        return ""
    return (f"{', '.join(repr(n) for n in changed)} assigned at line {stmt.span.line}, between "
            "launches that pass it")


def _argument_uses(unit: TranslationUnit, launch: Launch) -> dict[int, list]:
    """The AST's variable mentions in each argument of ``launch``."""
    index = unit.cached(("fuse.graph.var_uses", launch.function), lambda: SpanIndex(
        unit.in_function("var_uses", launch.function)))
    found: dict[int, list] = {}
    for use in index.inside(launch.span):
        if use.call == launch.kernel and use.position is not None:
            found.setdefault(use.position, []).append(use)
    return found


def _plain(uses, arg) -> bool:
    """Whether a launch argument is exactly one variable, as written (no cast, offset,
    subscript or member)."""
    if len(uses) != 1 or uses[0].role != "argument":
        return False
    if arg.span.macro is not None:       # a forwarding macro's argument: the expansion's text
        return arg.text.strip() == uses[0].name
    return (uses[0].span.start, uses[0].span.end) == (arg.span.start, arg.span.end)


def _separation(stmt: Stmt, names: set[str], inside: list) -> str:
    """What ``stmt`` does that ends a run of launches, for ``--explain``."""
    if inside and stmt.kind != "expr":
        return f"{len(inside)} launch(es) inside a {stmt.kind} statement at line {stmt.span.line}"
    if inside:
        others = sorted(names - {launch.kernel for launch in inside})
        what = f"also calls {', '.join(others)}" if others else "holds several launches"
        return f"the launch statement at line {stmt.span.line} ({what})"
    return f"a call to {', '.join(sorted(names))} at line {stmt.span.line}"


def _node(unit: TranslationUnit, index: int, launch: Launch, stmt: Stmt, facts) -> LaunchNode:
    key = facts_key(facts, launch)
    kernel_facts: KernelFacts | None = facts.get(key)
    buffers, scalars, trees, problem = {}, {}, {}, None
    shared = launch.shared_bytes.text if launch.shared_bytes is not None else "0"
    config = tuple(re.sub(r"\s+", "", t) for t in (launch.grid.text, launch.block.text, shared))
    base = facts.get(launch.kernel)
    kernel = None if base is None else base.kernel
    if base is None:
        problem = f"no analysable definition of kernel '{launch.kernel}' in this file"
    elif launch.span.macro is not None and not launch.forwarded:
        problem = (f"the launch is inside the macro expansion '{launch.span.macro}' (the macro "
                   "is more than the launch: its call cannot be replaced by the fused launch)")
    elif launch.span.template is not None:
        problem = (f"the launch is inside the template '{launch.span.template}' (its kernel "
                   "and arguments depend on the template's instantiation)")
    elif kernel_facts is None or (kernel.is_template and kernel_facts.instance is None):
        problem, kernel_facts = instance_problem(base, launch), base
    elif len(launch.args) != len(kernel_facts.params):
        problem = "argument count differs from the kernel's parameters"
    else:
        uses = _argument_uses(unit, launch)
        for position, ((name, kind), arg) in enumerate(zip(kernel_facts.params, launch.args,
                                                           strict=True)):
            text = arg.text.strip()
            if kind == "pointer":
                if not _plain(uses.get(position, ()), arg):
                    problem = f"pointer argument '{text}' is not a plain device pointer variable"
                buffers[name] = text
            else:
                scalars[name] = text
                trees[name] = host_trees(unit).argument(launch.span, launch.kernel, position)
        problem = _member_buffers(kernel_facts, launch, uses, buffers) or problem
        problem = problem or _member_copied(unit, kernel_facts)
        copied = unit.cached(("fuse.graph.copied", launch.function),
                             lambda: _copied(unit, launch.function))
        aliased = sorted(set(buffers.values()) & copied)
        if problem is None and aliased:
            problem = f"pointer '{aliased[0]}' is reassigned in '{launch.function}' (aliasing)"
        one_block = ONE_BLOCK.fullmatch(config[0]) is not None
        if problem is None and not kernel_facts.fusible and \
                not (one_block and kernel_facts.single_block):
            problem = f"kernel '{key}' is not fusible: {kernel_facts.detail}"
        return LaunchNode(index, launch, kernel_facts, buffers, scalars, config, stmt, problem,
                          one_block, trees, _instance_params(kernel, launch),
                          kernel_facts.instance, stream_of(launch))
    return LaunchNode(index, launch, kernel_facts, buffers, scalars, config, stmt, problem)


def _member_buffers(kernel_facts: KernelFacts, launch: Launch, uses, buffers: dict) -> str | None:
    """Adds to ``buffers`` the pointer members of the by-value struct arguments the kernel's
    access model follows (``GSD.samples``: the launch's struct variable ``GSD`` holds the
    buffer in its member ``samples``); why not when such an argument is no plain variable.
    Two members of one struct, or a member and a pointer variable, are distinct buffers
    unless this function copies a pointer into or out of one (``_copied`` names
    ``GSD.samples`` then, and the launch is refused as aliasing), as pointer parameters
    are."""
    positions = {name: i for i, (name, _kind) in enumerate(kernel_facts.params)}
    for struct, member in kernel_facts.members:
        position = positions[struct]
        arg = launch.args[position]
        text = arg.text.strip()
        named = uses.get(position, ())
        if len(named) != 1 or named[0].name != text or named[0].role not in ("argument", "read"):
            return (f"struct argument '{text}' holds buffers the kernel uses ('{struct}."
                    f"{member}') and is not a plain struct variable")
        buffers[member_param(struct, member)] = f"{text}.{member}"
    return None


def _member_copied(unit: TranslationUnit, kernel_facts: KernelFacts) -> str | None:
    """Why a struct member the kernel uses as a buffer may hold another buffer's storage: a
    function of the file (the helper that fills the struct, or any other) copies a pointer
    into a member of that name (``f.v = f.u;``, ``g->v = d;``); None when none does (the
    member got its storage from an allocation, as ``cudaMalloc(&f.v, ...)``)."""
    names = {member for _struct, member in kernel_facts.members}
    if not names:
        return None
    for copy in unit.pointer_copies:
        member = re.split(r"\.|->", copy.target)[-1]
        if member in names and copy.target != member and \
                (copy.source is not None or copy.choices or copy.through):
            return (f"'{copy.target}' is given a pointer in '{copy.function}' at line "
                    f"{copy.span.line}: the struct member '{member}' may share another "
                    "buffer's storage (aliasing)")
    return None


def stream_of(launch: Launch) -> str:
    """The launch's explicit stream with blanks removed, '' for the default stream (none
    given, ``0``, ``NULL``, ``nullptr``), out of the parentheses that enclose all of it:
    ``(s)`` and ``s`` are one stream (two streams, they would refuse the fusion)."""
    if launch.stream is None:
        return ""
    text = _unparenthesized(re.sub(r"\s+", "", launch.stream.text))
    return "" if text in ("0", "NULL", "nullptr", "(cudaStream_t)0") else text


def _unparenthesized(text: str) -> str:
    """``text`` without the pairs of parentheses that enclose all of it (``((s))`` -> ``s``;
    ``(a)+(b)`` stays)."""
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, char in enumerate(text):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and i < len(text) - 1:
                return text
        text = text[1:-1]
    return text


def _instance_params(kernel, launch: Launch) -> tuple:
    """The kernel's parameters with the types of the launch's instantiation (libclang's
    spelling of the specialization's parameters)."""
    if kernel is None or not kernel.is_template or \
            len(launch.instance_types) != len(kernel.params):
        return () if kernel is None else kernel.params
    return tuple(replace(p, type=t) for p, t in zip(kernel.params, launch.instance_types,
                                                    strict=True))


#: the allocations ``s2s transfers`` carves its pooled buffers from
POOLS = frozenset({"s2s_device_pool", "s2s_host_pool"})


def _copied(unit: TranslationUnit, function: str) -> frozenset[str]:
    """Pointers that are copied or reassigned in a function (they may alias), less the
    buffers ``s2s transfers`` pooled: ``d = reinterpret_cast<T>(s2s_device_pool + s2s_off_d)``
    assigned once is a slice of the pool disjoint from every other slice (docs/transfers.md),
    so fusion run after transfers sees the same buffers as before it; less the pointers
    declared with the value of an allocation helper's call (:func:`_fresh`); less the copies
    of a null pointer (``float *d_u = NULL;``, ``d_u = 0;``: the target then holds no
    buffer, a later ``cudaMalloc`` gives it its own, and any copy of another buffer into it
    is a copy of its own); and less the buffers the copies only rotate (:func:`_rotated`)."""
    copies = unit.in_function("pointer_copies", function)
    targets: dict[str, int] = {}
    for c in copies:
        targets[c.target] = targets.get(c.target, 0) + 1
    names, rest, fresh = set(), [], set()
    for c in copies:
        if c.source in POOLS and c.offset and targets[c.target] == 1:
            continue
        if _fresh(unit, function, c):
            fresh.add(c.target)
            continue
        if _null(unit, function, c):
            continue
        rest.append(c)
        names.update(n for n in (c.target, c.source) if n is not None)
    return frozenset(names - _rotated(unit, function, rest, fresh))


def _null(unit: TranslationUnit, function: str, copy) -> bool:
    """Whether ``copy`` gives its target a null pointer constant (the front end's
    ``null-init`` declarator, or an ``=`` whose value is one: ``VarUse.null``)."""
    if copy.source is not None or copy.choices or copy.offset:
        return False
    uses = unit.cached(("fuse.graph.var_uses", function), lambda: SpanIndex(
        unit.in_function("var_uses", function)))
    return any(u.name == copy.target and (u.role == "null-init" or (u.role == "assign" and u.null))
               for u in uses.inside(copy.span))


def _fresh(unit: TranslationUnit, function: str, copy) -> bool:
    """Whether ``copy`` gives its target the value of a call that is given no pointer, at
    its declaration (``float *d_q = device_alloc(n);``) or in the first assignment of a local
    declared without a value (``float *d; d = device_alloc(n);``): a pointer of its own, as
    a parameter is, not a second name of another buffer (a helper handed no pointer cannot
    return one of the caller's). Later copies into it are judged on their own (a rotation,
    :func:`_rotated`, or aliasing)."""
    if copy.source is not None or copy.choices or copy.offset:
        return False
    uses = unit.cached(("fuse.graph.var_uses", function), lambda: SpanIndex(
        unit.in_function("var_uses", function)))
    inside = uses.inside(copy.span)
    named = [u for u in inside if u.name == copy.target]
    if not named or any(u.pointer for u in inside if u.name != copy.target):
        return False
    if not any(u.decl == u.span.start for u in named) and \
            not _first_value(unit, function, named[0], copy):
        return False
    calls = unit.cached(("fuse.graph.call_ends", function), lambda: {
        c.span.end: c for c in unit.function(function).calls} if unit.function(function) else {})
    call = calls.get(copy.span.end)
    return call is not None and copy.span.start <= call.span.start


def _first_value(unit: TranslationUnit, function: str, use, copy) -> bool:
    """Whether ``use`` (the target's mention in ``copy``) is the left side of an assignment
    to a local of ``function`` whose declarator has no value and which no mention between
    the two reads or writes (its first value: no buffer was named by it before)."""
    if use.role != "assign" or not use.local or use.span.start != copy.span.start:
        return False
    same = [u for u in unit.in_function("var_uses", function)
            if u.name == use.name and u.decl == use.decl]
    declarator = [u for u in same if u.span.start == u.decl]
    return len(declarator) == 1 and declarator[0].value is None and \
        declarator[0].span.file == use.span.file and not any(
            declarator[0].span.start < u.span.start < use.span.start for u in same)


def _rotated(unit: TranslationUnit, function_name: str, copies: list,
             fresh: frozenset[str] | set = frozenset()) -> frozenset[str]:
    """Buffers allocated here that the copies only rotate (``t = a; a = b; b = t;`` at the
    top of a frame loop, double buffers): every copy is a statement of some block; the
    copies of each block, run in order on symbolic values, leave those buffers holding a
    permutation of what they held; and no launch sits between a block's first and last
    copy. Distinct allocations then stay distinct at every launch, however many times the
    loop rotates them, so they cannot alias."""
    function = unit.function(function_name)
    if function is None or function.body is None or not copies:
        return frozenset()
    names = {c.target for c in copies} | {c.source for c in copies if c.source}
    buffers = {n for n in names if n in fresh or allocated_here(unit, function_name, n)}
    launches = unit.in_function("launches", function_name)
    placed = 0
    for block in function.body.walk():
        if block.kind != "block":
            continue
        mine = [c for child in block.children if child.kind in ("expr", "decl")
                for c in copies if child.span.contains(c.span)]
        if not mine:
            continue
        placed += len(mine)
        values: dict[str, object] = {b: b for b in buffers}
        for k, c in enumerate(mine):
            values[c.target] = values.get(c.source, ("unknown", k)) if c.source else ("unknown", k)
        first, last = mine[0].span.start, mine[-1].span.end
        if {values[b] for b in buffers} != buffers or \
                any(first <= x.span.start < last for x in launches):
            return frozenset()
    return frozenset(buffers) if placed == len(copies) else frozenset()


def dependences(nodes: list[LaunchNode]) -> list[Dependence]:
    deps = []
    for a in nodes:
        for b in nodes[a.index + 1:]:
            if a.facts is None or b.facts is None:
                common = set(a.launch.args) and {x.text for x in a.launch.args} & \
                    {x.text for x in b.launch.args}
                deps += [Dependence(a.index, b.index, c, "RAW") for c in sorted(common)]
                continue
            for buffer in sorted(set(a.buffers.values()) & set(b.buffers.values())):
                if a.writes(buffer) and b.reads(buffer):
                    deps.append(Dependence(a.index, b.index, buffer, "RAW"))
                if a.reads(buffer) and b.writes(buffer):
                    deps.append(Dependence(a.index, b.index, buffer, "WAR"))
                if a.writes(buffer) and b.writes(buffer):
                    deps.append(Dependence(a.index, b.index, buffer, "WAW"))
    return deps


def span_layers(run: Run) -> dict[int, int]:
    """FusionStitching's span of each node: 0 for sinks, else 1 + the largest successor's."""
    span: dict[int, int] = {}
    for node in reversed(run.nodes):
        succ = run.successors(node.index)
        span[node.index] = 1 + max(span[s] for s in succ) if succ else 0
    return span


# --- host liveness ----------------------------------------------------------------------------

def mentions_in_calls(unit: TranslationUnit, function: str) -> dict[str, tuple[tuple[object, object], ...]]:
    """The mentions of each variable of ``function`` inside its CUDA API calls and kernel
    launches, as (call or launch, ``VarUse``) pairs from the AST (the innermost call whose
    extent holds where the mention is written; ``sizeof`` operands left out): fuse asks which
    calls a buffer is given to from these, not from argument texts (``(d)``, ``d + 1`` and
    ``(void **)&d`` are mentions too). Built once per function."""
    def build() -> dict[str, tuple[tuple[object, object], ...]]:
        calls = list(unit.in_function("api_calls", function)) + \
            list(unit.in_function("launches", function))
        index = SpanIndex(calls)
        found: dict[str, list[tuple[object, object]]] = {}
        for use in unit.in_function("var_uses", function):
            if use.unevaluated:
                continue
            start, end = use.spelled or (use.span.start, use.span.end)
            holders = [c for c in index.containing(start) if end <= c.span.end]
            if holders:
                found.setdefault(use.name, []).append(
                    (max(holders, key=lambda c: c.span.start), use))
        return {name: tuple(pairs) for name, pairs in found.items()}
    return unit.cached(("fuse.graph.call_mentions", function), build)


def allocated_here(unit: TranslationUnit, function: str, buffer: str) -> bool:
    """Whether ``function`` allocates ``buffer`` itself (``cudaMalloc(&buffer, ..)`` or
    another allocation call taking its address first), from the AST's variable mentions."""
    names = unit.cached(("fuse.graph.allocated", function), lambda: frozenset(
        u.name for u in unit.in_function("var_uses", function)
        if u.role == "address" and u.position == 0 and u.call in _alloc_calls(unit, function)))
    return buffer in names


def _alloc_calls(unit: TranslationUnit, function: str) -> frozenset[str]:
    return unit.cached(("fuse.graph.alloc_calls", function), lambda: frozenset(
        c.name for c in unit.in_function("api_calls", function) if c.category == "alloc"))


def live_after(unit: TranslationUnit, run: Run, buffer: str, offset: int, source: bytes,
               facts: dict) -> bool:
    """Whether ``buffer`` may be read after byte ``offset`` (by host code or a later launch):
    it is not when the function allocated it, the run is not in a loop, and every later
    mention of the variable (the AST's mentions, ``s2s/frontend/host/facts.py``: comments,
    strings and members of the same name are no mentions) is the pointer passed to a free
    call or a write-only pointer argument of a launch. ``source`` is unused (the signature
    is the planner's)."""
    if run.in_loop or not allocated_here(unit, run.function, buffer):
        return True
    frees = unit.cached(("fuse.graph.free_calls", run.function), lambda: frozenset(
        c.name for c in unit.in_function("api_calls", run.function) if c.category == "free"))
    for use in unit.in_function("var_uses", run.function):
        if use.name != buffer or use.span.start < offset:
            continue
        if use.role == "argument" and use.position == 0 and use.call in frees:
            continue
        if use.role == "argument" and _write_only(facts.get(use.call), use.position):
            continue
        return True
    return False


def _write_only(kernel, position: int | None) -> bool:
    """Whether launch argument ``position`` of ``kernel`` (its facts) is a pointer the kernel
    only writes."""
    if kernel is None or position is None or position >= len(kernel.params):
        return False
    name, kind = kernel.params[position]
    return kind == "pointer" and kernel.writes(name) and not kernel.reads(name)
