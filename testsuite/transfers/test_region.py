"""Graphs from straight-line host regions: the values kernels see, the windows storage reuse
allows, refusals, and a differential check that optimized plans compute what the program did."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from s2s.analysis.transfers import CPU, GPU, METHODS, POLICIES, Direction, optimize
from s2s.analysis.transfers.check import plan_problems
from s2s.analysis.transfers.region import (
    DEVICE,
    HOST,
    Buffer,
    Copy,
    Free,
    HostCode,
    Launch,
    build_region_graph,
)
from s2s.diagnostics import UnsupportedConstruct
from s2s.model.span import SourceSpan


def pair(name: str, size: int = 400, local: bool = True) -> list[Buffer]:
    return [Buffer(f"h_{name}", HOST, size, local), Buffer(f"d_{name}", DEVICE, size, local)]


def vadd_region():
    buffers = pair("a") + pair("b") + pair("c")
    ops = [HostCode("init", (), ("h_a", "h_b")), Copy("d_a", "h_a"), Copy("d_b", "h_b"),
           Launch("add", ("d_a", "d_b"), ("d_c",)), Copy("h_c", "d_c"), HostCode("check", ("h_c",), ()),
           Free("d_a"), Free("d_b"), Free("d_c")]
    return buffers, ops


def test_vector_add_fuses_the_two_uploads():
    region = build_region_graph(*vadd_region())
    graph = region.graph
    assert [v.name for v in graph.vectors] == ["h_a", "h_b", "h_c"]
    assert [(k.name, k.device) for k in graph.kernels] == [("init", CPU), ("add", GPU), ("check", CPU)]
    assert [o.name for o in region.operands] == ["h_a", "h_b", "h_c"]
    assert region.op_of_kernel == (0, 3, 5)
    plan = optimize(graph)
    assert [(t.direction, t.point, len(t.vectors)) for t in plan.transfers] == [
        (Direction.UP, 1, 2), (Direction.DOWN, 2, 1)]
    assert plan.saved == 1


def test_in_place_updates_become_versions():
    buffers = pair("x", local=False)
    ops = [Copy("d_x", "h_x"), Launch("scale", ("d_x",), ("d_x",)), Launch("shift", ("d_x",), ("d_x",)),
           Copy("h_x", "d_x")]
    graph = build_region_graph(buffers, ops).graph
    assert [v.name for v in graph.vectors] == ["h_x.0", "h_x.1", "h_x.2"]
    assert graph.kernels[0].reads == (0,) and graph.kernels[0].writes == (1,)
    # the entry value is on the host; the last one must be back there (h_x is live out)
    assert [(w.vector, w.direction) for w in graph.windows] == [(0, Direction.UP), (2, Direction.DOWN)]
    assert not graph.vectors[0].fusable  # external storage cannot be pooled


def test_host_overwrite_bounds_the_upload_of_the_old_value():
    buffers = pair("a") + pair("b")
    ops = [HostCode("fill_a", (), ("h_a",)), Copy("d_a", "h_a"), HostCode("fill_b", (), ("h_b",)),
           HostCode("refill_a", (), ("h_a",)), Copy("d_b", "h_b"), Launch("k", ("d_a", "d_b"), ("d_b",)),
           Copy("h_b", "d_b")]
    graph = build_region_graph(buffers, ops).graph
    first = graph.index("h_a.0")
    window = graph.window_of(first)
    assert (window.earliest, window.latest) == (1, 2)  # before refill_a, not before k
    assert graph.vectors[first].upload_by == 2


def test_download_into_a_host_buffer_waits_for_the_old_values_last_use():
    buffers = pair("a")
    ops = [HostCode("fill", (), ("h_a",)), Copy("d_a", "h_a"), Launch("k", ("d_a",), ("d_a",)),
           HostCode("use_old", ("h_a",), ()), Copy("h_a", "d_a"), HostCode("use_new", ("h_a",), ())]
    graph = build_region_graph(buffers, ops).graph
    new = graph.index("h_a.1")
    window = graph.window_of(new)
    assert (window.earliest, window.latest) == (3, 3)  # after use_old, before use_new


def test_device_buffer_with_a_value_on_entry_and_explicit_live_out():
    buffers = [Buffer("d_w", DEVICE, 64, local=False), Buffer("h_y", HOST, 64), Buffer("d_y", DEVICE, 64)]
    ops = [Launch("k", ("d_w",), ("d_y",)), Copy("h_y", "d_y")]
    graph = build_region_graph(buffers, ops, live_out=["h_y"]).graph
    w = graph.index("d_w")
    assert graph.vectors[w].entry == GPU and graph.window_of(w) is None
    assert graph.vectors[graph.index("h_y")].live_out == frozenset({CPU})


SPAN = SourceSpan("prog.cu", 10, 20, 3, 5)


@pytest.mark.parametrize("ops, ident", [
    ([Launch("k", ("d_a",), ("d_b",), SPAN)], "transfers-uninitialized"),
    ([HostCode("h", (), ("h_a",)), Copy("d_a", "h_a"), Free("d_a"), Launch("k", ("d_a",), ("d_b",), SPAN)],
     "transfers-use-after-free"),
    ([Launch("k", (), ("d_a",)), Copy("h_a", "d_a"), Copy("d_b", "h_a", span=SPAN)], "transfers-aliased-buffers"),
    ([HostCode("h", (), ("h_a",)), Copy("d_a", "h_a", 8, SPAN)], "transfers-partial-copy"),
    ([HostCode("h", (), ("h_a",)), Copy("h_b", "h_a", span=SPAN)], "transfers-copy-kind"),
    ([Launch("k", ("h_a",), ("d_b",), SPAN)], "transfers-space"),
    ([Launch("k", ("d_q",), ("d_b",), SPAN)], "transfers-unknown-buffer"),
])
def test_refusals_name_the_place_and_the_reason(ops, ident):
    with pytest.raises(UnsupportedConstruct) as caught:
        build_region_graph(pair("a") + pair("b"), ops)
    diagnostic = caught.value.diagnostic
    assert diagnostic.id == ident
    assert diagnostic.location is not None and diagnostic.location.line == 3


def test_a_value_needed_on_the_host_twice_is_refused():
    ops = [HostCode("h", (), ("h_a",)), Copy("d_a", "h_a"), Launch("k", ("d_a",), ("d_a",)),
           Copy("h_a", "d_a"), HostCode("read", ("h_a",), ()), HostCode("clobber", (), ("h_a",)),
           Copy("h_a", "d_a"), HostCode("read_again", ("h_a",), ())]
    with pytest.raises(UnsupportedConstruct) as caught:
        build_region_graph(pair("a"), ops)
    assert caught.value.diagnostic.id == "transfers-window"


# --- differential check on random regions ------------------------------------------------

NAMES = ("a", "b", "c")


@st.composite
def regions(draw):
    count = draw(st.integers(1, 3))
    names = NAMES[:count]
    buffers = []
    for name in names:
        buffers += pair(name, draw(st.integers(1, 3)) * 100, local=draw(st.booleans()))
    ops = []
    for number in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["up", "down", "launch", "host"]))
        name = draw(st.sampled_from(names))
        # mostly its own partner; sometimes another (one host buffer, two device buffers)
        other = draw(st.sampled_from((name,) * 3 + names))
        if kind == "up":
            ops.append(Copy(f"d_{other}", f"h_{name}"))
        elif kind == "down":
            ops.append(Copy(f"h_{other}", f"d_{name}"))
        else:
            prefix = "d_" if kind == "launch" else "h_"
            reads = draw(st.lists(st.sampled_from(names), max_size=3, unique=True))
            writes = draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True))
            cls = Launch if kind == "launch" else HostCode
            ops.append(cls(f"op{number}", tuple(prefix + n for n in reads), tuple(prefix + n for n in writes)))
    return buffers, ops


def run_original(buffers, ops):
    """Tokens each kernel reads and tokens in every buffer at exit, running the program."""
    content = {b.name: (None if b.local else ("entry", b.name)) for b in buffers}
    seen = {}
    for number, op in enumerate(ops):
        if isinstance(op, Copy):
            content[op.dst] = content[op.src]
        elif isinstance(op, (Launch, HostCode)):
            seen[number] = [content[b] for b in dict.fromkeys(op.reads)]
            for b in op.writes:
                content[b] = ("made", number, b)
    return seen, content


def run_plan(region, plan, buffers, ops):
    """The same with the plan's transfers: shared host storage, renamed device storage."""
    graph = region.graph
    token = {}
    for v, vector in enumerate(graph.vectors):
        operand = region.operands[region.operand_of[v]]
        producer = graph.producer[v]
        if producer is None:
            token[v] = ("entry", operand.host if vector.entry == CPU else operand.device)
        else:
            kernel = graph.kernels[producer]
            token[v] = ("made", region.op_of_kernel[producer], operand.host if kernel.device == CPU else operand.device)
    host = {b.name: None for b in buffers if b.space == HOST}
    for v, vector in enumerate(graph.vectors):
        if vector.entry == CPU:
            host[region.operands[region.operand_of[v]].host] = v
    device = {v for v, vector in enumerate(graph.vectors) if vector.entry == GPU}
    seen = {}
    by_point = {}
    for transfer in plan.transfers:
        by_point.setdefault(transfer.point, []).append(transfer)
    for point in range(graph.n_points):
        # uploads first: one reads the host storage a download of the same point overwrites
        for transfer in sorted(by_point.get(point, ()), key=lambda t: t.direction is Direction.DOWN):
            for v in transfer.vectors:
                buffer = region.operands[region.operand_of[v]].host
                if transfer.direction is Direction.UP:
                    # (a value copied to two device buffers is two vectors with one token)
                    assert host[buffer] is not None and token[host[buffer]] == token[v], \
                        f"{graph.name(v)} uploaded after its host storage changed"
                    device.add(v)
                else:
                    assert v in device
                    host[buffer] = v
        if point == len(graph.kernels):
            break
        kernel = graph.kernels[point]
        reads = []
        for v in kernel.reads:
            if kernel.device == GPU:
                assert v in device
            else:
                found = host[region.operands[region.operand_of[v]].host]
                assert found is not None and token[found] == token[v], f"{kernel.name} finds {found} not {v}"
            reads.append(token[v])
        seen[region.op_of_kernel[point]] = reads
        for v in kernel.writes:
            if kernel.device == GPU:
                device.add(v)
            else:
                host[region.operands[region.operand_of[v]].host] = v
    return seen, host, device, token


@settings(max_examples=300, deadline=None)
@given(regions(), st.sampled_from(METHODS), st.sampled_from(POLICIES))
def test_optimized_plans_compute_what_the_program_computed(region_program, method, policy):
    buffers, ops = region_program
    try:
        region = build_region_graph(buffers, ops)
    except UnsupportedConstruct:
        assume(False)
    plan = optimize(region.graph, method, policy)
    assert plan_problems(plan) == []
    expected_seen, expected_exit = run_original(buffers, ops)
    seen, host, device, token = run_plan(region, plan, buffers, ops)
    assert seen == expected_seen
    graph = region.graph
    for buffer in buffers:
        want = expected_exit[buffer.name]
        if want is None:
            continue
        untouched = want == ("entry", buffer.name)  # no vector needed: the plan leaves it alone
        if buffer.space == HOST:
            if untouched and host[buffer.name] is None:
                continue
            assert host[buffer.name] is not None and token[host[buffer.name]] == want
        else:
            holders = [v for v, vector in enumerate(graph.vectors)
                       if GPU in vector.live_out and region.operands[region.operand_of[v]].device == buffer.name]
            if untouched and not holders:
                continue
            assert len(holders) == 1 and holders[0] in device and token[holders[0]] == want
