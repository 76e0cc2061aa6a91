"""``s2s fuse``: fuse the kernels of CUDA launch sequences (issue 8).

Per host function: launch runs (``fuse_graph``), kernel classes (``fuse_kernels``), the
span-layered plan (``fuse_plan``), then edits: the fused kernels go after the last fused
kernel's definition, the last launch of each group becomes the fused launch, the other
launches of the group are deleted, and buffers that no longer exist in global memory lose
their ``cudaMalloc``/``cudaFree`` statements. ``--explain`` (notes with id ``fuse-explain``)
lists every kernel's class and every fusion made or refused with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from s2s.analysis.fuse import plan as fuse_plan
from s2s.analysis.fuse.graph import add_checks, find_runs, header_helpers, mentions_in_calls
from s2s.analysis.fuse.kernels import kernel_facts
from s2s.analysis.fuse.resources import resource_usage
from s2s.analysis.host_eval import EvalError, as_dim3, declare_facts, evaluate_tree, host_trees
from s2s.diagnostics import Diagnostic
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.frontend.extract import Loaded
from s2s.frontend.headers import device_headers
from s2s.model import kernel_ir as ir
from s2s.model.cuda import Launch
from s2s.transform import fuse_codegen, registry
from s2s.transform.check import EditGroup
from s2s.transform.fuse_through import helper_models, through_wrappers
from s2s.transform.included_sources import left_in_included_sources

EXPLAIN_ID = "fuse-explain"
#: a run's rewrite that does not compile (not emitted)
INVALID_ID = "fuse-invalid"
#: launches a run leaves unfused, with the reasons (a warning at default verbosity)
UNFUSED_ID = "fuse-unfused"
#: how the plan's reasons about recomputing a producer in its consumers begin
RECOMPUTE = "recomputation: "


def run_fuse(loaded: Loaded) -> PassOutput:
    """The fusions of the file's launch runs, also through calls of launch wrappers
    (:mod:`s2s.transform.fuse_wrappers`)."""
    if loaded.model is None or loaded.model.language != "cuda":
        return _fuse_file(loaded)
    helpers = helper_models(loaded)       # their error checks and pure helpers end no run
    add_checks(loaded.model, *header_helpers(helpers))
    out = _fuse_file(loaded)
    return through_wrappers(loaded, out, _fuse_file, UNFUSED_ID, EXPLAIN_ID, INVALID_ID, helpers)


def _fuse_file(loaded: Loaded) -> PassOutput:
    model, source = loaded.model, loaded.source
    if model.language != "cuda":
        return PassOutput()
    headers = _kernel_headers(loaded)
    facts = kernel_facts(model, tuple(h.model for h in headers))
    launched = {launch.kernel for launch in model.launches}
    notes = [
        Diagnostic.note(f"kernel {name}: {f.kind} ({f.detail})", EXPLAIN_ID, f.kernel.span)
        for name, f in facts.items() if f.kernel.span.file == loaded.path or f.name in launched]
    notes += left_in_included_sources(loaded, "fuse", UNFUSED_ID)
    sources = {h.path: h.source for h in headers}
    lone: list = []
    runs = find_runs(model, source, facts, lone)
    several, left = len(model.launches) > 1, 0     # launches left unfused, for the summary
    if several:
        said = _outside_runs(model, runs, lone)
        notes += said
        left += len(said)
    for run in runs:
        if run.after:
            why = (f"not fused with the launches before it: {run.after} ends the launch run "
                   "there (only error checks and default-stream synchronizations go between "
                   "fused launches)")
            notes.append(Diagnostic.note(why, EXPLAIN_ID, run.nodes[0].launch.span))
            if several and len(run.nodes) == 1:
                left += 1
                notes.append(Diagnostic.warning(f"launch of {run.nodes[0].launch.kernel} in "
                                                f"'{run.function}' {why}", UNFUSED_ID,
                                                run.nodes[0].launch.span))
        elif several and len(run.nodes) == 1 and len(model.in_function("launches", run.function)) > 1:
            left += 1
            notes.append(_lone_run_warning(run))
        elif several and len(model.in_function("launches", run.function)) == 1:
            left += 1
            notes.append(Diagnostic.warning(
                f"launch of {run.nodes[0].launch.kernel} is the only launch of "
                f"'{run.function}': launches of different host functions are not fused (a "
                "wrapper function's launch is not followed to its calls)", UNFUSED_ID,
                run.nodes[0].launch.span))
    runs = [r for r in runs if len(r.nodes) > 1]
    usage = None
    if runs:
        usage = resource_usage(source, loaded.path, tuple({f.name: 0 for f in facts.values()}))
        if usage is None:
            notes.append(Diagnostic.note("resource limits not checked: nvcc --resource-usage "
                                         "unavailable", EXPLAIN_ID))
    # a fused kernel whose text (but for its name) another run of the file made already is
    # that kernel: one definition, launched from both places (each run's edit group inserts
    # the same text at the same place, and identical insertions are one edit, so either run
    # stands alone if the other's rewrite is dropped); not one with a last-block ticket (a
    # global counter two concurrent launches would share)
    counter, planned, made = 0, [], {}
    values = HostValues(model, source)
    for run in runs:
        ctx = context(model, source, run, facts, usage, values)
        ctx.sources = sources
        groups, decisions = fuse_plan.plan_run(ctx)
        for decision in decisions:
            verb = "fused" if decision.made else "not fused"
            at = ctx.node(int(decision.nodes[0].split("#")[1])).launch.span
            notes.append(Diagnostic.note(f"{verb}: {' + '.join(decision.nodes)}: "
                                         f"{decision.reason}", EXPLAIN_ID, at))
        unfused, said = _unfused(ctx, groups, decisions)
        notes += said
        left += unfused
        kernels, edits = [], []
        dropped = frozenset(b for g in groups if g.fused for b in g.dead) | frozenset(
            rec.producer.buffer for rec in ctx.recompute.values())
        for group in groups:
            if not group.fused:
                continue
            text = fuse_codegen.fused_kernel_text(ctx, group, _UNNAMED)
            key = _renamed_buffers(ctx, group, text)
            name = made.get(key) if group.tail is None else None
            if name is None:
                name = f"s2s_fused_{counter}"
                counter += 1
                made.setdefault(key, (name, text))
            else:
                name, text = name
            launch = fuse_codegen.launch_text(ctx, group, name)
            kernels.append((text.replace(_UNNAMED, name), "s2s_count(" in launch,
                            _after_kernels(ctx, group, loaded.path),
                            fuse_codegen.fused_prototype(ctx, group, name)))
            edits += _host_edits(ctx, group, name, launch, dropped)
        for rec in ctx.recompute.values():
            edits.append(_delete_statement(source, ctx.node(rec.producer.index).stmt.span))
            edits += _buffer_edits(ctx, rec.producer.buffer, dropped)
        if kernels:
            planned.append((run, kernels, edits, _line_start(source, model.function(run.function).span.start)))
    edits, groups = _checked_groups(loaded.path, planned, source)
    return PassOutput(edits, tuple(notes), groups, check_compiles=True,
                      counts=(("left unfused", left),) if several else ())


#: the fused kernel's name while its text is compared with the kernels made before
_UNNAMED = "s2s_fused_unnamed"
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _renamed_buffers(ctx: fuse_plan.Context, group, text: str) -> str:
    """The fused kernel's text with the names bound to the buffers made placeholders by
    position: each buffer parameter of the ``__global__`` kernel (``y`` -> ``@b0``, there
    only: a stage is a function of its own whose body names its kernel's parameters) and
    its register (``s2s_y`` -> ``@r0``, a variable of the kernel and a parameter of the
    stages, every mention alike). Two runs whose texts are then equal differ only in the
    names of the buffers they pass (a time step's branches with the buffers swapped): one
    kernel runs both. Any other difference keeps them apart."""
    receivers = fuse_codegen.buffer_receivers(ctx, [*group.nodes])
    names = [n for _t, n in fuse_codegen.kernel_params(ctx, group)[0] if n in receivers]
    registers = {fuse_codegen.var(b): f"@r{k}" for k, b in enumerate(names)}
    buffers = {**registers, **{b: f"@b{k}" for k, b in enumerate(names)}}
    at = text.find(f"__global__ void {_UNNAMED}(")
    if at < 0:
        return text
    return _IDENTIFIER.sub(lambda m: registers.get(m.group(0), m.group(0)), text[:at]) + \
        _IDENTIFIER.sub(lambda m: buffers.get(m.group(0), m.group(0)), text[at:])


def _lone_run_warning(run) -> Diagnostic:
    """The warning for a launch alone in its run that nothing before it ended (issue 29, item
    6: no silent pass): what ends the run after it, or its block."""
    launch = run.nodes[0].launch
    why = f"{run.ended} ends its launch run" if run.ended else \
        f"it is the only launch of its block ({run.block or 'a loop or branch body, or a block of its own'}"\
        f"{_branch_note(run.block)})"
    return Diagnostic.warning(f"launch of {launch.kernel} in '{run.function}' is not fused with another "
                              f"launch: {why}", UNFUSED_ID, launch.span)


def _branch_note(block: str) -> str:
    """Why a lone launch of a branch is not fused with the launch after the branch
    statement (cuda-samples boxFilter: ``if (c) { a<<<>>>(t); } else { a<<<>>>(u); }
    b<<<>>>();``): fuse fuses the launches of one block only."""
    if "branch of the if statement" not in block:
        return ""
    return ("; a launch is fused only with launches of its own block, and the launches "
            "after the if statement are not copied into its branches")


def _outside_runs(model, runs, lone: list) -> list[Diagnostic]:
    """A warning for each launch that joins no launch run, with what keeps it out."""
    in_runs = {node.launch.span.start for run in runs for node in run.nodes}
    why = {launch.span.start: reason for launch, reason in lone}
    return [Diagnostic.warning(
        f"launch of {launch.kernel} in '{launch.function}' is not fused: "
        + why.get(launch.span.start, "it is not a statement of its own in a block") +
        " (a run is made of statements that are each one launch)", UNFUSED_ID, launch.span)
        for launch in model.launches if launch.span.start not in in_runs]


def _unfused(ctx: fuse_plan.Context, groups, decisions) -> tuple[int, list[Diagnostic]]:
    """How many launches of the run its plan leaves unfused, and one warning for a launch run whose plan leaves launches unfused (issue 29, item 6: no
    silent pass), naming them and the reasons the plan gave for each refused fusion of
    them: the dependence, the resource limit, the kernel it cannot model."""
    fused = {i for g in groups if g.fused for i in g.nodes} | set(ctx.recompute)
    left = [node for node in ctx.run.nodes if node.index not in fused]
    if not left:
        return 0, []
    names = {node.name for node in left}
    refused = [d.reason for d in decisions if not d.made and names & set(d.nodes)]
    plain = [r for r in refused if not r.startswith(RECOMPUTE)]
    # the plan's own reasons (the dependence) first; why recomputing a producer did not help
    # after them, unless it says the same
    reasons = list(dict.fromkeys(plain + [r for r in refused if r.startswith(RECOMPUTE)
                                          and r.removeprefix(RECOMPUTE) not in plain]))
    why = "; ".join(reasons) if reasons else "no fusion of them is both legal and cheaper"
    listed = ", ".join(node.name for node in left)
    return len(left), [Diagnostic.warning(f"{len(left)} of {len(ctx.run.nodes)} launches of a run in "
                               f"'{ctx.run.function}' left unfused ({listed}): {why}",
                               UNFUSED_ID, left[0].launch.span)]


def _kernel_headers(loaded: Loaded) -> tuple[Loaded, ...]:
    """The project headers with device code (in the file's context) when the file launches
    a kernel it does not define."""
    model = loaded.model
    if all((kernel := model.kernel(launch.kernel)) is not None and kernel.body_span is not None
           for launch in model.launches):
        return ()
    return device_headers(loaded)


def _after_kernels(ctx: fuse_plan.Context, group, path: str) -> int:
    """Where the fused kernel may go: after the last of the group's kernels the file defines;
    kernels of a project header are included before the launching function, so they put it
    at that function's start at the latest."""
    ends = []
    for i in group.nodes:
        span = ctx.node(i).facts.kernel.span
        ends.append(span.end if span.file == path else
                    _line_start(ctx.source, ctx.unit.function(ctx.run.function).span.start))
    return max(ends)


def _checked_groups(path: str, planned: list, source: bytes) -> tuple[tuple, tuple]:
    """All edits, and one group per run: its fused kernels, launches and deleted statements
    stand or fall together (the driver drops a run whose rewrite does not compile, with a
    ``fuse-invalid`` warning, and the file exits 1). Every fused kernel goes after the last
    kernel any group fuses, in the order the groups were made; the host helpers go with
    each run that needs them (identical insertions are merged). Where the launching function
    comes before that place (``main`` first, kernels defined after it), the helpers and a
    prototype of each fused kernel go before the function, as the program's own prototypes
    do."""
    anchor = max((k[2] for _run, kernels, _edits, _at in planned for k in kernels), default=0)
    edits, groups = [], []
    for run, kernels, host, function_at in planned:
        mine = []
        early = function_at < anchor
        for text, helpers, _end, prototype in kernels:
            if helpers:
                at = function_at if early else anchor
                mine.append(_insert(path, source, at, fuse_codegen.HOST_HELPERS))
            if early:
                mine.append(Edit(path, function_at, 0, prototype + "\n\n"))
            mine.append(_insert(path, source, anchor, text))
        mine += host
        first = run.nodes[0]
        groups.append(EditGroup(f"the fusion of the launches from {first.name} in "
                                f"'{run.function}'", tuple(mine), first.launch.span,
                                INVALID_ID))
        edits += mine
    return tuple(edits), tuple(groups)


def _insert(path: str, source: bytes, at: int, text: str) -> Edit:
    """``text`` as its own paragraph at ``at``: after a kernel's closing brace, or before
    the line that starts there (a function's first line)."""
    text = text.rstrip("\n")
    if at == 0 or source[at - 1:at] == b"\n":
        return Edit(path, at, 0, text + "\n\n")
    return Edit(path, at, 0, "\n\n" + text)


def context(model, source: bytes, run, facts, usage, values: HostValues | None = None
            ) -> fuse_plan.Context:
    """The planning context of ``run``; ``values`` carries what the runs of one file share
    (a fresh one is made when it is left out)."""
    if values is None:
        values = HostValues(model, source)
    env = values.env_before(run.function, run.nodes[0].stmt.span.start)
    sizes = _AllocSizes(*values.allocations(run.function), dict(env))
    threads = {}
    for node in run.nodes:
        block = values.trees.config(node.launch, 1)
        try:
            threads[node.config[1]] = as_dim3(evaluate_tree(block, env)).count
        except (EvalError, TypeError):
            continue
    return fuse_plan.Context(model, source, run, facts, sizes, usage, threads)


class HostValues:
    """Host values the runs of one file are planned with, from the AST (``HostDecl``,
    ``HostArg``: clang folded the macros and ``sizeof``): per function, the declarations
    evaluated so far and the ``cudaMalloc`` size trees.

    Each run used to evaluate every declaration before it and every allocation of its
    function again (quadratic in the length of a function with many runs); the runs of a
    function come in source order, so its declarations are evaluated once, going forward.
    """

    def __init__(self, model, source: bytes):
        self.model, self.source = model, source
        self.trees = host_trees(model)
        self._progress: dict[str, tuple[int, int, dict]] = {}  # function -> (first, next, env)
        self._allocations: dict[str, tuple[list[tuple[str, object]], dict[str, list[object]]]] = {}

    def env_before(self, function_name: str, first: int) -> dict:
        """The values of the top-level declarations of the function that start before byte
        ``first`` (the caller must not change the dict)."""
        decls = self.trees.declarations(function_name, first)
        last, k, env = self._progress.get(function_name, (-1, 0, None))
        if env is None or first < last:
            k, env = 0, {}
        declare_facts(decls[k:], env)
        self._progress[function_name] = (first, len(decls), env)
        return env

    def allocations(self, function_name: str) -> tuple[list[tuple[str, object]], dict[str, list[object]]]:
        """(target, size tree) of the function's allocation calls in order, and the size
        trees by target (the target is the variable whose address the call takes)."""
        found = self._allocations.get(function_name)
        if found is None:
            ordered = [(target, self.trees.argument(call.span, call.name, 1))
                       for call in self.model.in_function("api_calls", function_name)
                       if call.category == "alloc" and len(call.args) >= 2
                       for target in [_address_target(self.trees.argument(call.span, call.name, 0))]
                       if target is not None]
            by_target: dict[str, list[str]] = {}
            for target, text in ordered:
                by_target.setdefault(target, []).append(text)
            found = self._allocations[function_name] = (ordered, by_target)
        return found


class _AllocSizes(Mapping):
    """Buffer -> bytes of its allocation, evaluated on demand in ``env``: the last allocation
    of the buffer whose size evaluates, as filling a dict in order over all of them gives
    (the planner looks up only the buffers of the run)."""

    def __init__(self, allocations: list[tuple[str, object]], by_target: dict[str, list[object]],
                 env: dict):
        self._allocations, self._by_target, self._env = allocations, by_target, env
        self._values: dict[str, int | None] = {}

    def _value(self, tree) -> int | None:
        try:
            return int(evaluate_tree(tree, self._env))
        except (EvalError, TypeError, ValueError):
            return None

    def __getitem__(self, target: str) -> int:
        if target not in self._values:
            value = None
            for tree in reversed(self._by_target.get(target, ())):
                value = self._value(tree)
                if value is not None:
                    break
            self._values[target] = value
        value = self._values[target]
        if value is None:
            raise KeyError(target)
        return value

    def __iter__(self) -> Iterator[str]:
        seen = set()
        for target, text in self._allocations:  # in the order the dict got its keys
            if target not in seen and self._value(text) is not None:
                seen.add(target)
                yield target

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _host_edits(ctx: fuse_plan.Context, group: fuse_plan.Group, name: str, launch: str,
                dropped: frozenset = frozenset()) -> list[Edit]:
    """The fused launch in place of the group's last launch, the other launches deleted, and
    the buffers only the group used (``dropped``: every buffer the run's edits drop)."""
    edits = []
    last = ctx.node(group.nodes[-1]).launch
    edits.append(Edit(last.span.file, last.span.start, last.span.length, launch))
    for i in group.nodes[:-1]:
        edits.append(_delete_statement(ctx.source, ctx.node(i).stmt.span))
    for buffer in sorted(group.dead):
        edits += _buffer_edits(ctx, buffer, dropped)
    return edits


def _buffer_edits(ctx: fuse_plan.Context, buffer: str, dropped: frozenset = frozenset()
                  ) -> list[Edit]:
    """Deletion of the ``cudaMalloc`` and ``cudaFree`` statements of ``buffer``, and of its
    declarator (``dropped``: the other buffers whose declarators go with it)."""
    edits = _release_edits(ctx, buffer)
    edits += _declaration_edits(ctx, buffer, list(edits), dropped)
    return edits


def _release_edits(ctx: fuse_plan.Context, buffer: str) -> list[Edit]:
    """Deletion of the statements of the allocation calls given ``&buffer`` first and of the
    release calls given ``buffer`` first, found from the AST's mentions of the buffer inside
    calls (casts and parentheses looked through: ``cudaMalloc((void **)&d, n)``)."""
    edits = []
    for call, use in mentions_in_calls(ctx.unit, ctx.run.function).get(buffer, ()):
        if isinstance(call, Launch) or use.call != call.name or use.position != 0:
            continue
        if (call.category, use.role) in (("alloc", "address"), ("free", "argument")):
            stmt = _statement_of(ctx, call.span)
            if stmt is not None:
                edits.append(_delete_statement(ctx.source, stmt.span))
    return edits


def _declaration_edits(ctx: fuse_plan.Context, buffer: str, deleted: list[Edit],
                       dropped: frozenset) -> list[Edit]:
    """The deletion of ``buffer``'s declarator when nothing is left to use it (every other
    mention is in a statement ``deleted`` removes or in an argument of a launch of the run,
    which the fused launch no longer passes): left in place, nvcc warns that it is declared
    but never referenced. The whole statement when it declares the buffer alone or only
    buffers the run drops (``float *d_v, *d_w;``: the last one's edit takes it), else the
    declarator with its comma (``float *d_a, *d_t, *d_b;`` -> ``float *d_a, *d_b;``); the
    first of several only when the next one is written with the same ``*`` (``float *d_t,
    *d_b;`` -> ``float *d_b;``, but ``float *d_t, n;`` stays). Only a declarator without a
    value or with a null one; none when the buffer is mentioned anywhere else."""
    mine = _unused_declarator(ctx, buffer, deleted)
    if mine is None:
        return []
    at = mine.span
    stmt = next((s for s in ctx.unit.function(ctx.run.function).body.walk()
                 if s.kind == "decl" and s.span.start <= at.start and at.end <= s.span.end), None)
    if stmt is None:
        return []
    names = sorted((u for u in ctx.unit.in_function("var_uses", ctx.run.function)
                    if u.role in ("declare", "null-init", "init")
                    and stmt.span.start <= u.span.start < stmt.span.end),
                   key=lambda u: u.span.start)
    if len(names) == 1:
        return [_delete_statement(ctx.source, stmt.span)]
    k = names.index(mine)
    if _all_dropped(ctx, names, mine, dropped):
        return [_delete_statement(ctx.source, stmt.span)] if k == len(names) - 1 else []
    if k == 0 and names[1].name in dropped:
        return []                     # its deletion takes the comma this one's would take
    return _declarator_edit(ctx.source, stmt.span, names, k)


def _unused_declarator(ctx: fuse_plan.Context, buffer: str, deleted: list[Edit]):
    """``buffer``'s one declarator (without a value or with a null one) when every other
    mention of it is in a statement ``deleted`` removes or in a launch of the run; else None."""
    uses = [u for u in ctx.unit.in_function("var_uses", ctx.run.function) if u.name == buffer]
    mine = [u for u in uses if u.role in ("declare", "null-init")]
    if len(mine) != 1 or len({u.decl for u in uses}) != 1 or mine[0].span.macro is not None:
        return None
    inside = [(e.offset, e.offset + e.length) for e in deleted] + \
        [(node.launch.span.start, node.launch.span.end) for node in ctx.run.nodes]
    for use in uses:
        if use is not mine[0] and not any(lo <= use.span.start and use.span.end <= hi
                                          for lo, hi in inside):
            return None
    return mine[0]


def _all_dropped(ctx: fuse_plan.Context, names: list, mine, dropped: frozenset) -> bool:
    """Whether every declarator ``names`` of one statement is a buffer the run drops whose
    declarator can go (each checked as ``mine`` was)."""
    return all(u is mine or u.name in dropped and
               _unused_declarator(ctx, u.name, _release_edits(ctx, u.name)) == u
               for u in names)


def _declarator_edit(source: bytes, span, names: list, k: int) -> list[Edit]:
    """The deletion of the ``k``-th of the declarators ``names`` of one declaration statement
    (:func:`_declaration_edits`), or none when its text is not the plain form."""
    name = names[k].span
    if k == 0:
        after = names[1].span
        comma = source.rfind(b",", name.end, after.start)
        if comma < 0:
            return []
        stars = _bare(source[comma + 1:after.start])
        before = source[span.start:name.start]
        kind = before.rstrip(b"*& \t\n")
        if stars.strip(b"*&") or _bare(before[len(kind):]) != stars or not kind.strip():
            return []
        return [Edit(span.file, name.start, after.start - name.start, "")]
    comma = source.rfind(b",", names[k - 1].span.end, name.start)
    if comma < 0 or source[comma + 1:name.start].strip(b" \t*&"):
        return []
    end = name.end
    if names[k].role == "null-init":
        ends = [i for i in (source.find(b",", end, span.end), source.find(b";", end, span.end + 1))
                if i >= 0]
        if not ends:
            return []
        end = min(ends)
    return [Edit(span.file, comma, end - comma, "")]


def _bare(text: bytes) -> bytes:
    return b"".join(text.split())


def _address_target(tree) -> str | None:
    """``d`` of an argument ``&d`` (casts allowed: ``(void **)&d``), from its tree."""
    while isinstance(tree, ir.Cast):
        tree = tree.operand
    if isinstance(tree, ir.Unary) and tree.op == "&" and isinstance(tree.operand, ir.Var):
        return tree.operand.name
    return None


def _line_start(source: bytes, offset: int) -> int:
    return source.rfind(b"\n", 0, offset) + 1


def _statement_of(ctx: fuse_plan.Context, span):
    function = ctx.unit.function(ctx.run.function)
    best = None
    for stmt in function.body.walk():
        if stmt.kind == "expr" and stmt.span.start <= span.start and span.end <= stmt.span.end:
            best = stmt
    return best


def _delete_statement(source: bytes, span) -> Edit:
    """Remove the statement with its line when nothing else is on it (its ``;`` included)."""
    start, end = span.start, span.end
    while end < len(source) and source[end:end + 1] in (b" ", b"\t"):
        end += 1
    if source[end:end + 1] == b";":
        end += 1
    line_start = source.rfind(b"\n", 0, start) + 1
    line_end = source.find(b"\n", end)
    line_end = len(source) if line_end < 0 else line_end
    if not source[line_start:start].strip() and not source[end:line_end].strip():
        return Edit(span.file, line_start, line_end + 1 - line_start, "")
    return Edit(span.file, start, end - start, "")


registry.register("fuse", run_fuse)
