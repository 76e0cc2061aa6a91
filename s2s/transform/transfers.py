"""``s2s transfers``: pooled allocations and fused copies in CUDA host code (issue 7).

For every host function with a straight-line region (see
:mod:`s2s.analysis.transfers.host_code`), the optimizer plans when each value moves
(:func:`~s2s.analysis.transfers.optimize`, exact optimum, ``tight`` timing) and
:mod:`~s2s.analysis.transfers.host_plan` lays the operands out in slots. The edits:

* a block of ``const size_t s2s_off_<buffer>`` offsets (aligned to :data:`ALIGNMENT`) and
  the pool sizes before the first pooled allocation;
* one ``malloc`` for the host pool; each pooled ``malloc(size)`` becomes its slot (NULL when
  the pool failed, so the program's own checks still see a failure);
* one ``cudaMalloc`` for the device pool where the first pooled one was, with the same error
  check wrapper; each pooled ``cudaMalloc`` becomes an assignment of its slot;
* the program's ``cudaMemcpy`` calls are removed and the planned messages inserted, one
  ``cudaMemcpy`` per run of consecutive slots (wrapped like the program's copies were);
* pooled ``free``/``cudaFree`` calls are removed; the last one frees the pool.

Whole statements are replaced, also when they are a call of an error-checking macro
(``CHECK(cudaMalloc(...))``): the macro call is text in the file, its definition is never
touched. Refusals become warnings with the refusal's id; ``--explain`` adds notes
(``transfers-explain``) saying what moved where and what it saved.
"""

from __future__ import annotations

from s2s.analysis.transfers.graph import Direction
from s2s.analysis.transfers.host_code import (
    PINNED_ALLOCS,
    HostRegion,
    RegionStatement,
    find_regions,
    planned_before,
)
from s2s.analysis.transfers.host_exits import check_plan, check_seen_values
from s2s.analysis.transfers.host_frames import framed
from s2s.analysis.transfers.host_plan import HostPlan, Message, plan_region
from s2s.analysis.transfers.region import DEVICE_POOL, HOST, HOST_POOL
from s2s.diagnostics import Diagnostic, UnsupportedConstruct
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.frontend.extract import Loaded, host_helper_headers
from s2s.model import SourceSpan
from s2s.transform import registry
from s2s.transform.included_sources import TRANSFERS_ID, left_in_included_sources
from s2s.transform.mgpu_table import includes_its_table
from s2s.transform.transfers_through import through_copy_wrappers

EXPLAIN_ID = "transfers-explain"
ALIGNMENT = 256


#: the calls of a .cu file included as text that transfers would have merged
INCLUDED_COPY_CALLS = frozenset({"cudaMemcpy", "cudaMalloc", "cudaFree"})


def run_transfers(loaded: Loaded) -> PassOutput:
    """The plan of the file's copies and allocations, also through calls of copy wrappers
    (:mod:`s2s.transform.transfers_through`)."""
    out = _transfers_file(loaded)
    if loaded.model is None or loaded.model.language != "cuda":
        return out
    return through_copy_wrappers(loaded, out, _transfers_file, EXPLAIN_ID)


