#!/usr/bin/env python3
"""Benchmark the front end: libclang parse, and parse + model extraction, of 1000-line inputs.

Inputs are generated deterministically (``scripts/gen_big_cu.py``): a CUDA file (kernels with
shared memory, atomics, 2-D indexing, ``__device__`` helpers, a template, macros, host code with
``cudaMalloc``/``cudaMemcpy`` and launch loops) and an OpenMP offload C file. Each is measured
with the real headers (CUDA toolkit, clang's ``omp.h``) and with s2s's bundled shim headers.

* cold: a fresh Python process per run; the time covers importing s2s, loading libclang and the
  work itself (what one CLI invocation pays on top of interpreter start-up);
* warm: in one process after a warm-up run (libclang loaded, headers in the OS cache).

Every number is the median of ``--runs`` runs. The target is < 3 s for parse + extract of a
1000-line ``.cu`` file. A case that cannot run (no toolkit, shim headers or extractors not
there yet, libclang errors) is reported as ``n/a`` with the reason; the script never fails
because of one.

Usage: ``python scripts/bench_frontend.py [--runs 5] [--lines 1000] [--keep DIR] [--markdown]``
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

TARGET_S = 3.0
MODES = ("parse", "load")  # load = parse + extract


# --- one measurement (runs in the child process for cold numbers) -----------------------------


def options_for(headers: str):
    """ParseOptions for ``real`` headers (toolkit search) or the ``shim``; raises LookupError."""
    from s2s.frontend.core.parse import ParseOptions
    from s2s.frontend.core.toolchain import Toolchain, default_toolchain

    if headers == "shim":
        return ParseOptions(toolchain=Toolchain(cuda_path=None, omp_include=None))
    return ParseOptions(toolchain=default_toolchain())


def measure(mode: str, path: str, headers: str) -> dict:
    """Run one parse or load of ``path``; return seconds and a summary of the result."""
    gc.collect()  # dispose of the previous run's translation units outside the timed region
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        options = options_for(headers)
        if mode == "parse":
            from s2s.frontend.core.parse import parse_file

            result = parse_file(path, options)
        else:
            from s2s.frontend.extract import load

            result = load(path, options)
    except ImportError as exc:
        return {"error": f"front end incomplete ({exc})"}
    except Exception as exc:  # a benchmark reports, it does not crash
        return {"error": f"{type(exc).__name__}: {exc}"}
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    errors = [d for d in result.diagnostics if d.is_error]
    out = {"seconds": seconds, "cpu": cpu, "errors": len(errors)}
    if errors:
        out["first_error"] = errors[0].headline()
    model = getattr(result, "model", None)
    if model is not None:
        out["model"] = {name: len(getattr(model, name, ())) for name in
                        ("kernels", "device_functions", "launches", "api_calls", "allocations",
                         "directives", "functions")}
    return out


def child_main(mode: str, path: str, headers: str) -> int:
    print(json.dumps(measure(mode, path, headers)))
    return 0


# --- the benchmark ---------------------------------------------------------------------------------


@dataclass
class Cell:
    """Median seconds of one (input, headers, mode, cold/warm) combination, or why there is none."""

    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    reason: str | None = None
    info: dict = field(default_factory=dict)

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times and self.reason is None else None

    def show(self, reasons: list[str] | None = None) -> str:
        """``1.23 s``, or ``n/a`` (with a footnote number when ``reasons`` collects them)."""
        if self.reason is None:
            return f"{self.median:.2f} s (cpu {statistics.median(self.cpu):.2f})"
        if reasons is None:
            return f"n/a ({self.reason})"
        if self.reason not in reasons:
            reasons.append(self.reason)
        return f"n/a [{reasons.index(self.reason) + 1}]"


def run_cold(mode: str, path: str, headers: str, runs: int) -> Cell:
    cell = Cell()
    for _ in range(runs):
        proc = subprocess.run([sys.executable, __file__, "--child", mode, path, headers],
                              capture_output=True, text=True, timeout=600, cwd=REPO)
        try:
            result = json.loads(proc.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            cell.reason = f"child failed: {proc.stderr.strip().splitlines()[-1:]}"
            return cell
        if not _accept(cell, result, mode):
            return cell
    return cell


def run_warm(mode: str, path: str, headers: str, runs: int) -> Cell:
    cell = Cell()
    for _ in range(runs + 1):  # the first run warms up and is not counted
        result = measure(mode, path, headers)
        if not _accept(cell, result, mode):
            return cell
    cell.times, cell.cpu = cell.times[1:], cell.cpu[1:]
    return cell


def _accept(cell: Cell, result: dict, mode: str) -> bool:
    if "error" in result:
        cell.reason = result["error"]
        return False
    if result["errors"] and mode == "load":
        cell.reason = f"{result['errors']} libclang errors, no model: {result.get('first_error', '')}"
        return False
    if result["errors"]:
        cell.info["errors"] = result["errors"]
        cell.info["first_error"] = result.get("first_error")
    cell.info.update(result.get("model") and {"model": result["model"]} or {})
    cell.times.append(result["seconds"])
    cell.cpu.append(result["cpu"])
    return True


def headers_available(language: str, headers: str) -> str | None:
    """None when the headers exist, else the reason the case is n/a."""
    from s2s.frontend.core.toolchain import SHIM_DIR, default_toolchain

    if headers == "shim":
        needed = SHIM_DIR / ("cuda_runtime.h" if language == "cuda" else "omp/omp.h")
        return None if needed.is_file() else f"shim header {needed.relative_to(REPO)} not there yet"
    toolchain = default_toolchain()
    if language == "cuda" and toolchain.cuda_path is None:
        return "no CUDA toolkit found"
    if language == "c" and toolchain.omp_include is None:
        return "no omp.h from an installed clang"
    return None


def header_label(language: str, headers: str) -> str:
    from s2s.frontend.core.toolchain import default_toolchain

    if headers == "shim":
        return "s2s shim"
    toolchain = default_toolchain()
    if language == "cuda":
        return f"CUDA {cuda_version(toolchain.cuda_path)}" if toolchain.cuda_path else "CUDA toolkit"
    if toolchain.omp_include:
        return "clang omp.h" + ("".join(f" {p}" for p in Path(toolchain.omp_include).parts if p.startswith("llvm-")))
    return "omp.h"


def cuda_version(root: str | None) -> str:
    """``13.0`` from CUDART_VERSION in the toolkit's headers (version.json is not always there)."""
    try:
        with open(os.path.join(root or "", "include", "cuda_runtime_api.h"), encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("#define CUDART_VERSION"):
                    number = int(line.split()[2])
                    return f"{number // 1000}.{number % 1000 // 10}"
    except (OSError, ValueError, IndexError):
        pass
    return "toolkit"


def compile_check(path: str, language: str, workdir: str) -> str:
    """Whether a real compiler accepts the generated file (reported, never fatal)."""
    if language == "cuda":
        tool, cmd = "nvcc", ["-c", "-arch=sm_90", path, "-o", os.path.join(workdir, "big.o")]
    else:
        tool, cmd = "clang-16", ["-fopenmp", "-Wall", "-fsyntax-only", path]
    exe = shutil.which(tool)
    if exe is None:
        return f"{tool} not found: not checked"
    start = time.perf_counter()
    try:
        proc = subprocess.run([exe, *cmd], capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return f"{tool} timed out"
    took = time.perf_counter() - start
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["?"])[0]
        return f"{tool} FAILED: {first}"
    warn = " (with warnings)" if "warning" in proc.stderr else ""
    return f"{tool} {' '.join(cmd[:2])}: ok{warn} in {took:.1f} s"


def machine_info() -> dict[str, str]:
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cores = os.cpu_count() or 0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    info = {
        "CPU": cpu,
        "cores": f"{usable} usable of {cores}",
        "OS": platform.platform(),
        "Python": platform.python_version(),
        "libclang": libclang_version(),
        "load average": load_average(),
    }
    return info


def load_average() -> str:
    """1/5/15-minute load: other work on the machine inflates wall times (not CPU times)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def libclang_version() -> str:
    try:
        from s2s.frontend.core.toolchain import configure_libclang

        cindex = configure_libclang()
        fn = cindex.conf.lib.clang_getClangVersion
        fn.restype = cindex._CXString
        version = cindex._CXString.from_result(fn())
    except Exception as exc:  # report only
        version = f"unknown ({exc})"
    try:
        from importlib.metadata import version as pkg_version

        version += f" (libclang-ng {pkg_version('libclang-ng')})"
    except Exception:
        pass
    return version


CASES = (("cuda", "real"), ("cuda", "shim"), ("c", "real"), ("c", "shim"))


def run(args) -> dict:
    from gen_big_cu import generate_cuda, generate_openmp

    workdir = args.keep or tempfile.mkdtemp(prefix="s2s-bench-")
    os.makedirs(workdir, exist_ok=True)
    files = {"cuda": os.path.join(workdir, "big.cu"), "c": os.path.join(workdir, "big_omp.c")}
    with open(files["cuda"], "w", encoding="utf-8") as handle:
        handle.write(generate_cuda(args.lines))
    with open(files["c"], "w", encoding="utf-8") as handle:
        handle.write(generate_openmp(args.lines))
    report = {"machine": machine_info(), "runs": args.runs, "lines": args.lines, "rows": [],
              "compile": {lang: compile_check(path, lang, workdir) for lang, path in files.items()}}
    for language, headers in CASES:
        path = files[language]
        with open(path, "rb") as handle:
            nlines = handle.read().count(b"\n")
        row = {"input": f"{os.path.basename(path)} ({nlines} lines)",
               "headers": header_label(language, headers), "language": language, "kind": headers}
        missing = headers_available(language, headers)
        for mode in MODES:
            for temp, runner in (("cold", run_cold), ("warm", run_warm)):
                cell = Cell(reason=missing) if missing else runner(mode, path, headers, args.runs)
                row[f"{mode}_{temp}"] = cell
                print(f"  {language:4} {headers:4} {mode:5} {temp}: {cell.show()}", file=sys.stderr)
        report["rows"].append(row)
    report["machine"]["load average"] += f" at the start; {load_average()} at the end"
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return report


COLUMNS = (("parse_cold", "parse cold"), ("parse_warm", "parse warm"),
           ("load_cold", "parse+extract cold"), ("load_warm", "parse+extract warm"))


def verdict(report: dict) -> str:
    """Whether the slowest cold parse+extract of the .cu input stays under the target."""
    measured = [(row["load_cold"].median, statistics.median(row["load_cold"].cpu), row["headers"])
                for row in report["rows"] if row["language"] == "cuda" and row["load_cold"].median is not None]
    goal = f"target < {TARGET_S:.0f} s for parse+extract of a 1000-line .cu"
    if report["lines"] != 1000:
        goal += f" (this run: {report['lines']} lines requested)"
    if not measured:
        return f"{goal}: not measured (extraction n/a)"
    wall, cpu, label = max(measured)
    ok = "MET" if wall < TARGET_S else "MISSED"
    return f"{goal}: {ok} (slowest, cold with {label}: {wall:.2f} s wall, {cpu:.2f} s CPU)"


def notes(report: dict) -> list[str]:
    out = []
    for row in report["rows"]:
        for key, _ in COLUMNS:
            cell = row[key]
            if cell.info.get("errors"):
                out.append(f"{row['input']} / {row['headers']}: parse reported {cell.info['errors']} errors "
                           f"({cell.info['first_error']})")
                break
        model = next((row[k].info.get("model") for k in ("load_warm", "load_cold") if row[k].info.get("model")),
                     None)
        if model:
            counts = ", ".join(f"{v} {k}" for k, v in model.items() if v)
            out.append(f"{row['input']} / {row['headers']}: model has {counts or 'nothing'}")
    return out


def markdown(report: dict) -> str:
    lines = [f"| input | headers | {' | '.join(title for _, title in COLUMNS)} |",
             "|---|---|" + "---:|" * len(COLUMNS)]
    reasons: list[str] = []
    for row in report["rows"]:
        cells = " | ".join(row[key].show(reasons) for key, _ in COLUMNS)
        lines.append(f"| {row['input']} | {row['headers']} | {cells} |")
    lines.append("")
    lines += [f"[{i}] {reason}  " for i, reason in enumerate(reasons, 1)]
    lines.append(f"Median of {report['runs']} runs: wall time, and in parentheses the CPU time of the "
                 f"measuring process (steadier on a busy machine). {verdict(report)}.")
    lines.append("")
    lines += [f"- {k}: {v}" for k, v in report["machine"].items()]
    lines += [f"- compile check ({lang}): {v}" for lang, v in report["compile"].items()]
    lines += [f"- {n}" for n in notes(report)]
    return "\n".join(lines)


def print_rich(report: dict) -> bool:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        return False
    console = Console()
    table = Table(title=f"s2s front end, median of {report['runs']} runs")
    table.add_column("input")
    table.add_column("headers")
    for _, title in COLUMNS:
        table.add_column(title, justify="right")
    reasons: list[str] = []
    for row in report["rows"]:
        table.add_row(row["input"], row["headers"], *(row[key].show(reasons) for key, _ in COLUMNS))
    console.print(table)
    for i, reason in enumerate(reasons, 1):
        console.print(f"[{i}] {reason}", highlight=False, markup=False)
    console.print(verdict(report))
    for key, value in report["machine"].items():
        console.print(f"{key}: {value}", highlight=False)
    for lang, value in report["compile"].items():
        console.print(f"compile check ({lang}): {value}", highlight=False)
    for note in notes(report):
        console.print(note, highlight=False)
    return True


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child_main(*argv[1:4])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per number (median)")
    parser.add_argument("--lines", type=int, default=1000, help="length of the generated inputs")
    parser.add_argument("--keep", metavar="DIR", help="write the inputs to DIR and keep them")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table (for docs)")
    parser.add_argument("--json", metavar="FILE", help="also write the raw numbers as JSON")
    args = parser.parse_args(argv)
    report = run(args)
    if args.json:
        raw = dict(report, rows=[{k: (vars(v) if isinstance(v, Cell) else v) for k, v in row.items()}
                                 for row in report["rows"]])
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(raw, handle, indent=2)
    if args.markdown or not print_rich(report):
        print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
