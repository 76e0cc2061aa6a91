#!/usr/bin/env python3
"""``s2s transfers`` and ``s2s fuse`` on the host-code patterns of issue 19.

The programs of ``testsuite/fuse/data/patterns/`` (written here, one pattern each: restrict
and const parameters, synchronizations and event timing, members next to arrays, launches
in host loops, a frame loop rotating its buffers, kernels of different shapes) and any
others given on the command line. For each program and pass: the cudaMemcpy + cudaMalloc
calls (transfers; a cudaMemcpyAsync counts as a cudaMemcpy) or launches (fuse) in the source
before and after, whether the rewrite compiles with ``nvcc -c -arch=sm_90`` (when nvcc is
there), and when nothing changed the first reason the pass gave (a warning, or a "not fused"
note of ``--explain``).

With ``--corpus`` the programs of the CUDA corpus (``testsuite/corpus/cuda/*/sample.toml``:
sources, flags, arguments, input generator, ignored output lines) come after the patterns.
With ``--verify`` every rewritten program is also built and run against its original on the
runtime's cpu devices (``s2s verify --passes PASS``): the ``verify`` column says OK or FAILED.

Usage: python scripts/bench_host_patterns.py [--markdown] [--corpus] [--verify] [FILE.cu | SAMPLE_DIR ...]
(a directory with a ``sample.toml`` runs as the corpus does, with its flags and arguments)
Exit status 0; 1 when a rewrite fails to compile or to verify, or a pass fails on a file.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import tomllib

REPO_ROOT = Path(__file__).resolve().parent.parent
try:
    import s2s  # noqa: F401
except ImportError:  # a Python without s2s installed: use this checkout
    sys.path.insert(0, str(REPO_ROOT))

from s2s.driver import RunOptions, Success, process_file  # noqa: E402
from s2s.frontend.core.parse import ParseOptions  # noqa: E402
from s2s.frontend.extract import load  # noqa: E402
from s2s.transform.fuse import run_fuse  # noqa: E402
from s2s.transform.transfers import run_transfers  # noqa: E402

PATTERNS = REPO_ROOT / "testsuite" / "fuse" / "data" / "patterns"
CORPUS = REPO_ROOT / "testsuite" / "corpus" / "cuda"


class Program:
    """One program: its main source, parser flags, and how to run it for ``s2s verify``."""

    def __init__(self, path: Path, flags=(), args=(), ignore=("^time: ",), make_input=None, root=None):
        self.path, self.flags, self.args = path, tuple(flags), tuple(args)
        self.ignore, self.make_input = tuple(ignore), make_input
        self.root = root or path.parent   # where it is built from (relative -I, inputs)

    @classmethod
    def from_sample(cls, directory: Path) -> Program:
        info = tomllib.loads((directory / "sample.toml").read_text())
        return cls(directory / info["sources"][0], info.get("flags", ()), info.get("args", ()),
                   info.get("ignore_lines", ()), info.get("make_input"), directory)

    @property
    def name(self) -> str:
        return self.root.name if self.root.parent == CORPUS else self.path.name

    @property
    def relative(self) -> str:
        return str(self.path.relative_to(self.root))

    def options(self) -> RunOptions:
        return RunOptions(parse=ParseOptions(user_flags=self.flags))


def counts(path: str, source: bytes, flags=()) -> tuple:
    """(cudaMemcpy + cudaMalloc calls, launches) in ``source`` (text when it does not parse)."""
    model = load(path, ParseOptions(user_flags=tuple(flags)), source=source).model
    if model is None:
        return ("does not parse",) * 2
    calls = sum(1 for c in model.api_calls if c.name in ("cudaMemcpy", "cudaMemcpyAsync", "cudaMalloc"))
    return calls, len(model.launches)


def reason(result, name: str) -> str:
    for d in result.diagnostics:
        if d.severity.name == "WARNING":
            return f"{d.message} [{d.id}]"
    refused = [d.message for d in result.diagnostics
               if d.id == "fuse-explain" and d.message.startswith("not fused")]
    # the recomputation attempt comes first; the reason the group itself failed is clearer
    plain = [m for m in refused if ": recomputation: " not in m]
    if name == "transfers":
        return ([d.message for d in result.diagnostics if d.id == "transfers-explain"] or [""])[0]
    return (plain or refused or ["no run of two or more launches"])[0]


def compiles(nvcc: str | None, text: bytes, work: Path, flags=()) -> str:
    """``nvcc -c`` of the rewrite (``flags`` name the original's directory for its headers)."""
    if nvcc is None:
        return "-"
    (work / "x.cu").write_bytes(text)
    proc = subprocess.run([nvcc, "-c", "-arch=sm_90", *flags, str(work / "x.cu"),
                           "-o", str(work / "x.o")], capture_output=True, text=True)
    return "yes" if proc.returncode == 0 else "NO"


def verifies(program: Program, name: str, work: Path) -> str:
    """``s2s verify --passes NAME`` of the program on cpu devices: OK or FAILED."""
    args = list(program.args)
    if program.make_input:
        inputs = work / f"inputs-{program.name}"
        inputs.mkdir(exist_ok=True)
        script, *rest = program.make_input
        subprocess.run([sys.executable, str(program.root / script), *rest, str(inputs)], check=True)
        args = [a.replace("{inputs}", str(inputs)) for a in args]
    command = [sys.executable, "-m", "s2s", "verify", "-q", "--passes", name, "--args", " ".join(args)]
    command += [x for line in program.ignore for x in ("--ignore-lines", line)]
    command += [program.relative, "--", *program.flags] if program.flags else [program.relative]
    proc = subprocess.run(command, cwd=program.root, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)))
    return "OK" if proc.returncode == 0 else "FAILED"