def _transfers_file(loaded: Loaded) -> PassOutput:
    model, source = loaded.model, loaded.source
    if model.language != "cuda":
        return PassOutput()
    routed = _runtime_calls(loaded)
    if routed:
        return PassOutput((), (Diagnostic.warning(
            f"'cuda{routed[0].name}' here is s2s_mgpu::{routed[0].name}, the s2s multi-GPU runtime's (the file "
            f"is an s2s mgpu rewrite: its "
            f"{len(routed)} CUDA memory calls go to the runtime through the macros of s2s_mgpu.h), which "
            "transfers does not plan; the file is left as it is (run transfers before mgpu: --passes "
            "transfers,mgpu)", "transfers-unsupported-call", routed[0].span),))
    regions, refusals = find_regions(model, source, _headers_in_sight(loaded))
    diagnostics = [_warning(r) for r in refusals]
    diagnostics += [Diagnostic.note(f"'{name}' holds the pools of an earlier s2s transfers run "
                                    f"('{span.text(source)}'): its copies and allocations are "
                                    "planned already; left as it is", EXPLAIN_ID, span)
                    for name, span in planned_before(model).items()]
    diagnostics += left_in_included_sources(loaded, "transfers", TRANSFERS_ID,
                                            INCLUDED_COPY_CALLS)
    edits: list[Edit] = []
    for region in regions:
        diagnostics += [Diagnostic.warning(
            f"'{name}' stays out of the pools of '{region.function}': the call here runs '{unseen}', whose "
            "body is not in this file or a header it includes, and may read, write, free or re-point it "
            "(its copies stay on their side of the call)", "transfers-escape", span)
            for name, unseen, span in region.kept_out]
        try:
            host_plan = plan_region(region)
            check_plan(region.function, region.exits, [m.boundary for m in host_plan.messages],
                       region.statements)
            if moves_copies(host_plan):     # (else the program's copies stay as written)
                check_seen_values(region.function, region.exits, region.statements, region.ops,
                                  region.seen_by_caller, _written_by_messages(host_plan))
        except UnsupportedConstruct as refusal:
            diagnostics.append(_warning(refusal))
            continue
        bodies, refused = _body_plans(host_plan)
        diagnostics += [_warning(r) for r in refused]
        if not any(_worth_it(p) for p in (host_plan, *bodies)):
            diagnostics.append(Diagnostic.note(
                f"'{region.function}': nothing merges: {host_plan.copies_before} cudaMemcpy calls, "
                f"{host_plan.device_allocs_before} cudaMalloc calls and {host_plan.host_allocs_before} host "
                "allocations stay (the copies move at different points, or their buffers stay out of the "
                "pools)", EXPLAIN_ID, region.statements[0].stmt.span))
            continue
        for plan in (host_plan, *bodies):
            edits += region_edits(plan, source)
            diagnostics += _explain(plan)
    return PassOutput(tuple(edits), tuple(diagnostics), check_compiles=True)


#: what ``cudaMalloc``, ``cudaMemcpy``... are after an mgpu rewrite (``s2s_mgpu.h``'s macros)
RUNTIME_MEMORY_CALLS = frozenset({"Malloc", "Free", "Memcpy", "MemcpyAsync", "MallocHost", "HostAlloc",
                                  "FreeHost", "Memset", "MemsetAsync"})


def _runtime_calls(loaded: Loaded) -> list:
    """The memory calls of a file s2s mgpu rewrote (it includes its kernel table), which its
    prologue's macros hand to the runtime: library calls (``CallSite.system``: declared in
    ``s2s_mgpu.h``) of the runtime's names. Planning them would take the runtime's
    allocations for CUDA's (a pool's slots inside one runtime allocation); before, the pass
    found no CUDA call and said nothing."""
    model = loaded.model
    if not includes_its_table(loaded.path, model.project_headers):
        return []
    return [c for f in model.functions for c in f.calls if c.system and c.name in RUNTIME_MEMORY_CALLS]


def _headers_in_sight(loaded: Loaded) -> tuple:
    """The models of the project headers whose functions a call of the file may run: those
    with device code, and, where the file's host code names a global it allocates or copies
    and calls a function defined in neither, the headers of host code only that name such a
    function (a second parse of the file, only then: ``host_calls.reached`` takes a function
    it cannot see for one that reads and writes every global buffer)."""
    model = loaded.model
    headers = tuple(h.model for h in loaded.headers if h.model is not None)
    if not any(not u.local and u.call in GLOBAL_BUFFER_CALLS for u in model.var_uses):
        return headers
    defined = {f.name for m in (model, *headers) for f in m.functions if f.body is not None}
    unseen = frozenset(c.name for f in model.functions for c in f.calls
                       if not c.system and c.name not in defined)
    if not unseen:
        return headers
    return headers + tuple(h.model for h in host_helper_headers(loaded, unseen, b"")
                           if h.model is not None)


#: the calls whose arguments name the region buffers that a global may be
GLOBAL_BUFFER_CALLS = frozenset({"cudaMalloc", "cudaMemcpy", "cudaMemcpyAsync", "cudaFree"})


def _written_by_messages(plan: HostPlan) -> list[tuple[str, int]]:
    """(buffer written, boundary) for each operand of each planned copy."""
    return [(op.device if message.direction is Direction.UP else op.host, message.boundary)
            for message in plan.messages for op in (plan.operands[o] for o in message.operands)]


