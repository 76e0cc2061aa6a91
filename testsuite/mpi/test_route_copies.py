"""``MpiRuntime.route_copies`` (pure: copies in, copies out), without MPI: bytes that several devices
of one rank fetch from another rank cross the rank boundary once, every copy still reaches its
destination, and the copies inside a rank come after the receives they copy from."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.buffers import HOST
from runtime.coherence import Copy
from runtime.mpi.runtime import MpiRuntime


class _Buffer:
    """Stands for a VirtualBuffer: route_copies reads its address; copies hash it by identity."""

    def __init__(self, addr: int):
        self.addr = addr


BUFFERS = [_Buffer(0x1000), _Buffer(0x9000)]


def _runtime(ranks: int, per_rank: int):
    return SimpleNamespace(devices=[SimpleNamespace(rank=d // per_rank) for d in range(ranks * per_rank)])


def _rank(rt, location: int) -> int:
    return 0 if location == HOST else rt.devices[location - 1].rank


@st.composite
def plans(draw):
    ranks, per_rank = draw(st.integers(2, 4)), draw(st.integers(1, 3))
    locations = ranks * per_rank
    ranges = [(0, 256), (256, 512), (0, 512), (128, 384)]
    copies = draw(st.lists(st.builds(
        lambda b, s, d, r: (b, s, d, r), st.integers(0, 1), st.integers(0, locations),
        st.integers(1, locations), st.sampled_from(ranges)), max_size=30))
    out = [Copy(BUFFERS[b], s, d, *r) for b, s, d, r in copies if s != d]
    return _runtime(ranks, per_rank), list(dict.fromkeys(out))   # the planner never repeats a copy


@settings(max_examples=300, deadline=None)
@given(plans())
def test_each_range_crosses_into_a_rank_once(plan):
    rt, copies = plan
    routed = MpiRuntime.route_copies(rt, copies)
    assert sorted((c.buffer.addr, c.dst, c.lo, c.hi) for c in routed) == \
        sorted((c.buffer.addr, c.dst, c.lo, c.hi) for c in copies)
    crossing = [c for c in routed if _rank(rt, c.src) != _rank(rt, c.dst)]
    keys = [(c.buffer.addr, c.src, _rank(rt, c.dst), c.lo, c.hi) for c in crossing]
    assert len(keys) == len(set(keys))
    wanted = {(c.buffer.addr, c.src, _rank(rt, c.dst), c.lo, c.hi) for c in copies
              if _rank(rt, c.src) != _rank(rt, c.dst)}
    assert set(keys) == wanted
    seen_local = False
    for c in routed:
        if c in copies:
            assert not seen_local, "a planned copy after a rerouted one"
            continue
        seen_local = True                        # rerouted: from a device of the same rank that received it
        assert _rank(rt, c.src) == _rank(rt, c.dst)
        assert any(r.dst == c.src and (r.buffer, r.lo, r.hi) == (c.buffer, c.lo, c.hi) for r in crossing)


def test_matrix_every_box_reads_crosses_once_per_rank():
    """Two ranks x two devices (locations: 0 host, d + 1 device d); B's bytes 0-512 are held by device 0:
    devices 2 and 3 (rank 1) both need them, one message crosses and device 3 copies from device 2."""
    rt = _runtime(2, 2)
    b = BUFFERS[0]
    copies = [Copy(b, 1, 3, 0, 512), Copy(b, 1, 4, 0, 512), Copy(b, 1, 3, 512, 600)]
    assert MpiRuntime.route_copies(rt, copies) == [Copy(b, 1, 3, 0, 512), Copy(b, 1, 3, 512, 600),
                                                    Copy(b, 3, 4, 0, 512)]
