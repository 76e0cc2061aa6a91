#!/usr/bin/env python3
"""Before/after ``s2s transfers`` on a real GPU, like Table 5 of Kessler's paper.

For every transfer sample (Horner, 4x4 tiled Cholesky, 2x2 block matmul, CG steps) the
original and the ``s2s transfers`` rewrite are built with ``nvcc -O2 -arch=sm_90`` and run at
4K, 64K, 1M and 4M floats per operand (Horner and CG: ``n``; Cholesky and matmul: tiles of
``b x b`` with ``b = sqrt(floats)``, i.e. 64, 256, 1024, 2048). The time of a program is the
median of ``--runs`` wall-clock runs minus the median of an empty CUDA program (context
creation), so it is the program's allocations, copies, kernels and host code. The outputs of
both versions must be identical.

The Cholesky rows stop at 1M floats (its POTRF runs on the host). Needs nvcc and a CUDA GPU; without them it prints why and exits 0 (nothing measured).

Usage: python scripts/bench_transfers_gpu.py [--markdown] [--runs 5] [--floats 4096,65536,...]
Exit status 0; 1 if a build fails or the outputs of a pair differ.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from s2s.driver import RunOptions, Success, process_file  # noqa: E402
from s2s.frontend.extract import load  # noqa: E402
from s2s.transform.transfers import plan_file, run_transfers  # noqa: E402

SAMPLES = ("horner", "cholesky_tiles", "block_matmul", "cg_steps")
TILED = {"cholesky_tiles", "block_matmul"}
#: The Cholesky sample factorises its diagonal tiles on the host (O(b^3) per tile): 4M floats
#: per tile would be minutes of host code, so its rows stop at 1M.
LARGEST = {"cholesky_tiles": 1048576}
FLOATS = (4096, 65536, 1048576, 4194304)
PROBE = "#include <cuda_runtime.h>\n#include <cstdio>\nint main() { int n = 0; " \
        "cudaError_t e = cudaGetDeviceCount(&n); if (e != cudaSuccess || n == 0) { " \
        "printf(\"%s\\n\", e != cudaSuccess ? cudaGetErrorString(e) : \"no device\"); return 1; } " \
        "cudaFree(0); printf(\"%d\\n\", n); return 0; }\n"


def nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    default = Path("/usr/local/cuda/bin/nvcc")
    return str(default) if default.is_file() else None


def compile_cu(compiler: str, source: Path, exe: Path) -> None:
    proc = subprocess.run([compiler, "-O2", "-arch=sm_90", str(source), "-o", str(exe)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"nvcc failed for {source}:\n{proc.stderr}")


def gpu_available(compiler: str | None, workdir: Path) -> tuple[bool, str, Path | None]:
    if compiler is None:
        return False, "nvcc not found", None
    source = workdir / "probe.cu"
    source.write_text(PROBE)
    exe = workdir / "probe"
    try:
        compile_cu(compiler, source, exe)
    except RuntimeError as error:
        return False, str(error).splitlines()[0], None
    proc = subprocess.run([str(exe)], capture_output=True, text=True)
    if proc.returncode != 0:
        return False, f"no usable CUDA GPU ({(proc.stdout + proc.stderr).strip() or proc.returncode})", None
    return True, "", exe


def timed(exe: Path, args: list[str], runs: int) -> tuple[float, str]:
    times, output = [], None
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=600)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise RuntimeError(f"{exe.name} {' '.join(args)} failed: {proc.stderr[-500:]}")
        output = proc.stdout
    return statistics.median(times), output


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--floats", default=",".join(map(str, FLOATS)))
    args = parser.parse_args()
    os.chdir(REPO_ROOT)
    floats = [int(f) for f in args.floats.split(",")]
    compiler = nvcc()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        ok, reason, probe = gpu_available(compiler, workdir)
        if not ok:
            print(f"bench_transfers_gpu: skipped: {reason}; nothing was measured")
            return 0
        base, _ = timed(probe, [], args.runs)
        rows, failed = [], False
        for name in SAMPLES:
            path = REPO_ROOT / "samples" / "cuda" / name / f"{name}.cu"
            result = process_file(str(path), RunOptions(), run_transfers)
            assert isinstance(result, Success) and result.change.changed
            plan = plan_file(load(str(path)))[0][0]
            exes = {}
            for version, text in (("before", path.read_bytes()), ("after", result.change.after)):
                source = workdir / f"{name}_{version}.cu"
                source.write_bytes(text)
                exes[version] = workdir / f"{name}_{version}"
                compile_cu(compiler, source, exes[version])
            for count in (f for f in floats if f <= LARGEST.get(name, f)):
                size = str(int(math.isqrt(count))) if name in TILED else str(count)
                before, out_before = timed(exes["before"], [size], args.runs)
                after, out_after = timed(exes["after"], [size], args.runs)
                same = out_before == out_after
                failed |= not same
                b_ms, a_ms = (before - base) * 1e3, (after - base) * 1e3
                rows.append([name, str(count), size,
                             f"{plan.copies_before} -> {plan.copies_after}",
                             f"{plan.device_allocs_before} -> {plan.device_allocs_after}",
                             f"{b_ms:.2f}", f"{a_ms:.2f}", f"{b_ms / a_ms:.2f}" if a_ms > 0 else "-",
                             "yes" if same else "NO"])
    header = ["sample", "floats/operand", "arg", "cudaMemcpy", "cudaMalloc", "before ms", "after ms",
              "speedup", "same output"]
    print(f"# {platform.node()}, {time.strftime('%Y-%m-%d')}, median of {args.runs} runs minus an empty "
          f"CUDA program ({base * 1e3:.1f} ms)")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
        print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
        for row in rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