def measure(program: Program, nvcc, work: Path, verify: bool) -> tuple[list, bool]:
    rows, failed = [], False
    path = program.relative
    source = program.path.read_bytes()
    before = counts(path, source, program.flags)
    for name, run_pass, k in (("transfers", run_transfers, 0), ("fuse", run_fuse, 1)):
        result = process_file(path, program.options(), run_pass)
        if not isinstance(result, Success):
            rows.append((program.name, name, before[k], "failed", "-", "-", reason(result, name)))
            failed = True
            continue
        after = result.change.after
        changed = after != source
        flags = [f"-I{program.root / f[2:]}" if f.startswith("-I") else f for f in program.flags]
        flags.append(f"-I{program.path.parent}")
        ok = compiles(nvcc, after, work, flags) if changed else "-"
        if ok == "NO" and compiles(nvcc, source, work, flags) == "NO":
            ok = "no (nor the original)"  # e.g. APIs CUDA 13 removed (cudaThreadSynchronize)
        checked = verifies(program, name, work) if changed and verify else "-"
        failed |= ok == "NO" or checked == "FAILED" or result.incomplete or \
            isinstance(counts(path, after, program.flags)[k], str)
        why = "" if changed else reason(result, name)
        rows.append((program.name, name, before[k], counts(path, after, program.flags)[k], ok, checked, why))
    return rows, failed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--corpus", action="store_true", help="also the CUDA corpus of testsuite/corpus/cuda")
    parser.add_argument("--verify", action="store_true", help="run every rewritten program on cpu devices")
    args = parser.parse_args(argv)
    programs = [Program.from_sample(Path(f).resolve()) if (Path(f) / "sample.toml").is_file()
                else Program(Path(f).resolve()) for f in args.files] or \
        [Program(p) for p in sorted(PATTERNS.glob("*.cu"))]
    if args.corpus:
        programs += [Program.from_sample(d) for d in sorted(CORPUS.iterdir()) if (d / "sample.toml").is_file()]
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if Path("/usr/local/cuda/bin/nvcc").is_file() else None)
    rows, failed = [], False
    cwd = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        for program in programs:
            os.chdir(program.root)  # the program's relative -I and inputs
            try:
                mine, bad = measure(program, nvcc, Path(tmp), args.verify)
            finally:
                os.chdir(cwd)
            rows += mine
            failed |= bad
            for row in mine:  # progress: the sweep takes minutes
                print("  ".join(str(c) for c in row), file=sys.stderr)
    head = ("program", "pass", "before", "after", "nvcc", "verify", "reason when unchanged")
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
