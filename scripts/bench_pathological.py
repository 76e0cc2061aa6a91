#!/usr/bin/env python3
"""Benchmark s2s on pathological inputs: 1 MB files on one line, huge functions and initializers.

Issue 16, item 11: a 1 MB single-line source file took ~47 s through s2s while clang parses it
in under 2 s. This script generates such inputs deterministically (into a temporary directory,
or ``--keep DIR``) and times each subcommand on each of them in a fresh process
(``python -m s2s COMMAND FILE``, output discarded), so a quadratic step shows up as a time far
above the parse time of the same file:

* ``c_funcs``: many small C functions (ifs, loops, calls) on ONE line;
* ``c_bigfunc``: one C function with tens of thousands of statements on one line;
* ``c_init``: a 10^5-element initializer list (one line) and a function reading it;
* ``c_longids``: C functions and variables with 1000-4000 character identifiers (one line);
* ``cu_kernels``: CUDA kernels and host functions (``cudaMalloc``, ``cudaMemcpy``, two
  launches, ``cudaFree``) on one line, no ``#include`` (clang's CUDA wrapper declares the API);
* ``omp_target``: OpenMP offload C with ``_Pragma("omp target teams distribute parallel for
  map(...)")`` loops on one line;
* ``omp_lines``: the same program as ``omp_target`` with one statement per line, for comparison;
* ``omp_longlines``: ``#pragma omp target`` loops (a pragma must have a line of its own)
  between 10 KB lines of host code (scalar statements, loops over the mapped arrays).

Every input compiles (``clang-16 -fsyntax-only``, ``-fopenmp`` for the OpenMP ones, ``-x cuda``
for CUDA). The subcommands are ``inspect``, ``omp``, ``transfers``, ``fuse`` and ``mgpu``
(a subcommand with nothing to do on a file still parses and analyses it). ``--s2s DIR`` times
another checkout of s2s (for a before/after comparison: ``git archive HEAD | tar -x -C DIR``);
a run over ``--timeout`` seconds is reported as ``> N s``.

Usage: ``python scripts/bench_pathological.py [--size 1000000] [--inputs a,b] [--commands a,b]
[--runs 1] [--timeout 600] [--s2s DIR] [--keep DIR] [--markdown] [--json FILE]``
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
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMANDS = ("inspect", "omp", "transfers", "fuse", "mgpu")


# --- generators: each returns the bytes of a file of about ``size`` bytes ----------------------


def _fill(size: int, head: str, unit: Callable[[int], str], tail: Callable[[int], str],
          sep: str = " ") -> str:
    """``head``, then ``unit(0)``, ``unit(1)``... until ``size`` bytes, then ``tail(count)``."""
    parts = [head] if head else []
    total = len(head)
    count = 0
    while total < size:
        text = unit(count)
        parts.append(text)
        total += len(text) + len(sep)
        count += 1
    parts.append(tail(count))
    return sep.join(parts) + "\n"


def gen_c_funcs(size: int) -> str:
    def unit(i: int) -> str:
        return (f"static int f{i}(int x, int *v) {{ int y = x * {i % 97} + 1; "
                f"if (y > {i}) y -= {i}; else y += v[{i % 8}]; "
                f"for (int k = 0; k < 4; k++) v[k] += y; return y; }}")

    def tail(count: int) -> str:
        calls = " ".join(f"s += f{j}(s, v);" for j in range(0, count, max(1, count // 64)))
        return f"int main(void) {{ int v[8] = {{0}}; int s = 0; {calls} return s & 0xff; }}"

    return _fill(size, "", unit, tail)


def gen_c_bigfunc(size: int) -> str:
    def unit(i: int) -> str:
        a, b = i % 64, (i * 7 + 3) % 64
        kind = i % 4
        if kind == 0:
            return f"a[{a}] = a[{b}] * {i % 13 + 1} + {i};"
        if kind == 1:
            return f"if (a[{a}] > {i}) a[{b}] -= a[{a}] / {i % 5 + 1}; else s += a[{a}];"
        if kind == 2:
            return f"for (int k = 0; k < {i % 7 + 1}; k++) s += a[(k + {a}) % 64];"
        return f"{{ int t{i} = a[{a}] ^ s; s = t{i} + g({a}); }}"

    head = ("static int g(int x) { return x * 3 + 1; } "
            "int main(void) { int a[64] = {0}; int s = 0;")
    return _fill(size, head, unit, lambda count: "return s & 0xff; }")


def gen_c_init(size: int, elements: int = 100_000) -> str:
    values = ", ".join(str((i * 2654435761) % 1000003) for i in range(elements))
    body = (f"static const int table[{elements}] = {{{values}}}; "
            f"int main(void) {{ long s = 0; for (int i = 0; i < {elements}; i++) s += table[i]; "
            "return (int)(s & 0xff); }")
    # size is reached by the element count, not padded: the point is the 10^5-element list
    return body + "\n"


def gen_c_longids(size: int) -> str:
    def name(prefix: str, i: int) -> str:
        length = 1000 + (i * 997) % 3000
        stem = f"{prefix}{i}_"
        return stem + ("abcdefghijklmnopqrstuvwxyz0123456789_" * (length // 37 + 1))[: length - len(stem)]

    def unit(i: int) -> str:
        fn, var = name("function_", i), name("variable_", i)
        return (f"static int {fn}(int {var}) {{ int {var}_2 = {var} * {i % 31}; "
                f"return {var}_2 + {var}; }} "
                f"int call_{i}(void) {{ return {fn}({i}); }}")

    def tail(count: int) -> str:
        calls = " ".join(f"s += call_{j}();" for j in range(count))
        return f"int main(void) {{ int s = 0; {calls} return s & 0xff; }}"

    return _fill(size, "", unit, tail)


def gen_cu_kernels(size: int) -> str:
    def unit(i: int) -> str:
        bytes_ = "n * sizeof(float)"
        return (f"__global__ void k{i}(float *x, const float *y, int n) {{ "
                f"int t = blockIdx.x * blockDim.x + threadIdx.x; "
                f"if (t < n) x[t] = x[t] * {1 + i % 7}.0f + y[t]; }} "
                f"void h{i}(float *hx, const float *hy, int n) {{ float *dx, *dy; "
                f"cudaMalloc((void **)&dx, {bytes_}); cudaMalloc((void **)&dy, {bytes_}); "
                f"cudaMemcpy(dx, hx, {bytes_}, cudaMemcpyHostToDevice); "
                f"cudaMemcpy(dy, hy, {bytes_}, cudaMemcpyHostToDevice); "
                f"k{i}<<<(n + 255) / 256, 256>>>(dx, dy, n); "
                f"k{i}<<<(n + 255) / 256, 256>>>(dx, dy, n); "
                f"cudaMemcpy(hx, dx, {bytes_}, cudaMemcpyDeviceToHost); "
                f"cudaFree(dx); cudaFree(dy); }}")

    def tail(count: int) -> str:
        calls = " ".join(f"h{j}(hx, hy, 1024);" for j in range(0, count, max(1, count // 64)))
        return ("int main(void) { static float hx[1024], hy[1024]; "
                f"{calls} return (int)hx[0] & 0xff; }}")

    return _fill(size, "", unit, tail)


def gen_cu_bigmain(size: int) -> str:
    """One host function allocating, copying, launching and freeing thousands of buffers."""
    kernels = " ".join(
        f"__global__ void k{i}(float *x, int n) {{ int t = blockIdx.x * blockDim.x + threadIdx.x; "
        f"if (t < n) x[t] = x[t] * {i + 2}.0f + 1.0f; }}" for i in range(16))
    head = (f"{kernels} static float h[1024]; int main(void) {{ int n = 1024; "
            "size_t bytes = n * sizeof(float); for (int i = 0; i < n; i++) h[i] = (float)i;")

    def unit(i: int) -> str:
        return (f"float *d{i}; cudaMalloc((void **)&d{i}, bytes); "
                f"cudaMemcpy(d{i}, h, bytes, cudaMemcpyHostToDevice); "
                f"k{i % 16}<<<(n + 255) / 256, 256>>>(d{i}, n); "
                f"k{(i + 5) % 16}<<<(n + 255) / 256, 256>>>(d{i}, n); "
                f"cudaMemcpy(h, d{i}, bytes, cudaMemcpyDeviceToHost); h[{i % 1024}] += 1.0f; "
                f"cudaFree(d{i});")

    return _fill(size, head, unit, lambda count: "return (int)h[0] & 0xff; }")


def _omp_unit(i: int, nl: str) -> str:
    return (f"void f{i}(float *a, const float *b, int n) {{{nl}"
            f'_Pragma("omp target teams distribute parallel for map(tofrom: a[0:n]) '
            f'map(to: b[0:n])"){nl}'
            f"for (int j = 0; j < n; j++) a[j] += b[j] * {i % 9 + 1}.0f;{nl}"
            f'_Pragma("omp target teams distribute parallel for map(tofrom: a[0:n])"){nl}'
            f"for (int j = 0; j < n; j++) a[j] *= 0.5f;{nl}"
            f"a[0] += 1.0f;{nl}"
            f'_Pragma("omp target teams distribute parallel for map(tofrom: a[0:n])"){nl}'
            f"for (int j = 0; j < n; j++) a[j] -= 1.0f;{nl}}}")


def _omp_tail(count: int, nl: str) -> str:
    calls = nl.join(f"f{j}(a, b, 256);" for j in range(0, count, max(1, count // 64)))
    return (f"int main(void) {{{nl}static float a[256], b[256];{nl}{calls}{nl}"
            f"return (int)a[0] & 0xff;{nl}}}")


def gen_omp_target(size: int) -> str:
    return _fill(size, "", lambda i: _omp_unit(i, " "), lambda n: _omp_tail(n, " "))


def gen_omp_lines(size: int) -> str:
    return _fill(size, "", lambda i: _omp_unit(i, "\n"), lambda n: _omp_tail(n, "\n"), sep="\n")


def gen_omp_longlines(size: int) -> str:
    """``#pragma omp target`` lines (which must be lines of their own) between code lines of
    about 10 KB: scalar host code, host loops over the mapped arrays, offloaded loops."""
    def unit(i: int) -> str:
        before = " ".join(f"s = s * 0.5f + {k}.0f;" for k in range(200))
        between = " ".join(f"t = t * 0.25f + s * {k}.0f;" for k in range(200))
        return (f"void f{i}(float *a, float *b, int n) {{ float s = 0.0f, t = 1.0f; {before} "
                "for (int k = 0; k < n; k++) a[k] = s + b[k];\n"
                "#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) map(to: b[0:n])\n"
                f"for (int j = 0; j < n; j++) a[j] += b[j] * {i % 5 + 1}.0f; {between} "
                "for (int k = 0; k < n; k++) t += a[k];\n"
                "#pragma omp target teams distribute parallel for map(tofrom: a[0:n])\n"
                "for (int j = 0; j < n; j++) a[j] *= t; }")

    def tail(count: int) -> str:
        calls = " ".join(f"f{j}(a, b, 256);" for j in range(count))
        return f"int main(void) {{ static float a[256], b[256]; {calls} return (int)a[0] & 0xff; }}"

    return _fill(size, "", unit, tail)


#: name -> (file suffix, generator)
INPUTS: dict[str, tuple[str, Callable[[int], str]]] = {
    "c_funcs": (".c", gen_c_funcs),
    "c_bigfunc": (".c", gen_c_bigfunc),
    "c_init": (".c", gen_c_init),
    "c_longids": (".c", gen_c_longids),
    "cu_kernels": (".cu", gen_cu_kernels),
    "cu_bigmain": (".cu", gen_cu_bigmain),
    "omp_target": (".c", gen_omp_target),
    "omp_lines": (".c", gen_omp_lines),
    "omp_longlines": (".c", gen_omp_longlines),
}


def write_inputs(directory: Path, size: int, names) -> dict[str, Path]:
    paths = {}
    for name in names:
        suffix, generate = INPUTS[name]
        path = directory / f"{name}{suffix}"
        path.write_text(generate(size))
        paths[name] = path
    return paths


# --- measuring ---------------------------------------------------------------------------------

#: pseudo-command: libclang's parse of the file through s2s's front end, no extraction
PARSE_ONLY = "from s2s.frontend.core.parse import parse_file; import sys; parse_file(sys.argv[1])"


def run_once(root: Path, command: str, path: Path, timeout: float, env: dict) -> dict:
    """One fresh process: ``python -m s2s COMMAND FILE`` (output discarded) with ``root`` first
    on the module path. Returns wall and CPU seconds, the exit status, or a timeout."""
    if command == "parse":
        argv = [sys.executable, "-c", PARSE_ONLY, str(path)]
    else:
        argv = [sys.executable, "-m", "s2s", command, str(path)]
    child_env = dict(env, PYTHONPATH=str(root) + os.pathsep + env.get("PYTHONPATH", ""))
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=path.parent, env=child_env, start_new_session=True)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            os.killpg(proc.pid, 9)
            pid, status, usage = os.wait4(proc.pid, 0)
            return {"timeout": True, "wall": timeout, "cpu": None, "rc": None}
        time.sleep(0.02)
    wall = time.perf_counter() - start
    return {"timeout": False, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rc": os.waitstatus_to_exitcode(status)}


def measure(root: Path, paths: dict[str, Path], commands, runs: int, timeout: float,
            env: dict, progress) -> dict:
    results: dict = {}
    for name, path in paths.items():
        for command in commands:
            samples = []
            for _ in range(runs):
                sample = run_once(root, command, path, timeout, env)
                samples.append(sample)
                if sample["timeout"]:
                    break
            done = [s for s in samples if not s["timeout"]]
            cell = {"timeout": len(done) < len(samples), "rc": samples[-1]["rc"],
                    "wall": statistics.median(s["wall"] for s in done) if done else timeout,
                    "cpu": statistics.median(s["cpu"] for s in done) if done else None,
                    "runs": len(samples)}
            results.setdefault(name, {})[command] = cell
            progress(name, command, cell)
    return results


def fmt(cell: dict | None, metric: str = "wall") -> str:
    if cell is None:
        return "-"
    if cell["timeout"]:
        return f"> {cell['wall']:.0f} s"
    text = f"{cell[metric]:.1f} s"
    if cell["rc"] not in (0, 1):  # 1: a file would change (--check style) or failed to parse
        text += f" (exit {cell['rc']})"
    return text


def table(results: dict, sizes: dict, commands, before: dict | None, markdown: bool,
          metric: str = "wall") -> str:
    head = ["input", "bytes", "lines", *commands]
    rows = []
    for name, cells in results.items():
        row = [name, f"{sizes[name][0]:,}", str(sizes[name][1])]
        for command in commands:
            now = fmt(cells.get(command), metric)
            if before is not None:
                old = fmt(before.get(name, {}).get(command), metric)
                now = f"{old} → {now}"
            row.append(now)
        rows.append(row)
    if markdown:
        out = ["| " + " | ".join(head) + " |",
               "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(out)
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))
                     for r in [head, *rows])


def machine() -> str:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
            f"{platform.platform()}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes per input (about)")
    parser.add_argument("--inputs", default=",".join(INPUTS),
                        help=f"comma-separated, of: {', '.join(INPUTS)}")
    parser.add_argument("--commands", default="parse," + ",".join(COMMANDS),
                        help="comma-separated s2s subcommands ('parse': libclang parse only)")
    parser.add_argument("--runs", type=int, default=1, help="runs per number (median)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per run")
    parser.add_argument("--s2s", metavar="DIR", type=Path, default=REPO,
                        help="the s2s checkout to time (default: this one)")
    parser.add_argument("--nvcc", action="store_true",
                        help="let 's2s fuse' measure registers with nvcc (off by default: "
                             "S2S_FUSE_NVCC=0, so the numbers are s2s's own work)")
    parser.add_argument("--keep", metavar="DIR", type=Path, help="write the inputs to DIR and keep them")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--json", metavar="FILE", type=Path, help="write the numbers as JSON")
    parser.add_argument("--compare", metavar="FILE", type=Path,
                        help="JSON of an earlier run (--json): cells show 'before → now'")
    parser.add_argument("--metric", choices=("wall", "cpu"), default="wall",
                        help="wall time, or CPU time of the process (steadier on a busy machine)")
    parser.add_argument("--from-json", metavar="FILE", type=Path,
                        help="print the table of an earlier run (--json) instead of measuring")
    args = parser.parse_args(argv)
    names = [n for n in args.inputs.split(",") if n]
    commands = [c for c in args.commands.split(",") if c]
    unknown = [n for n in names if n not in INPUTS]
    if unknown:
        parser.error(f"unknown input(s): {', '.join(unknown)}")
    env = dict(os.environ)
    if not args.nvcc:
        env["S2S_FUSE_NVCC"] = "0"
    before = json.loads(args.compare.read_text())["results"] if args.compare else None
    if args.from_json:
        data = json.loads(args.from_json.read_text())
        print(table(data["results"], data["sizes"], commands, before, args.markdown, args.metric))
        print(f"\n{args.metric} time of one fresh process per cell; {data['machine']}")
        return 0

    def progress(name, command, cell):
        print(f"  {name} {command}: {fmt(cell)}" + (f" (cpu {cell['cpu']:.1f} s)" if cell["cpu"] else ""),
              file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="s2s-patho-") as tmp:
        directory = args.keep or Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        paths = write_inputs(directory, args.size, names)
        sizes = {n: (p.stat().st_size, p.read_bytes().count(b"\n")) for n, p in paths.items()}
        print(f"s2s from {args.s2s}; {machine()}", file=sys.stderr)
        results = measure(args.s2s.resolve(), paths, commands, args.runs, args.timeout, env, progress)
    print(table(results, sizes, commands, before, args.markdown, args.metric))
    print(f"\n{args.metric} time of one fresh process per cell (median of {args.runs}); "
          f"{machine()}; s2s from {args.s2s}")
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "s2s": str(args.s2s),
                                         "size": args.size, "sizes": sizes,
                                         "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
