"""One case of a seed (its sample and mutant, which steps run) and how s2s is run:
in-process with its output captured, or as a subprocess."""

from __future__ import annotations

import contextlib
import io
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from s2s.verify.fuzz.corpus import (
    DEFAULT_NVCC_RATE,
    DEFAULT_SUBPROCESS_RATE,
    DEFAULT_TOOLKIT_RATE,
    DEFAULT_VERIFY_RATE,
    REPO_ROOT,
    REWRITE_COMMANDS,
    SAMPLES_ROOT,
    SampleFile,
    corpus,
)
from s2s.verify.fuzz.mutate_bytes import (
    Mutant,
    m_deep_nesting,
    m_delete_tokens,
    m_duplicate_tokens,
    m_encoding,
    m_huge_line,
    m_line_ends,
    m_nul_bytes,
    m_preprocessor,
    m_random_bytes,
    m_swap_lines,
    m_truncate,
    m_unbalance,
)
from s2s.verify.fuzz.mutate_code import (
    m_cuda_valid,
    m_launch,
    m_operators,
    m_pragma,
    m_pragma_valid,
    m_statements,
)

#: name -> (mutator, languages it applies to, weight)
MUTATORS: dict[str, tuple[Callable[[random.Random, bytes, Mutant], bytes], tuple[str, ...],
                          int]] = {
    "delete-tokens": (m_delete_tokens, ("cuda", "openmp"), 10),
    "duplicate-tokens": (m_duplicate_tokens, ("cuda", "openmp"), 8),
    "unbalance": (m_unbalance, ("cuda", "openmp"), 8),
    "random-bytes": (m_random_bytes, ("cuda", "openmp"), 6),
    "deep-nesting": (m_deep_nesting, ("cuda", "openmp"), 8),
    "huge-line": (m_huge_line, ("cuda", "openmp"), 5),
    "truncate": (m_truncate, ("cuda", "openmp"), 6),
    "swap-lines": (m_swap_lines, ("cuda", "openmp"), 8),
    "line-ends": (m_line_ends, ("cuda", "openmp"), 6),
    "encoding": (m_encoding, ("cuda", "openmp"), 6),
    "nul-bytes": (m_nul_bytes, ("cuda", "openmp"), 5),
    "preprocessor": (m_preprocessor, ("cuda", "openmp"), 5),
    "pragma": (m_pragma, ("openmp",), 10),
    "launch": (m_launch, ("cuda",), 5),
    # changes that mostly keep the program valid, so the analyses and rewrites run on them
    "statements": (m_statements, ("cuda", "openmp"), 22),
    "operators": (m_operators, ("cuda", "openmp"), 18),
    "pragma-valid": (m_pragma_valid, ("openmp",), 26),
    "cuda-valid": (m_cuda_valid, ("cuda",), 26),
}


def mutate(rng: random.Random, sample: SampleFile, data: bytes) -> Mutant:
    """One to three mutations of ``data`` (2% of the cases: none, the sample as it is)."""
    mutant = Mutant(data)
    if rng.random() < 0.02:
        mutant.steps.append("unmutated")
        return mutant
    names = [n for n, (_f, langs, _w) in MUTATORS.items() if sample.language in langs]
    weights = [MUTATORS[n][2] for n in names]
    count = rng.choices([1, 2, 3], [60, 30, 10])[0]
    for name in rng.choices(names, weights, k=count):
        before = len(mutant.steps)
        mutant.data = MUTATORS[name][0](rng, mutant.data, mutant)
        if len(mutant.steps) == before:
            mutant.steps.append("no change")
        mutant.steps[before:] = [f"{name}: {step}" for step in mutant.steps[before:]]
    return mutant


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------


@dataclass
class Case:
    seed: int
    sample: SampleFile
    mutant: Mutant
    cuda_path: str  # "shim" or "auto"
    inspect_flags: tuple[str, ...]
    explain: tuple[str, ...]  # rewrite commands run with --explain
    check_command: str
    inplace_command: str
    backup: bool
    output_dir: bool
    verify: bool
    subprocess: bool
    nvcc: bool
    flags: tuple[str, ...] = ()  # parse options for every run (--cuda-side, -x)

    def describe(self) -> str:
        return f"seed {self.seed}: {self.sample.name}: " + "; ".join(self.mutant.steps)


