"""The segment tracker against a per-element reference array of holder masks (Hypothesis).

Each example runs a random program of assign/add/query operations on both; 200 examples of 40 to 100
operations give more than 10,000 operations per run and chunk load, and every query, every segment list
and the invariants (sorted, non-overlapping, covering, no equal neighbours, and the chunked
representation's own: ``check_structure``) are compared after each step.  Chunk loads 2 and 3 (chunks of
at most 4 or 6 segments: splits, whole-chunk deletions and merges happen at every few operations) and the
default load (one chunk at this size) are each run.  Programs also take snapshots and restore earlier
ones (with the reference's values of that moment).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.tracker import DEFAULT_LOAD, SNAPSHOT_LIMIT, SegmentTracker

SIZE = 257
LOCATIONS = 5
LOADS = (2, 3, DEFAULT_LOAD)
OPS_RUN = dict.fromkeys(LOADS, 0)


def ranges():
    return st.tuples(st.integers(0, SIZE), st.integers(0, SIZE)).map(lambda p: (min(p), max(p)))


ops = st.lists(st.tuples(st.sampled_from(["assign", "add", "query", "assign", "add", "query", "snapshot",
                                          "restore"]), ranges(),
                         st.integers(1, (1 << LOCATIONS) - 1)), min_size=40, max_size=100)


def check_invariants(tracker: SegmentTracker, ref: np.ndarray) -> None:
    tracker.check_structure()
    segs = tracker.segments()
    assert segs[0][0] == 0 and segs[-1][1] == SIZE
    for (a, b, m), (c, _, n) in zip(segs, segs[1:], strict=False):
        assert a < b == c and m != n
    for a, b, m in segs:
        assert (ref[a:b] == m).all()


@pytest.mark.parametrize("load", LOADS)
@settings(max_examples=200, deadline=None, database=None)
@given(initial=st.integers(1, (1 << LOCATIONS) - 1), program=ops)
def test_tracker_matches_reference(load, initial, program):
    tracker = SegmentTracker(SIZE, initial, load=load)
    ref = np.full(SIZE, initial, dtype=np.int64)
    saved = []                    # (snapshot, reference copy) pairs for "restore"
    for op, (lo, hi), bits in program:
        OPS_RUN[load] += 1
        if op == "snapshot":
            state = tracker.snapshot()
            if state is not None:
                saved.append((state, ref.copy()))
        elif op == "restore":
            if saved:
                state, values = saved[bits % len(saved)]
                tracker.restore(state)
                ref[:] = values
        elif op == "assign":
            tracker.assign(lo, hi, bits)
            ref[lo:hi] = bits
        elif op == "add":
            tracker.add(lo, hi, bits)
            ref[lo:hi] |= bits
        else:
            pieces = tracker.query(lo, hi)
            covered = lo
            for a, b, m in pieces:
                assert a == covered and a < b and (ref[a:b] == m).all()
                covered = b
            assert covered == hi
            bit = 1 << (bits.bit_length() - 1)
            assert all(not m & bit for _, _, m in tracker.missing(lo, hi, bit))
        check_invariants(tracker, ref)


def test_enough_operations_were_checked():
    """Runs after the property test in file order: the 10,000-operation floor of the issue holds."""
    if not any(OPS_RUN.values()):
        pytest.skip("property test not run in this session (selected alone)")
    assert all(count >= 10_000 for count in OPS_RUN.values()), OPS_RUN


def test_bad_range_is_rejected():
    tracker = SegmentTracker(10, 1)
    with pytest.raises(ValueError):
        tracker.assign(5, 11, 2)
    with pytest.raises(ValueError):
        tracker.query(6, 5)


def test_empty_tracker_has_no_segments():
    assert SegmentTracker(0, 1).segments() == []


def test_many_chunks_match_reference_over_long_programs():
    """Long programs on a larger buffer with small chunks: many splits, merges and multi-chunk deletions
    (ranges up to a quarter of the buffer), checked against the reference every 50 operations."""
    rng = np.random.default_rng(5)
    size = 20_000
    tracker = SegmentTracker(size, 1, load=8)
    ref = np.full(size, 1, dtype=np.int64)
    for step in range(6_000):
        lo = int(rng.integers(0, size))
        hi = min(size, lo + int(rng.integers(1, 64 if step % 7 else size // 4)))
        bits = int(rng.integers(1, 1 << LOCATIONS))
        if rng.random() < 0.5:
            tracker.assign(lo, hi, bits)
            ref[lo:hi] = bits
        else:
            tracker.add(lo, hi, bits)
            ref[lo:hi] |= bits
        if step % 50 == 0:
            check_invariants_sized(tracker, ref, size)
    check_invariants_sized(tracker, ref, size)
    assert len(tracker) > 100     # the run really had many chunks


def check_invariants_sized(tracker: SegmentTracker, ref: np.ndarray, size: int) -> None:
    tracker.check_structure()
    segs = tracker.segments()
    assert segs[0][0] == 0 and segs[-1][1] == size
    edges = np.flatnonzero(np.diff(ref)) + 1
    assert [a for a, _, _ in segs] == [0, *edges.tolist()]
    assert [m for _, _, m in segs] == [int(ref[a]) for a, _, _ in segs]


def test_snapshot_restores_the_same_state():
    tracker = SegmentTracker(100, 1)
    tracker.assign(10, 20, 2)
    tracker.add(15, 30, 4)
    state = tracker.snapshot()
    assert state is tracker.snapshot()
    twin = SegmentTracker(100, 1)              # equal states are one (interned) object
    twin.assign(10, 15, 2)
    twin.assign(15, 20, 6)
    twin.assign(20, 30, 5)
    assert twin.snapshot() is state
    segments = tracker.segments()
    tracker.assign(0, 100, 8)
    assert tracker.snapshot() != state
    tracker.restore(state)
    tracker.check_structure()
    assert tracker.segments() == segments and tracker.snapshot() is state
    tracker.add(0, 5, 2)                      # a change forgets the remembered snapshot
    assert tracker.snapshot() != state and tracker.segments()[0] == (0, 5, 3)


def test_large_trackers_have_no_snapshot():
    tracker = SegmentTracker(10 * SNAPSHOT_LIMIT, 1)
    for k in range(SNAPSHOT_LIMIT):
        tracker.assign(10 * k, 10 * k + 5, 2)
    assert len(tracker) > SNAPSHOT_LIMIT and tracker.snapshot() is None
