"""Segment tracker: which copies of a virtual buffer hold the newest bytes.

The paper (Matz et al., section 8.1) keeps a B-tree map from segment start to the one buffer instance
owning the newest version.  Here a segment maps to a *set* of holders (a bitmask over locations: bit 0 the
host copy, bit d+1 device d), so a read-only input fetched by several devices stays valid on all of them
and is not re-sent at the next launch (the paper's section 8.3 names the missing shared copies as the
source of redundant transfers).

Representation: a chunked sorted list (the design of the ``sortedcontainers`` package, written here so the
runtime has no dependency for it).  Segment starts and holder masks are parallel lists cut into chunks of
at most ``2 * load`` entries; ``_firsts`` holds the first start of every chunk.  Segment k of the
concatenation covers [start_k, start_{k+1}) and the last one runs to ``size``; the first start is 0.
Neighbouring segments never have equal masks (they are merged), so the length is the number of distinct
runs.  Costs, for n segments and a range covering m of them:

- locating a byte: two binary searches (the chunk in ``_firsts``, the entry in the chunk): O(log n);
- an insertion or deletion edits one chunk (at most ``2 * load`` entries: a bounded memmove); only when a
  chunk splits, empties or is merged -- about once per ``load / 2`` edits of it -- the chunk index moves
  up to n / load entries, i.e. amortized 2 n / load**2 entries per edit: less than one up to 32,768
  segments at the default load of 256, about 6 at 200,000 (a memmove of 48 bytes), so O(log n) in
  practice (the argument of sortedcontainers; a balanced tree would make it O(log n) strictly at a
  higher constant in Python);
- ``assign`` over a range drops the m covered segments chunk-wise (whole chunks in one slice); ``add`` and
  ``query`` are O(log n + m), which is output-sensitive and cannot be less.

The previous representation (two flat lists with slice assignment) cost O(n) per insertion: a memmove of
the whole tail, 5,300 assigns/s at 200,000 segments (docs/benchmarks.md).

``snapshot``/``restore`` give a small tracker's whole state as a value (a ``TrackerState``), which is what
lets a partitioned launch recognise that the trackers are in a state it has seen before and replay what
it did then (runtime/launch.py).  States are interned: equal states are one object, so comparing and
hashing them is by identity (no walk over the segments), and ``restore`` only stores the state: the
segment lists are rebuilt from it when the tracker is next used.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

#: Target chunk length: chunks split above 2 * load entries and are merged below load / 2.
DEFAULT_LOAD = 256
#: Trackers of at most this many segments (in one chunk) have a snapshot (see ``snapshot``).
SNAPSHOT_LIMIT = 64
#: Interned states; cleared when it grows past the limit (then equal states made before and after are
#: two objects: a launch fails to recognise a state, which costs time but is never wrong).
_INTERNED: dict[tuple, TrackerState] = {}
_INTERN_LIMIT = 1 << 16


class TrackerState:
    """A tracker's whole state (segment starts and masks), interned: compare and hash by identity."""

    __slots__ = ("starts", "masks")

    def __init__(self, starts: tuple[int, ...], masks: tuple[int, ...]):
        self.starts, self.masks = starts, masks

    def __repr__(self) -> str:
        return f"TrackerState({list(zip(self.starts, self.masks, strict=True))})"


def _intern(starts: tuple[int, ...], masks: tuple[int, ...]) -> TrackerState:
    key = (starts, masks)
    state = _INTERNED.get(key)
    if state is None:
        if len(_INTERNED) >= _INTERN_LIMIT:
            _INTERNED.clear()
        state = _INTERNED[key] = TrackerState(starts, masks)
    return state


