#!/usr/bin/env python3
"""Benchmark kernel access analysis and range enumeration (issue 4).

Tables:

1. analysis time per kernel of every CUDA sample: symbolic interpretation, map text and the
   injectivity check on the sample launches (median of ``--runs``, after parsing);
2. ranges per second of the JIT and the isl enumerators, on boxes that give one range per row
   (half the grid's width) and on full-width boxes (one range per call), plus the one-time cost
   of building each enumerator (row plan, and the llvmlite compile for the JIT);
3. per-launch enumeration cost of a 2-D stencil at 1, 2, 4 and 8 partitions (row bands of the
   grid, every array read and written, warm caches): the time the runtime spends per launch
   asking for all read and write ranges of all partitions, i.e. one ``launch_ranges`` call (one
   native call for all queries; what ``runtime.launch`` uses), and for comparison the same
   queries asked one by one (``read_ranges``/``write_ranges``). Target: under 20 us at 4.

The stencils: ``hotspot_step`` (sample; clamped 5-point stencil, three arrays) and
``stencil5`` (interior-only 5-point stencil, two arrays, defined below), 1024 x 1024 elements,
16 x 16 blocks.

Usage: ``python scripts/bench_access.py [--runs 5] [--markdown]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from runtime.access import Box, KernelAccess, Launch, clear_cache  # noqa: E402
from s2s.analysis.kernel.access import analyze_kernel  # noqa: E402
from s2s.frontend.core.parse import ParseOptions  # noqa: E402
from s2s.frontend.extract import load  # noqa: E402

STENCIL5 = b"""#include <cuda_runtime.h>
__global__ void stencil5(const float *in, float *out, int n, int m) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= n - 1 || y >= m - 1)
        return;
    out[y * n + x] = 0.2f * (in[y * n + x] + in[y * n + x - 1] + in[y * n + x + 1]
                             + in[(y - 1) * n + x] + in[(y + 1) * n + x]);
}
"""
SIZE, BLOCK = 1024, 16


def median_time(func, runs: int, inner: int = 1) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(inner):
            func()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


def table(title: str, header: list[str], rows: list[list[str]], markdown: bool) -> None:
    print(f"\n{title}")
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))


def sample_kernels():
    found = []
    for path in sorted((REPO / "samples" / "cuda").glob("*/*.cu")):
        model = load(str(path)).model
        bodies = model.kernel_bodies
        functions = {b.name: b for b in bodies if not b.is_global}
        found += [(path.parent.name, b, functions) for b in bodies if b.is_global]
    return found


def stencils():
    hotspot = load(str(REPO / "samples/cuda/hotspot/hotspot.cu")).model
    body = next(b for b in hotspot.kernel_bodies if b.name == "hotspot_step")
    five = load("stencil5.cu", ParseOptions(), source=STENCIL5).model
    return [
        ("hotspot_step", KernelAccess.from_dict(analyze_kernel(body, {}).to_dict()),
         {"width": SIZE, "height": SIZE}),
        ("stencil5", KernelAccess.from_dict(
            analyze_kernel(five.kernel_bodies[0], {}).to_dict()), {"n": SIZE, "m": SIZE}),
    ]


def analysis_table(runs: int, markdown: bool) -> None:
    rows = []
    for sample, body, functions in sample_kernels():
        seconds = median_time(lambda b=body, f=functions: analyze_kernel(b, f), runs)
        model = analyze_kernel(body, functions)
        pieces = sum(text.count("->") - 1 for a in model.arrays for text in (a.read, a.write)
                     if text is not None)
        rows.append([f"{sample}/{body.name}", f"{seconds * 1000:.1f} ms", str(pieces),
                     "yes" if model.partitionable else "no"])
    table("Analysis time per kernel", ["kernel", "analysis", "disjuncts", "partitionable"],
          rows, markdown)


def enumerator_table(runs: int, markdown: bool) -> None:
    grid = (SIZE // BLOCK, SIZE // BLOCK, 1)
    rows = []
    for name, access, scalars in stencils():
        launch = Launch(grid, (BLOCK, BLOCK, 1), scalars)
        for array in access.arrays:
            for mode in ("read", "write"):
                if getattr(access.models[array], mode) is None:
                    continue
                for jit in (True, False):
                    fresh = KernelAccess.from_dict(access.to_dict())
                    clear_cache()
                    start = time.perf_counter()
                    enumerator = fresh.enumerator(array, mode, launch, jit)
                    build = time.perf_counter() - start
                    for shape, box in (("half width", Box((0, 0, 0), (grid[0] // 2, grid[1], 1))),
                                       ("full width", Box((0, 0, 0), grid))):
                        count = len(enumerator.ranges(box))
                        inner = 200 if jit else 1
                        seconds = median_time(lambda e=enumerator, b=box: e.ranges(b),
                                              runs, inner)
                        rows.append([f"{name} {array} {mode}", "JIT" if jit else "isl", shape,
                                     str(count), f"{seconds * 1e6:.1f} us",
                                     f"{count / seconds:,.0f}", f"{build * 1000:.0f} ms"])
    table("Enumerators: ranges per second (grid 64 x 64 blocks of 16 x 16)",
          ["map", "enumerator", "box", "ranges", "per call", "ranges/s", "build once"],
          rows, markdown)


def partition_table(runs: int, markdown: bool) -> None:
    grid = (SIZE // BLOCK, SIZE // BLOCK, 1)
    rows = []
    for name, access, scalars in stencils():
        launch = Launch(grid, (BLOCK, BLOCK, 1), scalars)
        for parts in (1, 2, 4, 8):
            band = grid[1] // parts
            boxes = [Box((0, k * band, 0), (grid[0], (k + 1) * band, 1)) for k in range(parts)]
            queries = [(array, mode) for array in access.arrays for mode in ("read", "write")
                       if getattr(access.models[array], mode) is not None]

            def one_by_one(boxes=boxes, queries=queries, access=access, launch=launch):
                for box in boxes:
                    for array, mode in queries:
                        getattr(access, f"{mode}_ranges")(array, box, launch)

            def batched(boxes=boxes, access=access, launch=launch):
                return access.launch_ranges(boxes, launch)

            for func in (one_by_one, batched):     # build and cache the enumerators
                func()
                func()
            seconds = median_time(batched, runs, 200)
            single = median_time(one_by_one, runs, 200)
            total = sum(map(len, batched()))
            rows.append([name, str(parts), str(len(queries) * parts), str(total),
                         f"{seconds * 1e6:.1f} us", f"{single * 1e6:.1f} us"])
    table("Per-launch enumeration cost of a 2-D stencil (1024 x 1024, warm; target < 20 us at 4)",
          ["kernel", "partitions", "queries", "ranges", "per launch (one call)",
           "per launch (query by query)"], rows, markdown)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    analysis_table(args.runs, args.markdown)
    enumerator_table(args.runs, args.markdown)
    partition_table(args.runs, args.markdown)


if __name__ == "__main__":
    main()