def _body_plans(plan: HostPlan) -> tuple[list[HostPlan], list[UnsupportedConstruct]]:
    """The plans of the bodies of the region's loops that copy, in the region's slot order; a
    body that cannot be planned keeps its copies as written (its buffers' variables still
    name their slots)."""
    fixed = tuple((plan.operands[o].host, plan.operands[o].device) for o in plan.slots)
    plans, refused = [], []
    for body in plan.region.loops:
        try:
            plans.append(plan_region(body, fixed))
        except UnsupportedConstruct as refusal:
            refused.append(refusal)
    return plans, refused


def plan_file(loaded: Loaded) -> tuple[list[HostPlan], list[UnsupportedConstruct]]:
    """The host plans of a file, a function's loop bodies after it (for the benchmark and tests)."""
    regions, refusals = find_regions(loaded.model, loaded.source)
    plans = []
    for region in regions:
        try:
            plans.append(plan_region(region))
        except UnsupportedConstruct as refusal:
            refusals.append(refusal)
            continue
        bodies, refused = _body_plans(plans[-1])
        plans += bodies
        refusals += refused
    return plans, refusals


def _warning(refusal: UnsupportedConstruct) -> Diagnostic:
    d = refusal.diagnostic
    return Diagnostic.warning(d.message, d.id, d.location)


def _worth_it(plan: HostPlan) -> bool:
    return plan.copies_after < plan.copies_before or plan.device_allocs_after < plan.device_allocs_before \
        or plan.host_allocs_after < plan.host_allocs_before


# -- text -------------------------------------------------------------------------------


def _buffer_name(plan: HostPlan, operand: int, space: str = HOST) -> str:
    """The operand's buffer in ``space`` (a slot's offset and size are its host buffer's: a
    buffer has one place even when it pairs with several others; a device-tail entry's are
    its device buffer's, never those of a host partner that is not pooled: it may be declared
    after the pools are made)."""
    op = plan.operands[operand]
    name = op.host if space == HOST else op.device
    return name or op.host or op.device


def _offset_name(plan: HostPlan, operand: int, space: str = HOST) -> str:
    """``s2s_off_<buffer>``; an element ``d[1]`` of an array of device pointers: ``s2s_off_d_1``."""
    return "s2s_off_" + _buffer_name(plan, operand, space).replace("[", "_").replace("]", "")


def _size(plan: HostPlan, operand: int, space: str = HOST) -> str:
    return plan.region.sizes[_buffer_name(plan, operand, space)]


def _offset_of(plan: HostPlan) -> dict[str, str]:
    """Pooled buffer -> its offset variable."""
    found = {}
    for operand in plan.slots:
        op = plan.operands[operand]
        found[op.host] = found[op.device] = _offset_name(plan, operand)
    for tail, space in ((plan.host_tail, HOST), (plan.device_tail, "device")):
        for operand in tail:
            op = plan.operands[operand]
            found[op.host if space == HOST else op.device] = _offset_name(plan, operand, space)
    return found


def _wrap(wrapper: str | None, call: str) -> str:
    """``call`` as a statement, in the program's error-check macro or ``if`` (``host_frames``)."""
    return framed(wrapper, call) if wrapper else f"{call};"


def _offset_lines(plan: HostPlan) -> list[str]:
    lines = [f"/* s2s transfers: pooled buffers, offsets aligned to {ALIGNMENT} bytes */"]

    def chain(operands, base: str | None, space: str = HOST) -> str | None:
        previous = base
        for operand in operands:
            value = "0" if previous is None else \
                f"({previous} + {ALIGNMENT - 1}) & ~(size_t){ALIGNMENT - 1}"
            lines.append(f"const size_t {_offset_name(plan, operand, space)} = {value};")
            previous = f"{_offset_name(plan, operand, space)} + ({_size(plan, operand, space)})"
        return previous

    shared_end = chain(plan.slots, None)
    host_end = chain(plan.host_tail, shared_end)
    if plan.region.host_pooled:
        lines.append(f"const size_t s2s_host_bytes = {host_end};")
    device_end = chain(plan.device_tail, shared_end, "device")
    if plan.region.device_pooled:
        lines.append(f"const size_t s2s_device_bytes = {device_end};")
        lines.append(f"char *{DEVICE_POOL} = NULL;")
    return lines + _element_offsets(plan)


