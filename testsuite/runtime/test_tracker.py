"""The segment tracker against a per-element reference array of holder masks (Hypothesis).

Each example runs a random program of assign/add/query operations on both; 200 examples of 40 to 100
operations give more than 10,000 operations per run, and every query, every segment list and the
invariants (sorted, non-overlapping, covering, no equal neighbours) are compared after each step.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.tracker import SegmentTracker

SIZE = 257
LOCATIONS = 5
OPS_RUN = {"count": 0}


def ranges():
    return st.tuples(st.integers(0, SIZE), st.integers(0, SIZE)).map(lambda p: (min(p), max(p)))


ops = st.lists(st.tuples(st.sampled_from(["assign", "add", "query"]), ranges(),
                         st.integers(1, (1 << LOCATIONS) - 1)), min_size=40, max_size=100)


def check_invariants(tracker: SegmentTracker, ref: np.ndarray) -> None:
    segs = tracker.segments()
    assert segs[0][0] == 0 and segs[-1][1] == SIZE
    for (a, b, m), (c, _, n) in zip(segs, segs[1:], strict=False):
        assert a < b == c and m != n
    for a, b, m in segs:
        assert (ref[a:b] == m).all()


@settings(max_examples=200, deadline=None, database=None)
@given(initial=st.integers(1, (1 << LOCATIONS) - 1), program=ops)
def test_tracker_matches_reference(initial, program):
    tracker = SegmentTracker(SIZE, initial)
    ref = np.full(SIZE, initial, dtype=np.int64)
    for op, (lo, hi), bits in program:
        OPS_RUN["count"] += 1
        if op == "assign":
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
    if OPS_RUN["count"] == 0:
        pytest.skip("property test not run in this session (selected alone)")
    assert OPS_RUN["count"] >= 10_000, OPS_RUN["count"]


def test_bad_range_is_rejected():
    tracker = SegmentTracker(10, 1)
    with pytest.raises(ValueError):
        tracker.assign(5, 11, 2)
    with pytest.raises(ValueError):
        tracker.query(6, 5)


def test_empty_tracker_has_no_segments():
    assert SegmentTracker(0, 1).segments() == []
