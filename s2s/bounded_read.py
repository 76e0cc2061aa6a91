"""Read a file up to a bound without allocating the bound.

Why: ``handle.read(limit + 1)`` allocates a buffer of ``limit + 1`` bytes before it reads
anything; with the 64 MiB bound of source files that is a 64 MiB allocation for every file
read (most are a few KiB), the peak of a run's Python heap whatever its files. Reading in
chunks keeps the same bound (a file growing while it is read still stops there) at the cost
of the file's own size.
"""

from __future__ import annotations

from typing import BinaryIO

#: bytes asked for per read
CHUNK = 1 << 20


def read_at_most(handle: BinaryIO, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``handle`` (one more than ``limit`` says it is longer)."""
    chunks, size = [], 0
    while size <= limit:
        chunk = handle.read(min(CHUNK, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
