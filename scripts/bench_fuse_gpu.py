#!/usr/bin/env python3
"""``s2s fuse`` on a real GPU: time and achieved bandwidth before/after, and against CuPy.

For every sample of ``scripts/bench_fuse.py`` the original and the fused program are built
with ``nvcc -O2 -arch=sm_90`` after instrumenting each launch run of ``main`` (the launch
statements ``s2s fuse`` plans over, found by ``graph.find_runs``): the run is repeated
``--reps`` times after two warm-up repetitions between two ``cudaEvent``s, so a row's time is
GPU time per repetition of the sequence, summed over the program's runs (host setup, copies
and context creation are outside). Repeating a run reads the same inputs; sequences with
atomics accumulate the same way in both versions, whose printed results must agree.

Bandwidth is *useful* bandwidth: the minimum global-memory traffic of the sequence (each
uploaded input read once, each copied-back output written once, from the replay model of
``s2s/verify/fuse_replay.py`` at the same sizes) divided by the time, as a share of the
device-to-device ``cudaMemcpy`` bandwidth measured on the same GPU (bytes read + written).
When CuPy is importable, the same sequence written with CuPy (cuBLAS for GEMV/DOT, CuPy
elementwise and reduction kernels otherwise) is timed the same way on the same sizes.

Needs nvcc and a CUDA GPU; without them it prints why and exits 0 (nothing measured).

Usage: python scripts/bench_fuse_gpu.py [--markdown] [--reps 20] [SAMPLE ...]
Exit status 0; 1 if a build or run fails or the outputs of a pair differ.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from s2s.analysis.fuse.graph import find_runs  # noqa: E402
from s2s.analysis.fuse.kernels import kernel_facts  # noqa: E402
from s2s.driver import RunOptions, Success, process_file  # noqa: E402
from s2s.frontend.core.parse import ParseOptions  # noqa: E402
from s2s.frontend.extract import load  # noqa: E402
from s2s.transform.fuse import run_fuse  # noqa: E402
from s2s.verify.fuse_replay import replay  # noqa: E402

VEC, MAT, ROWS, COLS = 1 << 24, 4096, 8192, 1024
#: Sample -> its host size variables in command-line order (also the replay's overrides).
SAMPLES = {
    "axpydot": {"n": VEC}, "atax": {"m": MAT, "n": MAT}, "bicgk": {"nx": MAT, "ny": MAT},
    "bicgk_tiled": {"m": MAT, "n": MAT}, "sgemv": {"m": MAT, "n": MAT},
    "sgemvt": {"m": MAT, "n": MAT}, "sscal": {"m": 1, "n": VEC}, "gemver": {"n": MAT},
    "gesummv": {"m": MAT, "n": MAT}, "madd": {"m": MAT, "n": MAT},
    "vadd": {"m": 1, "n": VEC}, "waxpby": {"m": 1, "n": VEC},
    "softmax_chain": {"rows": ROWS, "cols": COLS}, "layernorm": {"rows": ROWS, "cols": COLS},
    "bias_gelu": {"rows": ROWS, "cols": COLS}, "elementwise_chain": {"n": VEC},
    "block_reduction": {"n": 245000},       # < 480 blocks of 512: the replay skips the clamp
}

HELPERS = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
static int s2s_bench_reps(void)
{
    const char *text = getenv("S2S_REPS");
    return text ? atoi(text) : 20;
}
static void s2s_bench_report(int run, cudaEvent_t start, cudaEvent_t stop, int reps)
{
    float ms = 0.0f;
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&ms, start, stop);
    cudaError_t error = cudaGetLastError();
    fprintf(stderr, "S2S_RUN %d %.9f %s\\n", run, ms / reps, cudaGetErrorString(error));
}
"""

COPY_PROBE = r"""#include <cstdio>
#include <cuda_runtime.h>
int main()
{
    size_t bytes = (size_t)256 << 20;
    float *a, *b;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
        printf("%s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int k = 0; k < 3; k++)
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e0);
    for (int k = 0; k < 20; k++)
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess) {
        printf("%s\n", cudaGetErrorString(error));
        return 1;
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("COPY_GBPS %.3f %s\n", 2.0 * bytes * 20 / (ms * 1e-3) / 1e9, prop.name);
    return 0;
}
"""


def nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    default = Path("/usr/local/cuda/bin/nvcc")
    return str(default) if default.is_file() else None


