"""Segment tracker: which copies of a virtual buffer hold the newest bytes.

The paper (Matz et al., section 8.1) keeps a B-tree map from segment start to the one buffer instance
owning the newest version.  Here a segment maps to a *set* of holders (a bitmask over locations: bit 0 the
host copy, bit d+1 device d), so a read-only input fetched by several devices stays valid on all of them
and is not re-sent at the next launch (the paper's section 8.3 names the missing shared copies as the
source of redundant transfers).

Representation: two parallel Python lists, segment starts (sorted, first is 0) and masks; segment k covers
[starts[k], starts[k+1]) and the last one runs to ``size``.  Neighbouring segments never have equal masks
(they are merged), so the list length is the number of distinct runs.  Lookups are binary searches
(O(log n)); a splice is one list slice assignment, a C memmove of the tail -- O(n) in principle with a
constant of well under a nanosecond per entry, which stays below the search cost at the segment counts
kernels produce (see the tracker rows in docs/benchmarks.md).
"""

from __future__ import annotations

from bisect import bisect_right


class SegmentTracker:
    """Holder masks over the byte range [0, size)."""

    __slots__ = ("size", "_starts", "_masks")

    def __init__(self, size: int, initial_mask: int):
        if size < 0:
            raise ValueError("negative size")
        self.size = size
        self._starts = [0]
        self._masks = [initial_mask]

    def __len__(self) -> int:
        return len(self._starts)

    def _check(self, lo: int, hi: int) -> None:
        if not 0 <= lo <= hi <= self.size:
            raise ValueError(f"range [{lo}, {hi}) outside tracker of size {self.size}")

    def _split(self, pos: int) -> int:
        """Make ``pos`` a segment boundary; return the index of the segment starting there."""
        if pos >= self.size:
            return len(self._starts)
        k = bisect_right(self._starts, pos) - 1
        if self._starts[k] == pos:
            return k
        self._starts.insert(k + 1, pos)
        self._masks.insert(k + 1, self._masks[k])
        return k + 1

    def _merge(self, first: int, last: int) -> None:
        """Merge equal neighbours among segments first..last (indices clipped to the list)."""
        first, last = max(first, 1), min(last, len(self._starts) - 1)
        if first > last:
            return
        starts, masks = self._starts, self._masks
        keep_s, keep_m = [], []
        prev = masks[first - 1]
        for k in range(first, last + 1):
            if masks[k] != prev:
                keep_s.append(starts[k])
                keep_m.append(masks[k])
                prev = masks[k]
        starts[first:last + 1] = keep_s
        masks[first:last + 1] = keep_m

    def assign(self, lo: int, hi: int, mask: int) -> None:
        """[lo, hi) is now held exactly by ``mask`` (a write by one location, or a memset)."""
        self._check(lo, hi)
        if lo == hi:
            return
        i = self._split(lo)
        j = self._split(hi)
        self._starts[i:j] = [lo]
        self._masks[i:j] = [mask]
        self._merge(i, i + 1)

    def add(self, lo: int, hi: int, bits: int) -> None:
        """The locations in ``bits`` now also hold [lo, hi) (a copy was made)."""
        self._check(lo, hi)
        if lo == hi:
            return
        i = self._split(lo)
        j = self._split(hi)
        masks = self._masks
        for k in range(i, j):
            masks[k] |= bits
        self._merge(i, j)

    def query(self, lo: int, hi: int) -> list[tuple[int, int, int]]:
        """Pieces (a, b, mask) covering [lo, hi) in order."""
        self._check(lo, hi)
        if lo == hi:
            return []
        out = []
        starts, masks = self._starts, self._masks
        k = bisect_right(starts, lo) - 1
        n = len(starts)
        while k < n and starts[k] < hi:
            end = starts[k + 1] if k + 1 < n else self.size
            out.append((max(starts[k], lo), min(end, hi), masks[k]))
            k += 1
        return out

    def missing(self, lo: int, hi: int, bit: int) -> list[tuple[int, int, int]]:
        """Pieces of [lo, hi) that the location ``bit`` does not hold, with their holders."""
        return [p for p in self.query(lo, hi) if not p[2] & bit]

    def segments(self) -> list[tuple[int, int, int]]:
        return self.query(0, self.size) if self.size else []
