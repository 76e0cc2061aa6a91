#!/usr/bin/env python3
"""Benchmarks of programs rewritten by ``s2s mgpu`` on the runtime's emulated cpu devices.

1. Data movement and bookkeeping of the *rewritten programs* (samples/cuda hotspot, nbody, matmul_tiled:
   rewritten, built with nvcc, run with S2S_STATS) at P = 1, 2, 4, 8 devices:
   - bytes moved between devices per iteration in the steady state (iterations after the first) against
     the minimum: hotspot (1-D row split of the 5-point stencil) 2 * (P - 1) rows of `width` floats, one
     row each way per boundary; n-body each device must receive every body it does not own once per step
     ((P - 1) * n * 16 bytes in total); matmul has no iterations (one launch);
   - bookkeeping time per launch (median over the run's launches after the first: access enumeration,
     tracker queries and updates, copy planning; kernel and copy time excluded), and of the first launch
     (which builds the enumerators: isl row plans and their llvmlite JIT functions).
   The programs run with S2S_CPU_THREADS=1: on a 2-core machine, emulator worker threads of the previous
   kernel compete with the bookkeeping of the next launch (about 2x slower bookkeeping measured).
2. Read-shared operands (Python API, real access models): tiled matmul C = A * B launched 3 times with
   the same A and B, and n-body's force kernel 3 times on unchanged positions: bytes each device receives
   per launch: the shared operand arrives once, not every iteration.
3. 1-device slowdown: hotspot steps on one cpu device, alternately as the original program's launches
   (no access model) and as the rewritten program's (with the model), same runtime and buffers, per
   launch (median of 5 rounds after a warm-up round);
   and the end-to-end wall time of the rewritten binaries at P = 1.

4. The CUDA corpus (testsuite/corpus/cuda, programs written like public suites): each built by
   ``s2s nvcc --s2s-passes=mgpu`` and run on P = 2 and 4 devices with its sample.toml arguments:
   launches, launches split, bytes between devices against the minimal volume where sample.toml
   derives one (``minimal_device_bytes`` on 2 devices, ``minimal_device_bytes_4`` on 4), bookkeeping
   per launch (median).

Usage: python scripts/bench_mgpu.py [--quick] [--corpus-only]
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

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from runtime.access import KernelAccess  # noqa: E402
from runtime.api import Runtime  # noqa: E402
from s2s.analysis.kernel.access import analyze_unit  # noqa: E402
from s2s.driver import RunOptions, process_file  # noqa: E402
from s2s.frontend.extract import load  # noqa: E402
from s2s.output import write_rewritten  # noqa: E402
from s2s.transform.mgpu import run_mgpu  # noqa: E402
from s2s.wrapper.runtime_flags import mgpu_runtime_flags  # noqa: E402

SAMPLES = REPO / "samples" / "cuda"
F4 = 16


def build(name: str, work: Path) -> Path:
    result = process_file(str(SAMPLES / name / f"{name}.cu"), RunOptions(), run_mgpu)
    source = work / f"{name}.cu"
    write_rewritten(result.change, result.generated, str(source))   # and its kernel table
    flags = mgpu_runtime_flags()
    exe = work / name
    subprocess.run([shutil.which("nvcc"), "-std=c++17", "-arch=sm_90", *flags.compile, str(source),
                    *flags.link, "-o", str(exe)], check=True, capture_output=True)
    return exe


def run_program(exe: Path, devices: int, args, work: Path) -> tuple[dict, float]:
    stats = work / "stats.json"
    env = dict(os.environ, S2S_BACKEND="cpu", S2S_DEVICES=str(devices), S2S_STATS=str(stats),
               S2S_CPU_THREADS="1")   # emulator worker threads would compete with the bookkeeping on 2 cores
    start = time.perf_counter()
    subprocess.run([str(exe), *map(str, args)], check=True, capture_output=True, env=env)
    return json.loads(stats.read_text()), time.perf_counter() - start


def device_bytes(launch: dict) -> int:
    return sum(n for link, n in launch["links"].items() if not link.startswith("host"))


def programs_table(work: Path, counts, quick: bool) -> None:
    width, height, steps = (500, 300, 8) if quick else (500, 300, 30)
    n, nsteps = (1000, 3) if quick else (2000, 6)
    cases = [("hotspot", (width, height, steps)), ("nbody", (n, nsteps)), ("matmul_tiled", ())]
    print("\n## Rewritten programs on P emulated devices (steady state: iterations after the first)\n")
    print("| program | P | bytes between devices / iteration | minimal | ratio | bookkeeping / launch "
          "(median, after the first) | first launch bookkeeping |")
    print("|---|---|---|---|---|---|---|")
    for name, args in cases:
        exe = build(name, work)
        for p in counts:
            stats, _ = run_program(exe, p, args, work)
            launches = stats["launches"]
            first = launches[0]["bookkeeping_s"] * 1e3
            book = (f"{statistics.median(launch['bookkeeping_s'] for launch in launches[1:]) * 1e6:.0f} us"
                    if len(launches) > 1 else "-")
            if name == "hotspot":
                moved = statistics.median(device_bytes(launch) for launch in launches[1:])
                minimal = 2 * (p - 1) * width * 4
            elif name == "nbody":
                per_step = [device_bytes(a) + device_bytes(b) for a, b in zip(launches[2::2], launches[3::2],
                                                                                strict=True)]
                moved, minimal = statistics.median(per_step), (p - 1) * n * F4
            else:
                moved, minimal = None, None
            ratio = f"{moved / minimal:.2f}" if minimal else "-"
            print(f"| {name} | {p} | {'-' if moved is None else int(moved)} | "
                  f"{'-' if minimal is None else minimal} | {ratio} | {book} | {first:.1f} ms |")


#: (program, arguments) of the bookkeeping table: hotspot 500x300, 30 steps; n-body 2,000 bodies,
#: 16 steps (32 launches: its pointer swap keeps launches planning for the first steps)
BOOKKEEPING_CASES = (("hotspot", (500, 300, 30)), ("nbody", (2000, 16)))


def steady_state(launches: list[dict]) -> list[dict]:
    """The launches after the warm-up: those after the last launch that planned (did not replay
    a remembered transition). The warm-up's launches plan their copies, build their sites and
    bind shapes; counting them (n-body's first 4 of 11, before) measured the warm-up, not the
    per-launch cost of an iterative program."""
    planned = [i for i, launch in enumerate(launches) if not launch.get("replayed", False)]
    return launches[planned[-1] + 1:] if planned else launches


def bookkeeping_table(work: Path, runs: int = 3) -> None:
    """Issue 30 item 5: median bookkeeping per launch in the steady state (:func:`steady_state`)
    of the rewritten hotspot and n-body at 2 and 4 devices, ``runs`` runs each (the machine's
    noise shows in the spread), with each kernel's own median."""
    print("\n## Bookkeeping per partitioned launch (median over the steady state; one value per run)\n")
    print("| program | P | launches (warm-up) | bookkeeping us / launch, per run | "
          "per kernel, median of the runs | all launches after the first, per run |")
    print("|---|---|---|---|---|---|")
    for name, args in BOOKKEEPING_CASES:
        exe = build(name, work)
        for p in (2, 4):
            medians, everything, kernels, warm_up = [], [], {}, []
            for _ in range(runs):
                launches = run_program(exe, p, args, work)[0]["launches"]
                steady = steady_state(launches)
                warm_up.append(len(launches) - len(steady))
                medians.append(statistics.median(launch["bookkeeping_s"] for launch in steady) * 1e6)
                everything.append(statistics.median(
                    launch["bookkeeping_s"] for launch in launches[1:]) * 1e6)
                for launch in steady:
                    kernels.setdefault(launch["kernel"], []).append(launch["bookkeeping_s"] * 1e6)
            per_kernel = ", ".join(f"{kernel} {statistics.median(times):.1f}"
                                   for kernel, times in kernels.items())
            print(f"| {name} | {p} | {len(launches)} ({' / '.join(map(str, warm_up))}) | "
                  f"{' / '.join(f'{m:.1f}' for m in medians)} | {per_kernel} | "
                  f"{' / '.join(f'{m:.0f}' for m in everything)} |")


def corpus_table() -> None:
    sys.path.insert(0, str(REPO / "testsuite" / "mgpu"))       # the corpus test's own imports
    import test_cuda_corpus as corpus
    print("\n## CUDA corpus (testsuite/corpus/cuda) on P emulated devices\n")
    print("| program | P | launches | split | bytes between devices | minimal | ratio | "
          "bookkeeping / launch (median) |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="s2s-bench-corpus-") as temp:
        for name in corpus.PROGRAMS:
            result = corpus.measure(name, Path(temp) / name)
            for p in corpus.DEVICES:
                # minimal volume on 2 devices (minimal_device_bytes), on 4 (minimal_device_bytes_4)
                minimal = result["info"].get("minimal_device_bytes" + ("" if p == 2 else f"_{p}"))
                stats = result[p]["stats"]
                _copies, traffic = corpus.traffic_of(stats)
                book = statistics.median(launch["bookkeeping_s"] for launch in stats["launches"])
                known = minimal is not None
                ratio = (f"{traffic.d2d_bytes / minimal:.2f}" if known and minimal else
                         ("-" if not known or traffic.d2d_bytes else "1.00"))
                print(f"| {name} | {p} | {traffic.launches} | {traffic.partitioned} | "
                      f"{traffic.d2d_bytes} | {minimal if known else '-'} | {ratio} | "
                      f"{book * 1e6:.0f} us |")


def models(name: str) -> dict[str, KernelAccess]:
    loaded = load(str(SAMPLES / name / f"{name}.cu"))
    return {m.kernel: KernelAccess.from_dict(m.to_dict()) for m in analyze_unit(loaded.model.kernel_bodies)}


def received(stats) -> dict[str, int]:
    """Bytes each device received from other devices in one launch."""
    out: dict[str, int] = {}
    for (src, dst), nbytes in stats.transfers.link_bytes.items():
        if src != "host":
            out[dst] = out.get(dst, 0) + nbytes
    return out


def shared_operands_table(counts) -> None:
    print("\n## Read-shared operands: bytes each device receives from other devices, per launch\n")
    print("| kernel | P | operand size | launch 1 (per device, max) | launch 2 | launch 3 |")
    print("|---|---|---|---|---|---|")
    mm, nb = models("matmul_tiled")["matmul_tiled"], models("nbody")["compute_forces"]
    for p in counts:
        if p == 1:
            continue
        rt = Runtime("cpu", p, threads=1)
        m = k = 256
        a = rt.malloc(m * k * 4)
        b = rt.malloc(k * m * 4)
        c = rt.malloc(m * m * 4)
        rt.memcpy_htod(a, np.ones(m * k, np.float32))
        rt.memcpy_htod(b, np.ones(k * m, np.float32))
        mod = rt.load_module(path=str(SAMPLES / "matmul_tiled" / "matmul_tiled.cu"))
        row = []
        for _ in range(3):
            s = rt.launch(mod["matmul_tiled"], (16, 16), (16, 16), [a, b, c, m, m, k], access=mm)
            row.append(max(received(s).values(), default=0))
        print(f"| matmul_tiled 256^3 (B) | {p} | {k * m * 4} | " + " | ".join(map(str, row)) + " |")
        n = 2048
        pos = rt.malloc(n * F4)
        acc = rt.malloc(n * F4)
        rt.memcpy_htod(pos, np.ones(n * 4, np.float32))
        nmod = rt.load_module(path=str(SAMPLES / "nbody" / "nbody.cu"))
        row = []
        for _ in range(3):
            s = rt.launch(nmod["compute_forces"], n // 256, 256, [pos, acc, n], access=nb)
            row.append(max(received(s).values(), default=0))
        print(f"| compute_forces n={n} (pos) | {p} | {n * F4} | " + " | ".join(map(str, row)) + " |")


def slowdown_table(work: Path, quick: bool) -> None:
    print("\n## One device: original launches (no model) vs rewritten launches (with the model)\n")
    print("| program | launches | original ms / launch | rewritten ms / launch | slowdown | "
          "rewritten binary wall time (P=1) |")
    print("|---|---|---|---|---|---|")
    hot = models("hotspot")["hotspot_step"]
    width, height, steps = 500, 300, (10 if quick else 40)
    from rt_support import hotspot_fields  # testsuite/runtime helper (on sys.path, see main)
    temp, power = hotspot_fields(width, height)
    runs: dict[str, list[float]] = {"original": [], "rewritten": []}
    rt = Runtime("cpu", 1, threads=1)                    # one runtime and one set of buffers for both
    mod = rt.load_module(path=str(SAMPLES / "hotspot" / "hotspot.cu"))
    dp, src, dst = rt.malloc(power.nbytes), rt.malloc(temp.nbytes), rt.malloc(temp.nbytes)
    rt.memcpy_htod(dp, power)
    rt.memcpy_htod(src, temp)
    for repeat in range(6):                              # alternate; the first round is a warm-up
        for label, access in (("original", None), ("rewritten", hot)):
            start = time.perf_counter()
            for _ in range(steps):
                rt.launch(mod["hotspot_step"], (32, 19), (16, 16),
                          [dp, src, dst, width, height, 0.125, 1.0, 1.0, 0.0625], access=access)
                src, dst = dst, src
            if repeat:
                runs[label].append((time.perf_counter() - start) / steps * 1e3)
    times = {label: statistics.median(values) for label, values in runs.items()}
    _, wall = run_program(build("hotspot", work), 1, (width, height, steps), work)
    print(f"| hotspot 500x300 | {steps} | {times['original']:.2f} | {times['rewritten']:.2f} | "
          f"{times['rewritten'] / times['original']:.2f} | {wall:.2f} s |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations and device counts")
    parser.add_argument("--corpus-only", action="store_true", help="only the CUDA corpus table")
    parser.add_argument("--bookkeeping", action="store_true",
                        help="only the bookkeeping per launch of hotspot and n-body at 2 and 4 devices")
    args = parser.parse_args()
    if shutil.which("nvcc") is None:
        print("nvcc not found: the rewritten programs cannot be built", file=sys.stderr)
        return 1
    sys.path.insert(0, str(REPO / "testsuite" / "runtime"))
    counts = (1, 2, 4) if args.quick else (1, 2, 4, 8)
    print(f"# bench_mgpu ({os.cpu_count()} cores, cpu backend)")
    if args.corpus_only:
        corpus_table()
        return 0
    if args.bookkeeping:
        with tempfile.TemporaryDirectory() as tmp:
            bookkeeping_table(Path(tmp))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        programs_table(work, counts, args.quick)
        shared_operands_table(counts)
        slowdown_table(work, args.quick)
    corpus_table()
    return 0


if __name__ == "__main__":
    sys.exit(main())
