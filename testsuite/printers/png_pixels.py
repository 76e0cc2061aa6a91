"""Just enough PNG decoding to count colours in a browser's screenshot (8-bit RGB or RGBA,
not interlaced: what chromium writes), so the tests need no imaging library."""

from __future__ import annotations

import struct
import zlib


def pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, chunks, header = 8, [], None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    step = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * step
    rows, previous, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            corner = previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc
                                      else corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, [bytes(r) for r in rows] if step == 3 else \
        [bytes(b for k, b in enumerate(r) if k % 4 != 3) for r in rows]


def count_near(rows: list[bytes], colour: tuple[int, int, int], tolerance: int = 3) -> int:
    """How many pixels are within ``tolerance`` of ``colour`` in each channel."""
    r0, g0, b0 = colour
    found = 0
    for row in rows:
        for i in range(0, len(row), 3):
            if abs(row[i] - r0) <= tolerance and abs(row[i + 1] - g0) <= tolerance \
                    and abs(row[i + 2] - b0) <= tolerance:
                found += 1
    return found