def _message_text(plan: HostPlan, message: Message, wrapper: str | None) -> str:
    first, last = message.operands[0], message.operands[-1]
    op = plan.operands[first]
    kind = "cudaMemcpyHostToDevice" if message.direction is Direction.UP else "cudaMemcpyDeviceToHost"
    dst, src = (op.device, op.host) if message.direction is Direction.UP else (op.host, op.device)
    if len(message.operands) == 1:  # the program's own size text (both sides were checked equal)
        size = plan.region.sizes[op.host or op.device]
    else:
        size = f"{_offset_name(plan, last)} + ({_size(plan, last)}) - {_offset_name(plan, first)}"
    return _wrap(wrapper, f"cudaMemcpy({dst}, {src}, {size}, {kind})")


# -- edits ------------------------------------------------------------------------------


def region_edits(plan: HostPlan, source: bytes) -> list[Edit]:
    region = plan.region
    statements = region.statements
    inserts: dict[int, list[str]] = {}
    edits: list[Edit] = []
    if region.body_of is not None:  # a loop's body: its copies only, the pools are the function's
        return _copy_edits(plan, source, statements, inserts, edits)
    pooled = region.host_pooled | region.device_pooled
    for moved, target in sorted(region.hoisted.items()):
        entry = statements[moved]
        span = entry.stmt.span
        statement = source[span.start:_statement_end(entry, source)]
        inserts.setdefault(target, []).append(statement.decode("utf-8", "surrogateescape"))
        edits.append(_replace_statement(entry, source, ""))
    first_alloc = min(region.alloc_at[n] for n in pooled) if pooled else None
    if first_alloc is not None:
        inserts.setdefault(first_alloc, []).extend(_offset_lines(plan))
    offset_of = _offset_of(plan)
    if region.host_pooled:
        first_host = min(region.alloc_at[n] for n in region.host_pooled)
        inserts.setdefault(first_host, []).append(f"char *{HOST_POOL} = (char *)malloc(s2s_host_bytes);")
        for name in sorted(region.host_pooled):
            span = region.allocation_spans[name]
            edits.append(Edit(span.file, span.start, span.length,
                              f"({HOST_POOL} ? (void *)({HOST_POOL} + {offset_of[name]}) "
                              ": NULL)"))
    first_device = min((region.alloc_at[n] for n in region.device_pooled), default=None)
    last_device_free = max((region.free_at[n] for n in region.device_pooled), default=None)
    last_host_free = max((region.free_at[n] for n in region.host_pooled), default=None)
    for index, entry in enumerate(statements):
        text = None
        if entry.role == "device-alloc" and entry.buffer in region.device_pooled:
            # ``+d[1]``: the pointer type of an element (``decltype(d[1])`` is a reference)
            typed = f"+{entry.buffer}" if "[" in entry.buffer else entry.buffer
            assign = (f"{entry.buffer} = reinterpret_cast<decltype({typed})>("
                      f"{DEVICE_POOL} + {offset_of[entry.buffer]});")
            text = assign if index != first_device else \
                _wrap(entry.wrapper, f"cudaMalloc((void **)&{DEVICE_POOL}, s2s_device_bytes)") + \
                "\n" + entry.stmt.span.indent + assign
        elif entry.role == "device-free" and entry.buffer in region.device_pooled:
            text = "" if index != last_device_free else _wrap(entry.wrapper, f"cudaFree({DEVICE_POOL})")
        elif entry.role == "host-free" and entry.buffer in region.host_pooled:
            text = "" if index != last_host_free else f"free({HOST_POOL});"
        elif entry.role == "element-loop":
            edits += element_loop_edits(plan, index, source, (first_device, last_device_free), inserts)
        if text is not None:
            edits.append(_replace_statement(entry, source, text))
    return _copy_edits(plan, source, statements, inserts, edits)


def _pooled_arrays(plan: HostPlan) -> dict[str, list[str]]:
    """Arrays of device pointers allocated in an element loop and pooled -> their elements'
    offset variables, in index order (``host_slices``)."""
    region = plan.region
    found: dict[str, list[str]] = {}
    for entry in region.statements:
        for _child, call, array, *_ in entry.parts if entry.role == "element-loop" else ():
            if call.name == "cudaMalloc" and f"{array}[0]" in region.device_pooled:
                count = sum(name.startswith(array + "[") for name in region.sizes)
                found[array] = [f"s2s_off_{array}_{k}" for k in range(count)]
    return found


