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

``--corpus``: the programs of testsuite/corpus/cuda instead, each built as its user would (the
original with nvcc, the rewrite with ``s2s nvcc --s2s-passes=mgpu`` and the program's flags),
its rewrite's output at P = 1, 2, 4 compared with the original's on the GPU.

Usage: python scripts/bench_mgpu_gpu.py [--markdown] [--runs 3] [--corpus] [SAMPLE ...]
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
from s2s.output import write_rewritten  # noqa: E402
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
    write_rewritten(result.change, result.generated, str(rewritten))   # and its kernel table
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


CORPUS = REPO / "testsuite" / "corpus" / "cuda"


def measure_corpus(name: str, work: Path) -> dict:
    """A corpus program (``testsuite/corpus/cuda/<name>``, as its user builds it): the original
    with plain nvcc on the GPU, the rewrite with ``s2s nvcc --s2s-passes=mgpu`` and the
    program's flags; the rewrite's output at P = 1, 2, 4 partitions of the GPU against the
    original's (timing lines as sample.toml says left out, numbers exactly)."""
    import tomllib  # noqa: PLC0415

    from s2s.verify.omp_harness import output_differences  # noqa: PLC0415

    directory = CORPUS / name
    info = tomllib.loads((directory / "sample.toml").read_text())
    inputs = work / "inputs"
    inputs.mkdir(parents=True)
    if "make_input" in info:
        script, *rest = info["make_input"]
        subprocess.run([sys.executable, str(directory / script), *rest, str(inputs)], check=True)
    args = [a.replace("{inputs}", str(inputs)) for a in info.get("args", [])]
    flags = list(info.get("flags", []))
    source = info["sources"][0]
    nvcc = shutil.which("nvcc")
    env = {k: v for k, v in os.environ.items() if k not in ("S2S_WRAPPED", "S2S_PASSES")}
    # CUDA 13 removed cudaThreadSynchronize/cudaThreadExit, which older programs call: the
    # original builds with their current names (the rewrite gets them from the runtime)
    legacy = ["-DcudaThreadSynchronize=cudaDeviceSynchronize", "-DcudaThreadExit=cudaDeviceReset"]
    for command in ([nvcc, "-O2", "-std=c++17", "-arch=sm_90", *legacy, *flags, source, "-o",
                     str(work / "orig")],
                    [sys.executable, "-m", "s2s", "nvcc", "--s2s-passes=mgpu", "-O2",
                     "-std=c++17", "-arch=sm_90", *flags, source, "-o", str(work / "mgpu")]):
        proc = subprocess.run(command, capture_output=True, text=True, cwd=directory,
                              env=dict(env, PYTHONPATH=os.pathsep.join(
                                  filter(None, (str(REPO), env.get("PYTHONPATH"))))))
        if proc.returncode or "[wrapper-" in proc.stderr:
            raise RuntimeError(f"{name}: build failed: {proc.stderr[-1500:]}")
    ignore = tuple(info.get("ignore_lines", ()))
    row: dict = {"name": name, "problems": []}
    proc = subprocess.run([str(work / "orig"), *args], capture_output=True, text=True,
                          timeout=300, cwd=directory)
    original = proc.stdout
    if proc.returncode:
        row["problems"].append(f"original exited {proc.returncode}: {proc.stderr[-300:]}")
    stats = work / "stats.json"
    for p in (1, 2, 4):
        stats.unlink(missing_ok=True)
        proc = subprocess.run([str(work / "mgpu"), *args], capture_output=True, text=True,
                              timeout=300, cwd=directory, env=dict(os.environ, **mgpu_env(p, stats)))
        if proc.returncode or not stats.exists():
            row["problems"].append(f"P={p}: exit {proc.returncode} {proc.stderr[-300:]}")
            continue
        data = json.loads(stats.read_text())
        row[f"partitioned_{p}"] = sum(1 for launch in data["launches"] if launch.get("partitioned"))
        row["launches"] = len(data["launches"])
        if output_differences(original, proc.stdout, 0.0, ignore=ignore):
            row["problems"].append(f"P={p}: output differs from the original")
    return row


def print_corpus(rows: list[dict], device: str) -> None:
    print(f"\n## s2s mgpu on {device}: the CUDA corpus at P = 1, 2, 4 partitions of one GPU\n")
    print("| program | launches | split at P=2 | split at P=4 | outputs vs original (nvcc, GPU) |")
    print("|---|---|---|---|---|")
    for row in rows:
        verdict = "same at P=1,2,4" if not row["problems"] else \
            "DIFFER: " + "; ".join(row["problems"])[:200].replace("|", "/").replace("\n", " ")
        print(f"| {row['name']} | {row.get('launches', '-')} | {row.get('partitioned_2', '-')} | "
              f"{row.get('partitioned_4', '-')} | {verdict} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="(tables are always markdown)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", action="store_true",
                        help="the programs of testsuite/corpus/cuda (built as their users do) "
                             "instead of the samples")
    parser.add_argument("samples", nargs="*")
    args = parser.parse_args()
    reason = gpu_or_reason()
    if reason is not None:
        print(f"bench_mgpu_gpu: skipped: {reason}; nothing was measured")
        return 0
    from runtime.cuda.device import driver
    device = driver().Device(0).name()
    rows = []
    if args.corpus:
        names = args.samples or sorted(p.parent.name for p in CORPUS.glob("*/sample.toml"))
        with tempfile.TemporaryDirectory(prefix="s2s-bench-mgpu-corpus-") as tmp:
            for name in names:
                try:
                    rows.append(measure_corpus(name, Path(tmp) / name))
                except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as err:
                    rows.append({"name": name, "problems": [str(err).replace("\n", " ")]})
                print(f"# {name}: done", file=sys.stderr, flush=True)
        print_corpus(rows, device)
        return 1 if any(row["problems"] for row in rows) else 0
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