def build(compiler: str, source: Path, exe: Path) -> None:
    proc = subprocess.run([compiler, "-O2", "-arch=sm_90", str(source), "-o", str(exe)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"nvcc failed for {source.name}:\n{proc.stderr[-2000:]}")


def copy_bandwidth(compiler: str | None, workdir: Path) -> tuple[float | None, str]:
    """(GB/s of device-to-device cudaMemcpy, device name), or (None, why not)."""
    if compiler is None:
        return None, "nvcc not found"
    source, exe = workdir / "copy_probe.cu", workdir / "copy_probe"
    source.write_text(COPY_PROBE)
    try:
        build(compiler, source, exe)
    except RuntimeError as error:
        return None, str(error).splitlines()[0]
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    match = re.search(r"COPY_GBPS (\S+) (.*)", proc.stdout)
    if proc.returncode != 0 or match is None:
        detail = (proc.stdout + proc.stderr).strip() or f"exit {proc.returncode}"
        return None, f"no usable CUDA GPU ({detail})"
    return float(match.group(1)), match.group(2).strip()


def instrument(path: str, source: bytes) -> tuple[str, int, int]:
    """The program with every launch run of ``main`` repeated between two cudaEvents (two
    warm-up repetitions first), the number of runs timed and of launches in them."""
    loaded = load(path, ParseOptions(), source=source)
    if loaded.model is None:
        raise RuntimeError(f"{path}: does not parse")
    facts = kernel_facts(loaded.model)
    runs = [[node.stmt for node in r.nodes]
            for r in find_runs(loaded.model, loaded.source, facts) if r.function == "main"]
    if not runs:        # a fused launch whose arguments call helpers is no run node: time it plainly
        runs = launch_statements(loaded.model)
    edits = []
    for k, run in enumerate(runs):
        start = run[0].span.start
        end = loaded.source.index(b";", run[-1].span.end) + 1
        edits.append((start, "{ cudaEvent_t s2s_e0, s2s_e1; cudaEventCreate(&s2s_e0); "
                             "cudaEventCreate(&s2s_e1); int s2s_reps = s2s_bench_reps(); "
                             "for (int s2s_rep = -2; s2s_rep < s2s_reps; ++s2s_rep) { "
                             "if (s2s_rep == 0) cudaEventRecord(s2s_e0);\n"))
        edits.append((end, f"\n}} cudaEventRecord(s2s_e1); "
                           f"s2s_bench_report({k}, s2s_e0, s2s_e1, s2s_reps); }}"))
    text = loaded.source
    for at, insert in sorted(edits, reverse=True):
        text = text[:at] + insert.encode() + text[at:]
    launches = sum(len(run) for run in runs)
    return HELPERS + text.decode("utf-8", "surrogateescape"), len(runs), launches


def launch_statements(unit) -> list[list]:
    """Runs of consecutive statements of ``main`` that each hold one launch (any arguments)."""
    main = next((f for f in unit.functions if f.name == "main" and f.body is not None), None)
    if main is None:
        return []
    launches = unit.in_function("launches", "main")
    runs: list[list] = []

    def visit(stmt) -> None:
        current: list = []
        for child in stmt.children if stmt.kind == "block" else ():
            inside = [la for la in launches if child.span.start <= la.span.start < child.span.end]
            if len(inside) == 1 and child.kind == "expr":
                current.append(child)
                continue
            if current:
                runs.append(current)
            current = []
        if current:
            runs.append(current)
        for part in (stmt.body, stmt.orelse, *stmt.children):
            if part is not None:
                visit(part)

    visit(main.body)
    return runs


def run_timed(exe: Path, args: list[str], reps: int, runs: int) -> tuple[float, str]:
    """(GPU seconds per repetition summed over the runs, the program's stdout)."""
    proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "S2S_REPS": str(reps)})
    if proc.returncode != 0:
        raise RuntimeError(f"{exe.name} {' '.join(args)} failed: {proc.stderr[-500:]}")
    found = re.findall(r"S2S_RUN (\d+) (\S+) (.*)", proc.stderr)
    if len(found) != runs or any(status.strip() != "no error" for _k, _ms, status in found):
        raise RuntimeError(f"{exe.name}: timing lines {found} (expected {runs} runs)")
    return sum(float(ms) for _k, ms, _s in found) * 1e-3, proc.stdout


def minimum_bytes(path: str, sizes: dict) -> int:
    return replay(path, overrides=sizes).minimum


def measure(name: str, sizes: dict, compiler: str, workdir: Path, reps: int) -> dict:
    path = f"samples/cuda/{name}/{name}.cu"
    result = process_file(path, RunOptions(), run_fuse)
    if not isinstance(result, Success):
        raise RuntimeError(f"{name}: s2s fuse failed")
    args = [str(v) for v in sizes.values()]
    row = {"name": name, "sizes": sizes}
    outputs = {}
    for version, text in (("before", (REPO / path).read_bytes()), ("after", result.change.after)):
        program, runs, row[f"launches_{version}"] = instrument(path, text)
        source, exe = workdir / f"{name}_{version}.cu", workdir / f"{name}_{version}"
        source.write_text(program)
        build(compiler, source, exe)
        row[version], outputs[version] = run_timed(exe, args, reps, runs)
        if runs == 0 or row[version] <= 0:
            raise RuntimeError(f"{name} {version}: no launch run of main timed")
    row["same_output"] = outputs["before"] == outputs["after"]
    row["bytes"] = minimum_bytes(path, sizes)
    row["cupy"] = cupy_time(name, sizes, reps)
    return row


def cupy_time(name: str, sizes: dict, reps: int) -> float | None:
    """Seconds per repetition of the sample's sequence written with CuPy, None without it."""
    try:
        import cupy as cp
    except ImportError:
        return None
    step = cupy_sequence(cp, name, sizes)
    for _ in range(2):
        step()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(reps):
        step()
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) * 1e-3 / reps


