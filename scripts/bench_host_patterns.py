#!/usr/bin/env python3
"""``s2s transfers`` and ``s2s fuse`` on the host-code patterns of issue 19.

The programs of ``testsuite/fuse/data/patterns/`` (written here, one pattern each: restrict
and const parameters, synchronizations and event timing, members next to arrays, launches
in host loops, a frame loop rotating its buffers, kernels of different shapes) and any
others given on the command line. For each program and pass: the cudaMemcpy + cudaMalloc
calls (transfers) or launches (fuse) in the source before and after, whether the rewrite
compiles with ``nvcc -c -arch=sm_90`` (when nvcc is there), and when nothing changed the
first reason the pass gave (a warning, or a "not fused" note of ``--explain``).

Usage: python scripts/bench_host_patterns.py [--markdown] [FILE.cu ...]
Exit status 0; 1 when a rewrite fails to compile or a pass fails on a file.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
try:
    import s2s  # noqa: F401
except ImportError:  # a Python without s2s installed: use this checkout
    sys.path.insert(0, str(REPO_ROOT))

from s2s.driver import RunOptions, Success, process_file  # noqa: E402
from s2s.frontend.extract import load  # noqa: E402
from s2s.transform.fuse import run_fuse  # noqa: E402
from s2s.transform.transfers import run_transfers  # noqa: E402

PATTERNS = REPO_ROOT / "testsuite" / "fuse" / "data" / "patterns"


def counts(path: str, source: bytes) -> tuple:
    """(cudaMemcpy + cudaMalloc calls, launches) in ``source`` (text when it does not parse)."""
    model = load(path, source=source).model
    if model is None:
        return ("does not parse",) * 2
    calls = sum(1 for c in model.api_calls if c.name in ("cudaMemcpy", "cudaMalloc"))
    return calls, len(model.launches)


def reason(result) -> str:
    for d in result.diagnostics:
        if d.severity.name == "WARNING":
            return f"{d.message} [{d.id}]"
    refused = [d.message for d in result.diagnostics
               if d.id == "fuse-explain" and d.message.startswith("not fused")]
    # the recomputation attempt comes first; the reason the group itself failed is clearer
    plain = [m for m in refused if ": recomputation: " not in m]
    return (plain or refused or [""])[0]


def compiles(nvcc: str | None, text: bytes, work: Path) -> str:
    if nvcc is None:
        return "-"
    (work / "x.cu").write_bytes(text)
    proc = subprocess.run([nvcc, "-c", "-arch=sm_90", str(work / "x.cu"), "-o", str(work / "x.o")],
                          capture_output=True, text=True)
    return "yes" if proc.returncode == 0 else "NO"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    files = args.files or sorted(str(p) for p in PATTERNS.glob("*.cu"))
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if Path("/usr/local/cuda/bin/nvcc").is_file() else None)
    rows, failed = [], False
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            source = Path(path).read_bytes()
            before = counts(path, source)
            for name, run_pass, k in (("transfers", run_transfers, 0), ("fuse", run_fuse, 1)):
                result = process_file(path, RunOptions(), run_pass)
                if not isinstance(result, Success):
                    rows.append((Path(path).name, name, before[k], "failed", "-", reason(result)))
                    failed = True
                    continue
                after = result.change.after
                changed = after != source
                ok = compiles(nvcc, after, Path(tmp)) if changed else "-"
                failed |= ok == "NO" or result.incomplete or isinstance(counts(path, after)[k], str)
                why = "" if changed else reason(result)
                rows.append((Path(path).name, name, before[k], counts(path, after)[k], ok, why))
    head = ("program", "pass", "before", "after", "nvcc", "reason when unchanged")
    print(f"{datetime.date.today()}, {platform.machine()}, Python {platform.python_version()}, "
          f"nvcc {'yes' if nvcc else 'no'}; before/after: cudaMemcpy + cudaMalloc calls "
          "(transfers), launches (fuse)")
    if args.markdown:
        print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(str(c) for c in row) + " |")
    else:
        for row in rows:
            print("  ".join(str(c) for c in row))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