@dataclass(frozen=True)
class CaseOptions:
    """Rates of the optional parts of a case, and cases forced to them."""

    verify_rate: float = DEFAULT_VERIFY_RATE
    subprocess_rate: float = DEFAULT_SUBPROCESS_RATE
    toolkit_rate: float = DEFAULT_TOOLKIT_RATE
    nvcc_rate: float = DEFAULT_NVCC_RATE
    force_verify: frozenset[int] = frozenset()
    force_subprocess: frozenset[int] = frozenset()


_CORPUS_CACHE: dict[Path, list[SampleFile]] = {}


def make_case(seed: int, options: CaseOptions = CaseOptions(),
              root: Path = SAMPLES_ROOT) -> Case:
    """The case of ``seed``: everything below comes from ``random.Random(seed)`` only."""
    files = _CORPUS_CACHE.get(root)
    if files is None:
        files = _CORPUS_CACHE[root] = corpus(root)
    rng = random.Random(seed)
    sample = rng.choice(files)
    mutant = mutate(rng, sample, sample.path.read_bytes())
    inspect_flags: tuple[str, ...] = ()
    if rng.random() < 0.3:
        inspect_flags += ("--format", "json")
    if rng.random() < 0.2:
        inspect_flags += ("--access",)
    explain = tuple(c for c in REWRITE_COMMANDS if rng.random() < 0.3)
    check_command = rng.choice(REWRITE_COMMANDS)
    inplace_command = rng.choice(REWRITE_COMMANDS)
    backup = rng.random() < 0.3
    output_dir = rng.random() < 0.2
    verify = rng.random() < options.verify_rate or seed in options.force_verify
    sub = rng.random() < options.subprocess_rate or seed in options.force_subprocess
    cuda_path = "auto" if rng.random() < options.toolkit_rate else "shim"
    nvcc = rng.random() < options.nvcc_rate
    flags: tuple[str, ...] = ()
    if sample.language == "cuda":
        side = rng.choices(["auto", "host", "device", "both"], [70, 10, 10, 10])[0]
        flags = ("--cuda-side", side) if side != "auto" else ()
    elif sample.path.suffix == ".c" and rng.random() < 0.05:
        flags = ("-x", "c++")
    return Case(seed, sample, mutant, cuda_path, inspect_flags, explain, check_command,
                inplace_command, backup, output_dir, verify, sub, nvcc, flags)


# --------------------------------------------------------------------------------------------
# Running s2s: in-process and as a subprocess
# --------------------------------------------------------------------------------------------


@dataclass
class RunOutput:
    argv: list[str]
    returncode: int  # negative: killed by that signal
    stdout: str
    stderr: str
    seconds: float
    exception: str | None = None  # an exception that escaped main() (in-process only)
    timed_out: bool = False


def run_inprocess(argv: list[str]) -> RunOutput:
    """``s2s.cli.main.main(argv)`` with Python-level and fd-level stdout/stderr captured."""
    from s2s.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    raw = tempfile.TemporaryFile()
    os.dup2(raw.fileno(), 1)
    os.dup2(raw.fileno(), 2)
    exception = None
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else (
                    0 if exit_.code is None else 1)
                if not isinstance(exit_.code, (int, type(None))):
                    err.write(str(exit_.code) + "\n")
            except BaseException:  # noqa: BLE001 - what escapes main is the finding
                code = 2
                exception = traceback.format_exc()
    finally:
        seconds = time.perf_counter() - start
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
    raw.seek(0)
    fd_text = raw.read().decode("utf-8", errors="replace")
    raw.close()
    if not isinstance(code, int):
        code = 2
    return RunOutput(argv, code, out.getvalue(), err.getvalue() + fd_text, seconds, exception)


def run_subprocess(argv: list[str], timeout: float, env: dict[str, str] | None = None
                   ) -> RunOutput:
    """``python -m s2s ARGV`` as a real process (segfaults show as a negative status)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "s2s", *argv], capture_output=True,
                              timeout=timeout, env=env, cwd=REPO_ROOT, start_new_session=True)
    except subprocess.TimeoutExpired as expired:
        return RunOutput(argv, -signal.SIGKILL, _text(expired.stdout), _text(expired.stderr),
                         time.perf_counter() - start, timed_out=True)
    return RunOutput(argv, proc.returncode, _text(proc.stdout), _text(proc.stderr),
                     time.perf_counter() - start)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")
