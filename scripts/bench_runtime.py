#!/usr/bin/env python3
"""Benchmarks of the s2s runtime (cpu backend): emulator speed, tracker throughput, launch bookkeeping.

1. Emulator: the 256x256x256 tiled matmul of samples/cuda/matmul_tiled (16x16 blocks, two barriers per
   tile: fibers), a naive matmul without shared memory (plain thread loop), the one-pass block reduction
   of samples/cuda/block_reduction on 2^20 floats (barriers + atomicAdd) and the warp-shuffle softmax of
   samples/cuda/softmax_warp (512 x 1000).  Median of 5 launches after a warm-up, with every core and
   with one OS thread.
2. Segment tracker: assign / add / query operations per second on trackers holding about 10, 1,000 and
   100,000 segments (random ranges of up to 64 bytes keep the count stable).
3. Partitioned launches at 1, 2, 4 and 8 emulated devices with the test suite's fake access model
   (testsuite/runtime/fakes.py): bookkeeping time per launch (access enumeration, tracker queries and
   updates, copy planning; kernel and copy time excluded), copies and bytes moved per launch in the
   steady state.  Hotspot 1024x1024 (2-D grid, halo rows) and saxpy on 2^22 elements.

Usage: python scripts/bench_runtime.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "testsuite" / "runtime"))   # the fake access model of the tests

from fakes import FakeAccess, FakeArray, linear_1d, rows_2d  # noqa: E402

from runtime.api import Runtime  # noqa: E402
from runtime.tracker import SegmentTracker  # noqa: E402

SAMPLES = REPO / "samples" / "cuda"
NAIVE_MATMUL = r"""
__global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; ++k)
            acc += A[row * n + k] * B[k * n + col];
        C[row * n + col] = acc;
    }
}
"""


def median_ms(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def emulator_cases(threads: int) -> list[tuple[str, object, int]]:
    """(label, launch function, CUDA threads launched) on a fresh 1-device runtime."""
    rt = Runtime("cpu", 1, threads=threads)
    tiled = rt.load_module(path=str(SAMPLES / "matmul_tiled" / "matmul_tiled.cu"))["matmul_tiled"]
    naive = rt.load_module(source=NAIVE_MATMUL, name="naive.cu")["matmul_naive"]
    reduce_ = rt.load_module(path=str(SAMPLES / "block_reduction" / "block_reduction.cu"))["block_sum_atomic"]
    softmax = rt.load_module(path=str(SAMPLES / "softmax_warp" / "softmax_warp.cu"))["softmax_rows"]
    n = 256
    a, b, c = rt.malloc(4 * n * n), rt.malloc(4 * n * n), rt.malloc(4 * n * n)
    rt.memcpy_htod(a, np.random.rand(n * n).astype(np.float32))
    rt.memcpy_htod(b, np.random.rand(n * n).astype(np.float32))
    m = 1 << 20
    x, s = rt.malloc(4 * m), rt.malloc(4)
    rt.memcpy_htod(x, np.ones(m, np.float32))
    rows_, cols = 512, 1000
    sin, sout = rt.malloc(4 * rows_ * cols), rt.malloc(4 * rows_ * cols)
    rt.memcpy_htod(sin, np.random.rand(rows_ * cols).astype(np.float32))
    cases = [
        ("tiled matmul 256^3 (fibers, 2 barriers/tile)", lambda: rt.launch(tiled, (16, 16), (16, 16), [a, b, c, n, n, n]),
         n * n),
        ("naive matmul 256^3 (plain loop)", lambda: rt.launch(naive, (16, 16), (16, 16), [a, b, c, n]), n * n),
        ("block reduction 2^20 (fibers, atomicAdd)", lambda: rt.launch(reduce_, m // 256, 256, [x, s, m]), m),
        ("softmax 512x1000 (fibers, warp shuffles)",
         lambda: rt.launch(softmax, rows_, 128, [sin, sout, rows_, cols], shared=(cols + 32) * 4), rows_ * 128),
    ]
    return cases


def emulator_rows(repeats: int) -> list[tuple[str, str, float, float]]:
    rows = []
    for threads in (os.cpu_count() or 1, 1):
        for label, fn, cuda_threads in emulator_cases(threads):
            ms = median_ms(fn, repeats)
            rows.append((label, str(threads), ms, cuda_threads / ms / 1e3))
    return rows


def tracker_rows(ops: int) -> list[tuple[str, int, float, float, float]]:
    rows = []
    rng = random.Random(7)
    for segments in (10, 1_000, 100_000):
        size = segments * 64
        tracker = SegmentTracker(size, 1)
        for k in range(segments):
            tracker.assign(k * 64, k * 64 + 32, 2 << (k % 3))
        ranges = []
        for _ in range(ops):
            lo = rng.randrange(size - 64)
            ranges.append((lo, lo + rng.randrange(1, 64), 1 << rng.randrange(1, 5)))
        result = [f"{len(tracker):,}", 0]
        for op in (tracker.assign, tracker.add, tracker.query):
            start = time.perf_counter()
            if op.__name__ == "query":
                for lo, hi, _ in ranges:
                    op(lo, hi)
            else:
                for lo, hi, bits in ranges:
                    op(lo, hi, bits)
            result.append(ops / (time.perf_counter() - start))
        result[1] = len(tracker)
        rows.append(tuple(result))
    return rows


HOTSPOT = FakeAccess(
    "hotspot_step", ["power", "temp_src", "temp_dst", "width", "height", "step_div_cap", "rx_1", "ry_1", "rz_1"],
    {"power": FakeArray(4, rows_2d("width", "height")),
     "temp_src": FakeArray(4, rows_2d("width", "height", halo_rows=1)),
     "temp_dst": FakeArray(4, None, rows_2d("width", "height"))})
SAXPY = FakeAccess("saxpy", ["n", "a", "x", "y"],
                   {"x": FakeArray(4, linear_1d("n")), "y": FakeArray(4, linear_1d("n"), linear_1d("n"))})


def partition_rows(launches: int) -> list[tuple]:
    rows = []
    for devices in (1, 2, 4, 8):
        rt = Runtime("cpu", devices)
        hot = rt.load_module(path=str(SAMPLES / "hotspot" / "hotspot.cu"))["hotspot_step"]
        sax = rt.load_module(path=str(SAMPLES / "saxpy" / "saxpy.cu"))["saxpy"]
        w = h = 1024
        p, src, dst = rt.malloc(4 * w * h), rt.malloc(4 * w * h), rt.malloc(4 * w * h)
        for buf in (p, src):
            rt.memcpy_htod(buf, np.ones(w * h, np.float32))
        n = 1 << 22
        x, y = rt.malloc(4 * n), rt.malloc(4 * n)
        rt.memcpy_htod(x, np.ones(n, np.float32))
        rt.memcpy_htod(y, np.ones(n, np.float32))
        hot_stats, sax_stats = [], []
        for _ in range(launches + 1):
            hot_stats.append(rt.launch(hot, (64, 64), (16, 16), [p, src, dst, w, h, 0.1, 1.0, 1.0, 0.1],
                                       access=HOTSPOT))
            src, dst = dst, src
            sax_stats.append(rt.launch(sax, n // 256, 256, [n, 2.0, x, y], access=SAXPY))
        for label, stats in (("hotspot 1024^2", hot_stats[1:]), ("saxpy 2^22", sax_stats[1:])):
            book = statistics.median(s.bookkeeping_s for s in stats) * 1e6
            kern = statistics.median(s.kernel_s for s in stats) * 1e3
            rows.append((label, devices, book, stats[-1].transfers.copies, stats[-1].transfers.total_bytes,
                         stats[-1].read_ranges, kern))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    repeats, ops, launches = (2, 2_000, 3) if args.quick else (5, 20_000, 10)

    print("### Emulator (cpu backend, 1 device)\n")
    print("| kernel | OS threads | median ms | CUDA threads per us |")
    print("|---|---:|---:|---:|")
    for label, threads, ms, rate in emulator_rows(repeats):
        print(f"| {label} | {threads} | {ms:.1f} | {rate:.1f} |")

    print("\n### Segment tracker (operations per second, ranges of 1-63 bytes)\n")
    print("| segments before | after | assign/s | add/s | query/s |")
    print("|---|---:|---:|---:|---:|")
    for label, after, a, b, c in tracker_rows(ops):
        print(f"| {label} | {after:,} | {a:,.0f} | {b:,.0f} | {c:,.0f} |")

    print("\n### Partitioned launch bookkeeping (fake access model, steady state)\n")
    print("| launch | devices | bookkeeping us/launch | copies | bytes moved | read ranges | kernel ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, devices, book, copies, nbytes, reads, kern in partition_rows(launches):
        print(f"| {label} | {devices} | {book:.0f} | {copies} | {nbytes:,} | {reads} | {kern:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