class SegmentTracker:
    """Holder masks over the byte range [0, size)."""

    __slots__ = ("size", "_load", "_starts", "_masks", "_firsts", "state")

    def __init__(self, size: int, initial_mask: int, load: int = DEFAULT_LOAD):
        if size < 0:
            raise ValueError("negative size")
        if load < 2:
            raise ValueError(f"chunk load {load}: expected at least 2")
        self.size = size
        self._load = load
        self._starts: list[list[int]] = [[0]]
        self._masks: list[list[int]] = [[initial_mask]]
        self._firsts: list[int] = [0]
        #: The interned state when known; None until ``snapshot`` computes it after a change (and for
        #: trackers too large for one).  Read-only outside this class.
        self.state: TrackerState | None = None

    def __len__(self) -> int:
        if self._starts is None:
            self._thaw()
        return sum(map(len, self._starts))

    def _thaw(self) -> None:
        """Rebuild the segment lists from the state ``restore`` left (done at first use)."""
        state = self.state
        self._starts, self._masks, self._firsts = [list(state.starts)], [list(state.masks)], [0]

    def _check(self, lo: int, hi: int) -> None:
        if not 0 <= lo <= hi <= self.size:
            raise ValueError(f"range [{lo}, {hi}) outside tracker of size {self.size}")

    # --- chunk structure ------------------------------------------------------------------

    def _locate(self, pos: int) -> tuple[int, int]:
        """(chunk, entry) of the segment containing byte ``pos``."""
        c = bisect_right(self._firsts, pos) - 1
        return c, bisect_right(self._starts[c], pos) - 1

    def _split_chunk(self, c: int) -> None:
        starts, masks = self._starts[c], self._masks[c]
        half = len(starts) // 2
        self._starts.insert(c + 1, starts[half:])
        self._masks.insert(c + 1, masks[half:])
        self._firsts.insert(c + 1, starts[half])
        del starts[half:], masks[half:]

    def _drop_chunks(self, first: int, end: int) -> None:
        del self._starts[first:end], self._masks[first:end], self._firsts[first:end]

    def _rebalance(self, c: int) -> None:
        """Merge chunk ``c`` into a neighbour when it has shrunk below half the load (then split the
        result if it grew too long), so the chunk count stays about n / load."""
        chunks = self._starts
        if not 0 <= c < len(chunks) or len(chunks) == 1 or len(chunks[c]) >= self._load // 2:
            return
        if c == len(chunks) - 1:
            c -= 1
        chunks[c] += chunks[c + 1]
        self._masks[c] += self._masks[c + 1]
        self._drop_chunks(c + 1, c + 2)
        if len(chunks[c]) > 2 * self._load:
            self._split_chunk(c)

    # --- segment edits --------------------------------------------------------------------

    def _split(self, pos: int) -> None:
        """Make ``pos`` a segment boundary (nothing to do at or past the end)."""
        if pos >= self.size:
            return
        c, k = self._locate(pos)
        starts = self._starts[c]
        if starts[k] == pos:
            return
        masks = self._masks[c]
        starts.insert(k + 1, pos)
        masks.insert(k + 1, masks[k])
        if len(starts) > 2 * self._load:
            self._split_chunk(c)

    def _delete_after(self, c: int, k: int, hi: int) -> None:
        """Delete the segments after entry (c, k) that start before ``hi`` (a boundary or the end)."""
        starts, masks = self._starts[c], self._masks[c]
        j = bisect_left(starts, hi, k + 1)
        if j < len(starts) or c + 1 == len(self._starts):
            del starts[k + 1:j], masks[k + 1:j]
            self._rebalance(c)
            return
        del starts[k + 1:], masks[k + 1:]
        last = bisect_right(self._firsts, hi) - 1          # the chunk where the deleted run ends
        tail_s, tail_m = self._starts[last], self._masks[last]
        j = bisect_left(tail_s, hi)
        del tail_s[:j], tail_m[:j]
        if tail_s:
            self._firsts[last] = tail_s[0]
            self._drop_chunks(c + 1, last)
        else:
            self._drop_chunks(c + 1, last + 1)
        self._rebalance(c + 1)
        self._rebalance(c)

    def _merge_at(self, pos: int) -> None:
        """Remove the boundary at ``pos`` if the segments on both sides have the same holders."""
        if pos <= 0 or pos >= self.size:
            return
        c, k = self._locate(pos)
        starts, masks = self._starts[c], self._masks[c]
        if starts[k] != pos or masks[k] != (masks[k - 1] if k else self._masks[c - 1][-1]):
            return
        del starts[k], masks[k]
        if not starts:
            self._drop_chunks(c, c + 1)
            return
        if k == 0:
            self._firsts[c] = starts[0]
        self._rebalance(c)

    def _coalesce(self, c: int, k: int, hi: int) -> None:
        """Remove the boundaries of segments starting in [start of (c, k), hi] whose holders equal
        those of the segment before them (after ``add`` changed the masks of a run)."""
        prev = None if c == 0 and k == 0 else (self._masks[c][k - 1] if k else self._masks[c - 1][-1])
        first = c
        while c < len(self._starts):
            starts, masks = self._starts[c], self._masks[c]
            end = len(starts)
            j = bisect_right(starts, hi, k)
            keep_s, keep_m = [], []
            for i in range(k, j):
                if masks[i] != prev:
                    keep_s.append(starts[i])
                    keep_m.append(masks[i])
                    prev = masks[i]
            if len(keep_s) != j - k:
                starts[k:j], masks[k:j] = keep_s, keep_m
            if not starts:
                self._drop_chunks(c, c + 1)
                continue
            self._firsts[c] = starts[0]
            if j < end:
                break
            c, k = c + 1, 0
        for chunk in range(min(c, len(self._starts) - 1), first - 1, -1):
            self._rebalance(chunk)

    # --- the tracker's operations ---------------------------------------------------------

    def assign(self, lo: int, hi: int, mask: int) -> None:
        """[lo, hi) is now held exactly by ``mask`` (a write by one location, or a memset)."""
        self._check(lo, hi)
        if lo == hi:
            return
        if self._starts is None:
            self._thaw()
        self.state = None
        self._split(lo)
        self._split(hi)
        c, k = self._locate(lo)
        self._masks[c][k] = mask
        self._delete_after(c, k, hi)
        self._merge_at(hi)
        self._merge_at(lo)

    def add(self, lo: int, hi: int, bits: int) -> None:
        """The locations in ``bits`` now also hold [lo, hi) (a copy was made)."""
        self._check(lo, hi)
        if lo == hi:
            return
        if self._starts is None:
            self._thaw()
        self.state = None
        self._split(lo)
        self._split(hi)
        c, k = self._locate(lo)
        chunk, at = c, k
        while chunk < len(self._starts):
            starts, masks = self._starts[chunk], self._masks[chunk]
            j = bisect_left(starts, hi, at)
            for i in range(at, j):
                masks[i] |= bits
            if j < len(starts):
                break
            chunk, at = chunk + 1, 0
        self._coalesce(c, k, hi)

    def query(self, lo: int, hi: int) -> list[tuple[int, int, int]]:
        """Pieces (a, b, mask) covering [lo, hi) in order."""
        self._check(lo, hi)
        if lo == hi:
            return []
        if self._starts is None:
            self._thaw()
        c, k = self._locate(lo)
        chunks_s, chunks_m = self._starts, self._masks
        starts, masks = chunks_s[c], chunks_m[c]
        out = []
        start = lo
        while True:
            mask = masks[k]
            k += 1
            if k < len(starts):
                end = starts[k]
            elif c + 1 < len(chunks_s):
                c, k = c + 1, 0
                starts, masks = chunks_s[c], chunks_m[c]
                end = starts[0]
            else:
                end = self.size
            if end >= hi:
                out.append((start, hi, mask))
                return out
            out.append((start, end, mask))
            start = end

    def missing(self, lo: int, hi: int, bit: int) -> list[tuple[int, int, int]]:
        """Pieces of [lo, hi) that the location ``bit`` does not hold, with their holders."""
        return [p for p in self.query(lo, hi) if not p[2] & bit]

    def segments(self) -> list[tuple[int, int, int]]:
        return self.query(0, self.size) if self.size else []

    # --- whole-state values ---------------------------------------------------------------

    def snapshot(self) -> TrackerState | None:
        """The whole state (interned: equal states give the same object), or None when the tracker has
        more than SNAPSHOT_LIMIT segments (then comparing states costs more than it saves).  Remembered
        until the next change, so asking twice is one attribute read."""
        state = self.state
        if state is None:
            if len(self._starts) > 1 or len(self._starts[0]) > SNAPSHOT_LIMIT:
                return None
            state = self.state = _intern(tuple(self._starts[0]), tuple(self._masks[0]))
        return state

    def restore(self, state: TrackerState) -> None:
        """Set the whole state to one ``snapshot`` returned (of a tracker of the same size).  O(1): the
        segment lists are rebuilt when the tracker is next edited or queried."""
        self.state = state
        self._starts = None

    def check_structure(self) -> None:
        """Assert the representation's invariants (for tests): chunks non-empty and bounded, the index
        equal to the chunks' first starts, starts strictly increasing from 0 and below ``size``, no
        equal neighbouring masks, and a remembered snapshot equal to the state."""
        if self._starts is None:
            self._thaw()
        assert len(self._starts) == len(self._masks) == len(self._firsts) >= 1
        flat_s, flat_m = [], []
        for starts, masks, first in zip(self._starts, self._masks, self._firsts, strict=True):
            assert starts and len(starts) == len(masks) <= 2 * self._load
            assert starts[0] == first
            flat_s += starts
            flat_m += masks
        assert flat_s[0] == 0 and (self.size == 0 or flat_s[-1] < self.size)
        assert all(a < b for a, b in zip(flat_s, flat_s[1:], strict=False))
        assert all(a != b for a, b in zip(flat_m, flat_m[1:], strict=False))
        if self.state is not None:
            assert (self.state.starts, self.state.masks) == (tuple(flat_s), tuple(flat_m))
