#!/usr/bin/env python3
"""Benchmarks of the runtime over MPI (runtime/mpi) on localhost ranks with emulated cpu devices.

1. Strong scaling: the rewritten hotspot (samples/cuda/hotspot, s2s mgpu, nvcc) at one size, as one
   process with 1 and 2 devices and as MPI jobs of R = 2, 4 ranks x D = 1, 2 devices: wall time (best of
   ``--runs``), the wall time of the same job with 0 steps (start-up: mpirun, Python and MPI in every
   rank, allocation, the copies in and out), the time per step (the difference over the steps) and its
   speedup against one process on one device.
2. Weak scaling: the grid's height grows with the number of devices (``--rows`` rows per device).
3. Bytes between ranks per launch (steady state: launches after the first), per rank (the most any rank
   sends), against the minimum of the row split (one row each way per rank boundary; a rank in the
   middle sends two rows), and the total the ranks' MPI layer counted against the plan; n-body's
   all-to-all positions too (each rank receives every body it does not own, once per step).
4. Bookkeeping per launch on rank 0 (median of the launches after the first: access enumeration,
   tracker work and copy planning, replayed in the steady state) and the time rank 0 spends pickling
   and sending each launch's command to the other ranks (mean over the launches).
5. A projection for a GPU cluster (``project``): measured bytes per halo row and bookkeeping per launch
   with documented link bandwidths (NVLink 4, InfiniBand NDR, PCIe 5 for host staging) and a roofline
   kernel time, compared with the 12.4x on 16 GPUs the partitioning paper reports.

The machine has few cores: ranks and their emulator threads share them (S2S_CPU_THREADS=1, Open MPI
``--oversubscribe`` beyond the cores), so wall-time scaling here measures overheads, not speedup.

Usage: python scripts/bench_mpi.py [--quick] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "testsuite" / "mpi"))

from mpi_support import build_sample, job_env, rank_of  # noqa: E402

from runtime.mpi.launcher import mpirun_command  # noqa: E402

F4 = 16


def run(exe: Path, ranks: int, devices: int, args, work: Path, runs: int) -> tuple[float, dict]:
    """Best wall time of ``runs`` runs and the statistics of the last one (ranks 1: no mpirun)."""
    stats_path = work / f"stats-{ranks}-{devices}.json"
    argv = [str(exe), *map(str, args)]
    command = argv if ranks == 1 else mpirun_command(ranks, argv)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(command, capture_output=True, text=True, env=job_env(devices, stats_path),
                              timeout=900)
        best = min(best, time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"{command} failed: {proc.stderr[-2000:]}")
    return best, json.loads(stats_path.read_text())


def sent_per_rank(launch: dict, ranks: int) -> list[int]:
    sent = [0] * ranks
    for link, nbytes in launch["links"].items():
        src, dst = link.split("->")
        if rank_of(src) != rank_of(dst):
            sent[rank_of(src)] += nbytes
    return sent


def steady(stats: dict, kernel: str | None = None) -> list[dict]:
    launches = [x for x in stats["launches"] if kernel is None or x["kernel"] == kernel]
    return launches[1:]


def bookkeeping_us(stats: dict) -> float:
    return statistics.median(x["bookkeeping_s"] for x in stats["launches"][1:]) * 1e6


def command_us(stats: dict) -> float:
    mpi = stats.get("mpi")
    if not mpi:
        return 0.0
    launch = mpi["per_rank"][0]["command_seconds_by_name"].get("launch", 0.0)
    return launch / max(1, len(stats["launches"])) * 1e6


def counted_vs_planned(stats: dict) -> tuple[int, int]:
    counted = sum(n for c in stats["mpi"]["per_rank"] for k, n in c["sent"].items() if k.startswith("launch->"))
    planned = sum(sum(sent_per_rank(x, stats["mpi"]["ranks"])) for x in stats["launches"])
    return counted, planned


CONFIGS = [(1, 1), (1, 2), (2, 1), (2, 2), (4, 1), (4, 2)]


def strong(exe: Path, work: Path, args, runs: int) -> list[dict]:
    width, height, steps = args
    rows, base = [], None
    for ranks, devices in CONFIGS:
        wall, stats = run(exe, ranks, devices, args, work, runs)
        startup, _ = run(exe, ranks, devices, (width, height, 0), work, runs)
        step = (wall - startup) / steps
        base = base or step
        row = {"ranks": ranks, "devices": devices, "wall": wall, "startup": startup, "step_ms": step * 1e3,
               "speedup": base / step, "bookkeeping_us": bookkeeping_us(stats), "command_us": command_us(stats)}
        if ranks > 1:
            per_rank = [max(sent_per_rank(x, ranks)) for x in steady(stats)]
            row["max_rank_bytes"] = max(per_rank)
            row["min_rank_bytes"] = (2 if ranks > 2 else 1) * width * 4
            row["between_ranks"] = statistics.median(sum(sent_per_rank(x, ranks)) for x in steady(stats))
            row["minimal_between"] = 2 * (ranks - 1) * width * 4
            row["counted"], row["planned"] = counted_vs_planned(stats)
        rows.append(row)
    return rows


def weak(exe: Path, work: Path, width: int, rows_per_device: int, steps: int, runs: int) -> list[dict]:
    out, base = [], None
    for ranks, devices in [(1, 1), (2, 1), (2, 2), (4, 1)]:
        args = (width, rows_per_device * ranks * devices, steps)
        wall, _ = run(exe, ranks, devices, args, work, runs)
        base = base or wall
        out.append({"ranks": ranks, "devices": devices, "height": args[1], "wall": wall, "efficiency": base / wall})
    return out


def nbody_bytes(exe: Path, work: Path, count: int, steps: int) -> list[dict]:
    out = []
    for ranks, devices in [(2, 1), (4, 1), (2, 2)]:
        _, stats = run(exe, ranks, devices, (count, steps), work, 1)
        forces = steady(stats, "compute_forces")
        between = statistics.median(sum(sent_per_rank(x, ranks)) for x in forces)
        blocks = (count + 255) // 256
        per = -(-blocks // (ranks * devices))     # blocks per device (1-D split, last device shorter)
        own = [min(count, 256 * per * devices * (r + 1)) - min(count, 256 * per * devices * r) for r in range(ranks)]
        minimal = sum((count - o) * F4 for o in own if o)
        counted, planned = counted_vs_planned(stats)
        out.append({"ranks": ranks, "devices": devices, "between": between, "minimal": minimal,
                    "counted": counted, "planned": planned})
    return out


# ---- projection for a GPU cluster ----
#: documented peak bandwidths (bytes/s) and latencies (s), per direction
NVLINK4 = 450e9            # H100 SXM: 18 NVLink 4 links, 900 GB/s both directions
IB_NDR = 50e9              # one 400 Gb/s InfiniBand NDR port per GPU
PCIE5 = 64e9               # PCIe 5.0 x16 (host staging: device -> host, host -> device)
HBM3 = 3.35e12             # H100 SXM memory bandwidth
LAT_NVLINK, LAT_IB = 3e-6, 5e-6
LAUNCH_ISSUE = 5e-6        # a kernel launch from the host, per device


# ---- command delivery (run inside ``mpirun -np 2``: scripts/bench_mpi.py --command-latency) ----
LAUNCH_COMMAND = ("launch", ((0, "hotspot_step"), (63, 63, 1), (16, 16, 1),
                             [0x5200_0000_0000, 0x5200_0010_0100, 0x5200_0020_0200, 1000, 1000, 0.5, 0.1],
                             0, 0, "auto"), None)


def command_latency(pings: int = 1000) -> None:
    """Rank 0 sends hotspot-sized launch commands through the runtime's Transport; rank 1 receives them
    with the serving loop's polling (``receive_command``) and answers one byte. Between commands rank 0
    waits ``gap`` (a kernel's time): after a longer gap the idle rank is asleep in its poll."""
    from mpi4py import MPI

    from runtime.mpi.transport import Transport
    t = Transport()
    ack = bytearray(1)
    if t.rank == 0:
        out = {}
        for gap in (0.0, 100e-6, 1e-3):
            sends, trips = [], []
            for _ in range(pings):
                until = time.perf_counter() + gap
                while time.perf_counter() < until:
                    pass
                start = time.perf_counter()
                t.send_command(LAUNCH_COMMAND)
                sent = time.perf_counter()
                t.data.Recv([ack, MPI.BYTE], 1)
                sends.append(sent - start)
                trips.append(time.perf_counter() - start)
            out[f"{gap * 1e6:.0f}"] = {"send_us": statistics.median(sends) * 1e6,
                                       "round_trip_us": statistics.median(trips) * 1e6}
        t.send_command(("stop", (), None))
        print(json.dumps(out))
    else:
        while t.receive_command()[0] != "stop":
            t.data.Send([ack, MPI.BYTE], 0)
    MPI.Finalize()


def measure_command_latency() -> dict:
    command = mpirun_command(2, [sys.executable, str(Path(__file__).resolve()), "--command-latency"])
    proc = subprocess.run(command, capture_output=True, text=True, env=job_env(1), timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"command latency run failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def project(width: int, height: int, gpus: int, per_node: int, bookkeeping: float, command: float) -> dict:
    """Seconds per step of a hotspot-like 5-point stencil (float, 12 bytes of HBM traffic per cell: read
    temp and power, write the result) on ``gpus`` GPUs, ``per_node`` per node, one rank per node:
    kernel time from the roofline, the halo (one row each way per boundary: NVLink inside a node;
    staged through host memory over PCIe and InfiniBand between nodes), the host's launch issue for
    its GPUs and the runtime's bookkeeping and command per launch (measured here)."""
    kernel = 12 * width * height / HBM3 / gpus
    row = width * 4
    nodes = -(-gpus // per_node)
    inside = (min(gpus, per_node) - 1)            # boundaries inside one node (all nodes in parallel)
    halo_nvlink = (LAT_NVLINK + 2 * row / NVLINK4) if inside else 0.0
    halo_ib = (LAT_IB + 2 * row / PCIE5 + row / IB_NDR) if nodes > 1 else 0.0
    host = bookkeeping + LAUNCH_ISSUE * min(gpus, per_node) + (command * (nodes - 1) if nodes > 1 else 0.0)
    return {"gpus": gpus, "kernel": kernel, "halo": halo_nvlink + halo_ib, "host": host,
            "step": max(kernel + halo_nvlink + halo_ib, 0) + host}


def projection(bookkeeping: float, command: float, width: int = 16384, height: int = 16384) -> list[dict]:
    one = project(width, height, 1, 8, bookkeeping, command)["step"]
    rows = []
    for gpus in (1, 2, 4, 8, 16, 32):
        p = project(width, height, gpus, 8, bookkeeping, command)
        p["speedup"] = one / p["step"]
        rows.append(p)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--command-latency", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.command_latency:                  # inside mpirun (measure_command_latency)
        command_latency(200 if args.quick else 1000)
        return 0
    size = (256, 128, 8) if args.quick else (1000, 1000, 50)
    with tempfile.TemporaryDirectory(prefix="bench-mpi-") as temp:
        work = Path(temp)
        hotspot, nbody = build_sample("hotspot", work), build_sample("nbody", work)
        print(f"# bench_mpi on {platform.node()} ({os.cpu_count()} cores), {time.strftime('%Y-%m-%d')}")
        print(f"\n## strong scaling: hotspot {size[0]}x{size[1]}, {size[2]} steps")
        print("| ranks x devices | wall s | 0 steps s | per step ms | step speedup | bookkeeping/launch us "
              "| command/launch us "
              "| max bytes a rank sends/launch (min) | bytes between ranks/launch (min) | MPI counted = planned |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        strong_rows = strong(hotspot, work, size, args.runs)
        for r in strong_rows:
            mpi = (f"{r['max_rank_bytes']} ({r['min_rank_bytes']}) | {r['between_ranks']:.0f} "
                   f"({r['minimal_between']}) | {r['counted']} = {r['planned']}" if r["ranks"] > 1
                   else "- | - | -")
            print(f"| {r['ranks']} x {r['devices']}{'' if r['ranks'] > 1 else ' (no MPI)'} | {r['wall']:.2f} | "
                  f"{r['startup']:.2f} | {r['step_ms']:.1f} | {r['speedup']:.2f} | {r['bookkeeping_us']:.0f} | "
                  f"{r['command_us']:.0f} | {mpi} |")
        width, rows_per, steps = (256, 64, 8) if args.quick else (1000, 250, 50)
        print(f"\n## weak scaling: hotspot width {width}, {rows_per} rows per device, {steps} steps")
        print("| ranks x devices | height | wall s | efficiency |")
        print("|---|---|---|---|")
        for r in weak(hotspot, work, width, rows_per, steps, args.runs):
            print(f"| {r['ranks']} x {r['devices']} | {r['height']} | {r['wall']:.2f} | {r['efficiency']:.2f} |")
        count, nsteps = (1024, 3) if args.quick else (4096, 5)
        print(f"\n## n-body {count} bodies, {nsteps} steps: positions between ranks per force launch")
        print("| ranks x devices | bytes between ranks/launch | minimum | MPI counted = planned |")
        print("|---|---|---|---|")
        for r in nbody_bytes(nbody, work, count, nsteps):
            print(f"| {r['ranks']} x {r['devices']} | {r['between']:.0f} | {r['minimal']} | "
                  f"{r['counted']} = {r['planned']} |")
        latency = measure_command_latency()
        print("\n## command delivery: a launch command from rank 0 to rank 1 (2 ranks, idle otherwise)")
        print("| gap before the command us | send on rank 0 us (median) | round trip to rank 1 and back us (median) |")
        print("|---|---|---|")
        for gap, row in latency.items():
            print(f"| {gap} | {row['send_us']:.1f} | {row['round_trip_us']:.1f} |")
        bookkeeping = statistics.median(r["bookkeeping_us"] for r in strong_rows) * 1e-6
        command = latency["100"]["round_trip_us"] / 2 * 1e-6 + LAT_IB
        for width in (16384, 32768):
            print(f"\n## projection: {width}x{width} stencil on H100s, 8 per node, one rank per node "
                  f"(bookkeeping {bookkeeping * 1e6:.0f} us per launch and command {command * 1e6:.1f} us per "
                  "other rank: measured above, plus the InfiniBand latency)")
            print("| GPUs | kernel us | halo us | host us | step us | speedup |")
            print("|---|---|---|---|---|---|")
            for p in projection(bookkeeping, command, width, width):
                print(f"| {p['gpus']} | {p['kernel'] * 1e6:.0f} | {p['halo'] * 1e6:.1f} | {p['host'] * 1e6:.0f} | "
                      f"{p['step'] * 1e6:.0f} | {p['speedup']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