def cupy_sequence(cp, name: str, s: dict):
    """The sample's math on CuPy arrays of its sizes (cuBLAS for ``@`` and ``dot``)."""
    f32 = cp.float32
    vec = lambda k: cp.random.random(k, dtype=f32)                    # noqa: E731
    mat = lambda r, c: cp.random.random((r, c), dtype=f32)            # noqa: E731
    a, b = f32(0.5), f32(1.5)
    if name in ("axpydot", "vadd", "waxpby", "sscal", "elementwise_chain"):
        n = s["n"]
        x, y, z = vec(n), vec(n), vec(n)
        return {"axpydot": lambda: cp.dot(x - a * y, z),
                "vadd": lambda: x + y + z,
                "waxpby": lambda: a * x + b * y,
                "sscal": lambda: cp.multiply(x, a, out=x),
                "elementwise_chain": lambda: cp.clip(
                    cp.maximum((a * x + y) * z, 0) + f32(0.125), 0, 1)}[name]
    if name == "block_reduction":
        x = vec(s["n"])
        return lambda: (cp.sum(x), cp.sum(x))
    if name in ("softmax_chain", "layernorm", "bias_gelu"):
        rows, cols = s["rows"], s["cols"]
        x, g, h = mat(rows, cols), vec(cols), vec(cols)
        if name == "softmax_chain":
            def softmax():
                e = cp.exp(x - x.max(axis=1, keepdims=True))
                return e / e.sum(axis=1, keepdims=True)
            return softmax
        if name == "layernorm":
            def layernorm():
                mean = x.mean(axis=1, keepdims=True)
                rstd = 1 / cp.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + f32(1e-5))
                return (x - mean) * rstd * g + h
            return layernorm

        def bias_gelu():
            t = x + g
            return f32(0.5) * t * (1 + cp.tanh(f32(0.7978845608) * (t + f32(0.044715) * t ** 3)))
        return bias_gelu
    m = s.get("m", s.get("nx", s.get("n")))
    n = s.get("n", s.get("ny")) if name != "bicgk" else s["ny"]
    A, B = mat(m, n), mat(m, n)
    xm, xn, yn = vec(m), vec(m), vec(n)
    if name == "madd":
        return lambda: A + B
    if name == "atax":
        return lambda: A.T @ (A @ yn)
    if name in ("bicgk", "bicgk_tiled"):
        return lambda: (A @ yn, A.T @ xm)
    if name == "sgemv":
        return lambda: a * (A @ yn) + b * xm
    if name == "sgemvt":
        def sgemvt():
            x = b * (A.T @ xm) + yn
            return a * (A @ x)
        return sgemvt
    if name == "gesummv":
        return lambda: a * (A @ yn) + b * (B @ yn)
    if name == "gemver":
        u1, v1, u2, v2 = vec(m), vec(m), vec(m), vec(m)

        def gemver():
            C = A + cp.outer(u1, v1) + cp.outer(u2, v2)
            x = b * (C.T @ xm) + xn
            return a * (C @ x)
        return gemver
    raise KeyError(name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("samples", nargs="*")
    args = parser.parse_args()
    os.chdir(REPO)
    compiler = nvcc()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        copy_gbps, device = copy_bandwidth(compiler, workdir)
        if copy_gbps is None:
            print(f"bench_fuse_gpu: skipped: {device}; nothing was measured")
            return 0
        rows, failed = [], False
        for name in args.samples or list(SAMPLES):
            try:
                rows.append(measure(name, SAMPLES[name], compiler, workdir, args.reps))
            except (RuntimeError, subprocess.TimeoutExpired) as error:
                print(f"{name}: FAILED: {error}", file=sys.stderr)
                failed = True
    print(f"{device}, device-to-device copy {copy_gbps:.0f} GB/s (read + write), "
          f"{platform.node()}, reps {args.reps}")
    header = ("sample", "sizes", "launches", "us before", "us after", "speedup", "MB min",
              "% copy BW before", "% copy BW after", "us CuPy", "% copy BW CuPy", "outputs")
    lines = []
    for r in rows:
        def share(seconds: float, moved: int = r["bytes"]) -> str:
            return f"{100 * moved / seconds / 1e9 / copy_gbps:.0f}"
        lines.append((r["name"], " ".join(f"{k}={v}" for k, v in r["sizes"].items()),
                      f"{r['launches_before']} -> {r['launches_after']}",
                      f"{r['before'] * 1e6:.1f}", f"{r['after'] * 1e6:.1f}",
                      f"{r['before'] / r['after']:.2f}", f"{r['bytes'] / 1e6:.1f}",
                      share(r["before"]), share(r["after"]),
                      "-" if r["cupy"] is None else f"{r['cupy'] * 1e6:.1f}",
                      "-" if r["cupy"] is None else share(r["cupy"]),
                      "same" if r["same_output"] else "DIFFER"))
        failed |= not r["same_output"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(header, *lines, strict=True)]
        for line in (header, *lines):
            print("  ".join(str(x).ljust(w) for x, w in zip(line, widths, strict=True)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