def _element_offsets(plan: HostPlan) -> list[str]:
    """``const size_t s2s_off_d[3] = {s2s_off_d_0, ...};``: the slot of ``d[k]`` for the
    assignments inside an element loop."""
    return [f"const size_t s2s_off_{array}[{len(names)}] = {{{', '.join(names)}}};"
            for array, names in _pooled_arrays(plan).items()]


def element_loop_edits(plan: HostPlan, index: int, source: bytes, device_ends: tuple,
                       inserts: dict[int, list[str]]) -> list[Edit]:
    """An element loop's pooled ``cudaMalloc(&d[k], ..)`` become ``d[k] = <its slot>`` (the
    pool is made before the loop when it is the first pooled allocation), its pooled
    ``cudaFree(d[k])`` go (the pool is freed after the loop when it is the last pooled free;
    a loop left with nothing to do goes whole). Copies and fills in it stay."""
    entry = plan.region.statements[index]
    first_device, last_device_free = device_ends
    pooled = _pooled_arrays(plan)
    edits, removed, pool_free, pool_made = [], 0, None, False
    for child, call, array, element, wrapper in entry.parts:
        if array not in pooled or call.name not in ("cudaMalloc", "cudaFree"):
            continue
        if call.name == "cudaMalloc":
            if index == first_device and not pool_made:   # (once: the loop may allocate two arrays)
                pool_made = True
                inserts.setdefault(index, []).append(
                    _wrap(wrapper, f"cudaMalloc((void **)&{DEVICE_POOL}, s2s_device_bytes)"))
            slot = element[len(array):]
            text = f"{element} = reinterpret_cast<decltype(+{element})>({DEVICE_POOL} + s2s_off_{array}{slot});"
            edits.append(_replace_statement(RegionStatement(child, "device-alloc"), source, text))
            continue
        if index == last_device_free and pool_free is None:
            pool_free = _wrap(wrapper, f"cudaFree({DEVICE_POOL})")
        edits.append(_replace_statement(RegionStatement(child, "device-free"), source, ""))
        removed += 1
    body = entry.stmt.body
    if removed and removed == len(body.children if body.kind == "block" else (body,)):
        return [_replace_statement(entry, source, pool_free or "")]   # nothing left to loop over
    if pool_free is not None:
        inserts.setdefault(index + 1, []).append(pool_free)
    return edits


def moves_copies(plan: HostPlan) -> bool:
    """Whether the plan's copies replace the program's: only when they are fewer. Moving copies
    that merge nothing ("3 cudaMemcpy calls become 3") saves nothing and puts copies between
    launches that ``s2s fuse`` would have fused (issue 31): the copies then stay as written,
    the pools (when they save allocations) are still made."""
    return plan.copies_after < plan.copies_before


def _copy_edits(plan: HostPlan, source: bytes, statements, inserts: dict[int, list[str]],
                edits: list[Edit]) -> list[Edit]:
    """The program's planned copies removed, the plan's messages inserted (with ``inserts``),
    where that merges copies."""
    if moves_copies(plan):
        wrappers = [s for s in statements if s.role == "copy" and s.wrapper]
        copy_wrapper = wrappers[0].wrapper if wrappers else None
        for entry in statements:
            if entry.role == "copy" and entry.op is not None:
                edits.append(_replace_statement(entry, source, ""))
        for message in plan.messages:
            # an ``if`` frame says which way its copy went ("upload failed"): one of the same way
            kind = "cudaMemcpyHostToDevice" if message.direction is Direction.UP else "cudaMemcpyDeviceToHost"
            wrapper = next((s.wrapper for s in wrappers if s.call is not None and len(s.call.args) > 3 and
                            s.call.args[3].text.strip() == kind), copy_wrapper)
            inserts.setdefault(message.boundary, []).append(_message_text(plan, message, wrapper))
    for boundary, lines in inserts.items():
        edits.append(_insert_lines(statements, boundary, source, lines))
    return edits


def _statement_end(entry: RegionStatement, source: bytes) -> int:
    end = entry.stmt.span.end
    if source[end - 1:end] in (b"}", b";"):
        return end
    at = end
    while at < len(source) and source[at:at + 1] in (b" ", b"\t"):
        at += 1
    return at + 1 if source[at:at + 1] == b";" else end


