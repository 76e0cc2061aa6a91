#!/usr/bin/env python3
"""``s2s mgpu`` programs on a real GPU: outputs at P = 1..4 partitions and the cost of the runtime.

For each CUDA sample that ``s2s mgpu`` rewrites, the original program is built with ``nvcc -O2
-arch=sm_90`` and the rewrite with the runtime's C library; the rewrite runs on the cuda backend
(PyCUDA) with ``S2S_DEVICES=P`` and ``S2S_CUDA_SHARE=1``, so P partitions share the machine's one GPU
(each its own context and memory; copies between them go through cuMemcpyPeer as between GPUs).

A row: the original's output against the sample's expected_output.txt (numbers within the sample's
tolerance), the rewrite's output at P = 1 against the expected output and at P = 2..4 against its own
P = 1 output (exactly), the wall time of the original and of the rewrite at P = 1 (median of
``--runs`` runs after one warm-up run that also fills the cubin cache), and the runtime's own time
per launch (``bookkeeping_s`` of S2S_STATS: access enumeration, coherence, copy planning; median over
the launches after the first).  The wall times include the embedded Python's start and PyCUDA's
context creation, a fixed cost the original program does not pay.

Needs nvcc, PyCUDA and a CUDA GPU; without them it prints why and exits 0 (nothing measured).

Usage: python scripts/bench_mgpu_gpu.py [--markdown] [--runs 3] [SAMPLE ...]
Exit status 0; 1 if a build or run fails or an output differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from run_cuda_samples import compare_outputs, load_sample  # noqa: E402

from s2s.driver import RunOptions, Success, process_file  # noqa: E402
from s2s.transform.mgpu import run_mgpu  # noqa: E402
from s2s.wrapper.runtime_flags import mgpu_runtime_flags  # noqa: E402

SAMPLES = REPO / "samples" / "cuda"
PROGRAMS = ("hotspot", "nbody", "matmul_tiled", "saxpy", "bicgk", "elementwise_chain", "gemver",
            "softmax_warp", "streams_events", "block_reduction")
PARTITIONS = (1, 2, 3, 4)


def gpu_or_reason() -> str | None:
    """None when nvcc, PyCUDA and a GPU are usable, else why not."""
    if shutil.which("nvcc") is None:
        return "nvcc not found"
    try:
        from runtime.cuda.device import open_devices
        open_devices(1)
    except Exception as err:      # BackendUnavailable, ImportError: all mean "no GPU here"
        return str(err)
    return None


def build_pair(name: str, work: Path) -> tuple[Path, Path]:
    """(original executable, rewritten executable)."""
    source = SAMPLES / name / f"{name}.cu"
    result = process_file(str(source), RunOptions(), run_mgpu)
    if not isinstance(result, Success):
        raise RuntimeError(f"{name}: s2s mgpu failed: {[d.headline() for d in result.diagnostics]}")
    rewritten = work / f"{name}.cu"
    rewritten.write_bytes(result.change.after)
    flags = mgpu_runtime_flags()
    nvcc = shutil.which("nvcc")
    commands = [
        [nvcc, "-O2", "-std=c++17", "-arch=sm_90", str(source), "-o", str(work / f"{name}.orig")],
        [nvcc, "-O2", "-std=c++17", "-arch=sm_90", *flags.compile, str(rewritten), *flags.link,
         "-o", str(work / f"{name}.mgpu")],
    ]
    for command in commands:
        proc = subprocess.run(command, capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"{name}: build failed: {proc.stderr[-2000:]}")
    return work / f"{name}.orig", work / f"{name}.mgpu"


def run(exe: Path, args: list[str], env: dict | None = None) -> tuple[str, float]:
    start = time.perf_counter()
    proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, **(env or {})))
    wall = time.perf_counter() - start
    if proc.returncode:
        raise RuntimeError(f"{exe.name} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc.stdout, wall


def mgpu_env(partitions: int, stats: Path) -> dict:
    return {"S2S_BACKEND": "cuda", "S2S_DEVICES": str(partitions), "S2S_CUDA_SHARE": "1",
            "S2S_STATS": str(stats)}


def measure(name: str, work: Path, runs: int) -> dict:
    meta = load_sample(SAMPLES / name)
    expected = (SAMPLES / name / "expected_output.txt").read_text()
    tolerance = float(meta["tolerance"])
    original, rewritten = build_pair(name, work)
    stats = work / f"{name}.json"
    row: dict = {"name": name, "problems": []}
    out, _ = run(original, meta["args"])
    row["problems"] += [f"original: {p}" for p in compare_outputs(expected, out, tolerance)]
    outputs = {}
    for p in PARTITIONS:
        outputs[p], _ = run(rewritten, meta["args"], mgpu_env(p, stats))
        data = json.loads(stats.read_text())
        if p == 1:
            row["problems"] += [f"P=1: {x}" for x in compare_outputs(expected, outputs[1], tolerance)]
            books = [launch["bookkeeping_s"] for launch in data["launches"][1:]]
            row["bookkeeping_us"] = statistics.median(books) * 1e6 if books else None
            row["launches"] = len(data["launches"])
        elif outputs[p] != outputs[1]:
            row["problems"].append(f"P={p}: output differs from P=1")
        row[f"partitioned_{p}"] = sum(1 for launch in data["launches"] if launch.get("partitioned"))
    walls = {"orig": [], "mgpu": []}
    for _ in range(runs):
        walls["orig"].append(run(original, meta["args"])[1])
        walls["mgpu"].append(run(rewritten, meta["args"], mgpu_env(1, stats))[1])
    row["orig_s"] = statistics.median(walls["orig"])
    row["mgpu_s"] = statistics.median(walls["mgpu"])
    return row


def print_table(rows: list[dict], device: str) -> None:
    print(f"\n## s2s mgpu on {device}: outputs at P = 1..4 partitions on one GPU, wall time at P = 1\n")
    print("| program | launches | partitioned launches at P=2 | outputs | original s | rewrite P=1 s | "
          "difference | bookkeeping / launch (median) |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        if "orig_s" not in row:
            print(f"| {row['name']} | - | - | FAILED: {row['problems'][0][:120]} | - | - | - | - |")
            continue
        book = "-" if row["bookkeeping_us"] is None else f"{row['bookkeeping_us']:.0f} us"
        verdict = "same" if not row["problems"] else "DIFFER: " + "; ".join(row["problems"])[:160]
        print(f"| {row['name']} | {row['launches']} | {row['partitioned_2']} | {verdict} | "
              f"{row['orig_s']:.3f} | {row['mgpu_s']:.3f} | {row['mgpu_s'] - row['orig_s']:+.3f} s | {book} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="(tables are always markdown)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("samples", nargs="*")
    args = parser.parse_args()
    reason = gpu_or_reason()
    if reason is not None:
        print(f"bench_mgpu_gpu: skipped: {reason}; nothing was measured")
        return 0
    from runtime.cuda.device import driver
    device = driver().Device(0).name()
    rows = []
    with tempfile.TemporaryDirectory(prefix="s2s-bench-mgpu-gpu-") as tmp:
        for name in args.samples or PROGRAMS:
            work = Path(tmp) / name
            work.mkdir()
            try:
                rows.append(measure(name, work, args.runs))
            except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as err:
                rows.append({"name": name, "problems": [str(err).replace("\n", " ")]})
            print(f"# {name}: done", file=sys.stderr, flush=True)
    print_table(rows, device)
    return 1 if any(row["problems"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