def _replace_statement(entry: RegionStatement, source: bytes, text: str) -> Edit:
    """Replace a whole statement; an empty ``text`` removes its line(s) when it is alone there."""
    span = entry.stmt.span
    start, end = span.start, _statement_end(entry, source)
    line_start = source.rfind(b"\n", 0, start) + 1
    line_end = source.find(b"\n", end)
    line_end = len(source) if line_end < 0 else line_end
    alone = source[line_start:start].strip() == b"" and source[end:line_end].strip() == b""
    if not text and alone:
        return Edit(span.file, line_start, min(line_end + 1, len(source)) - line_start, "")
    if not text:  # one of several statements on its line: its following blanks go with it
        while end < line_end and source[end:end + 1] in (b" ", b"\t"):
            end += 1
    return Edit(span.file, start, end - start, text)


def _insert_lines(statements: tuple[RegionStatement, ...], boundary: int, source: bytes,
                  lines: list[str]) -> Edit:
    if boundary < len(statements):
        span = statements[boundary].stmt.span
        line_start = source.rfind(b"\n", 0, span.start) + 1
        block = "".join(f"{span.indent}{line}\n" for line in lines)
        if source[line_start:span.start].strip() == b"":
            return Edit(span.file, line_start, 0, block)
        return Edit(span.file, span.start, 0, "\n" + block + span.indent)
    last = statements[-1]
    end = _statement_end(last, source)
    indent = last.stmt.span.indent
    return Edit(last.stmt.span.file, end, 0, "".join(f"\n{indent}{line}" for line in lines))


# -- explanations ---------------------------------------------------------------------


def _explain(plan: HostPlan) -> list[Diagnostic]:
    region = plan.region
    graph = region.graph.graph
    first = region.statements[0].stmt.span
    where = "" if region.body_of is None else f" ({region.body_of}, per iteration)"
    copies = f"{plan.copies_before} cudaMemcpy calls become {plan.copies_after}" if moves_copies(plan) \
        else (f"the {plan.copies_before} cudaMemcpy calls stay as written (merging would leave "
              f"{plan.copies_after})")
    notes = [Diagnostic.note(
        f"'{region.function}'{where}: {copies}, "
        f"{plan.device_allocs_before} cudaMalloc calls {plan.device_allocs_after}, "
        f"{plan.host_allocs_before} host allocations {plan.host_allocs_after} "
        f"({len(graph.kernels)} kernels, {sum(k.device == 0 for k in graph.kernels)} of them host code; "
        f"fewest possible transfers of its values: {plan.plan.startups})", EXPLAIN_ID, first)]
    for message in plan.messages if moves_copies(plan) else ():
        names = ", ".join(plan.operands[o].name for o in message.operands)
        verb = "upload" if message.direction is Direction.UP else "download"
        where = _where(region, message)
        notes.append(Diagnostic.note(f"{verb} {names} in one cudaMemcpy {where}", EXPLAIN_ID,
                                     _anchor(region, message)))
    for moved, target in sorted(region.hoisted.items()):
        notes.append(Diagnostic.note(
            f"declaration moved up before line {region.statements[target].stmt.span.line}, where the pools "
            "are made: the size of a pooled buffer uses it, and it commutes with the statements it passes",
            EXPLAIN_ID, region.statements[moved].stmt.span))
    named = set()
    for operand in range(len(plan.operands)):
        op = plan.operands[operand]
        for name, space in ((op.host, HOST), (op.device, "device")):
            if name is not None and name not in (region.host_pooled | region.device_pooled) \
                    and name in region.alloc_at and name not in named:
                named.add(name)
                at = region.statements[region.alloc_at[name]]
                why = f"page-locked storage of its '{at.call.name}', not the pool's malloc" \
                    if at.call is not None and at.call.name in PINNED_ALLOCS else \
                    "not allocated and freed at the top level, or its size is not known where the pool is made"
                notes.append(Diagnostic.note(f"'{name}' stays out of the {space} pool ({why})", EXPLAIN_ID,
                                             at.stmt.span))
    return notes


def _where(region: HostRegion, message: Message) -> str:
    kernels = region.graph.graph.kernels
    if message.point < len(kernels):
        return f"before '{kernels[message.point].name}' (line {_anchor(region, message).line})"
    return f"after '{kernels[-1].name}'" if kernels else f"(line {_anchor(region, message).line})"


def _anchor(region: HostRegion, message: Message) -> SourceSpan:
    index = min(message.boundary, len(region.statements) - 1)
    return region.statements[index].stmt.span


registry.register("transfers", run_transfers)
