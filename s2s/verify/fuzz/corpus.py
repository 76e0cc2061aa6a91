"""The fuzzer's corpus: the bundled samples, and the fresh seed range of a commit."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import tomllib

from s2s import runtime_files

#: the checkout the fuzzer mutates samples of (a tool of the source tree: the wheel carries no
#: samples); the runtime's headers come from the imported package like everywhere else
REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLES_ROOT = REPO_ROOT / "samples"
RUNTIME_INCLUDE = Path(runtime_files.RUNTIME_INCLUDE)

REWRITE_COMMANDS = ("omp", "transfers", "fuse", "mgpu")
COMMANDS = ("inspect", *REWRITE_COMMANDS)
SOURCE_SUFFIXES = (".c", ".cu", ".cpp", ".cc", ".cxx")
HEADER_SUFFIXES = (".h", ".cuh", ".hpp")

#: Defaults of one fuzzing run (the CI test and the benchmark script use these unless told).
DEFAULT_CASE_TIMEOUT = 180.0  # CPU seconds (Watchdog); `fuse` alone takes 10 s on horner.cu
DEFAULT_VERIFY_RATE = 0.02
DEFAULT_SUBPROCESS_RATE = 0.03
DEFAULT_TOOLKIT_RATE = 0.08  # cases parsed against the real CUDA toolkit instead of the shim
DEFAULT_NVCC_RATE = 0.01  # cases where `fuse` may run nvcc --resource-usage

#: Fresh seeds start here (the fixed CI seeds and the documented runs lie below it).
FRESH_SEED_BASE = 1_000_000
#: Fresh ranges are spread over this many seeds, so two commits rarely share one.
FRESH_SEED_SPAN = 100_000_000


def commit_seed_start(revision: str | None = None) -> tuple[int, str]:
    """The first seed of the fresh range for the checked-out commit, and the commit it came
    from. Why: fixed seeds only ever re-check the cases they found; a range derived from the
    commit hash (``git rev-parse HEAD``) is new with each commit and yet reproducible from the
    commit alone. ``revision`` stands in for HEAD's hash; without a git checkout (an installed
    wheel) the range starts at FRESH_SEED_BASE and the commit reads 'unknown'."""
    if revision is None:
        try:
            proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, timeout=30,
                                  capture_output=True, text=True)
            revision = proc.stdout.strip() if proc.returncode == 0 else ""
        except (OSError, subprocess.TimeoutExpired):
            revision = ""
    if not re.fullmatch(r"[0-9a-f]{7,64}", revision or ""):
        return FRESH_SEED_BASE, "unknown"
    return FRESH_SEED_BASE + int(revision[:12], 16) % FRESH_SEED_SPAN, revision


# --------------------------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SampleFile:
    """One source file of a sample, with the files that travel with it."""

    path: Path  # the file to mutate
    directory: Path  # its sample directory (every source and header there is copied along)
    language: str  # "cuda" or "openmp"
    program: tuple[str, ...]  # file names that form its program (for verify)

    @property
    def name(self) -> str:
        return f"{self.directory.parent.name}/{self.directory.name}/{self.path.name}"


def corpus(root: Path = SAMPLES_ROOT) -> list[SampleFile]:
    """Every source file of ``root/cuda/*`` and ``root/openmp/*`` (headers too), sorted."""
    files = []
    for language in ("cuda", "openmp"):
        for directory in sorted(p for p in (root / language).iterdir() if p.is_dir()):
            sources = _sample_sources(directory)
            for path in sorted(directory.iterdir()):
                if path.suffix not in SOURCE_SUFFIXES + HEADER_SUFFIXES or not path.is_file():
                    continue
                program = sources if path.name in sources else (path.name,)
                if path.suffix in HEADER_SUFFIXES:
                    program = sources or (path.name,)
                files.append(SampleFile(path, directory, language, tuple(program)))
    return files


def _sample_sources(directory: Path) -> tuple[str, ...]:
    toml = directory / "sample.toml"
    if toml.is_file():
        with open(toml, "rb") as handle:
            meta = tomllib.load(handle)
        return tuple(meta.get("sources", ()))
    return ()


def companions(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir()
                  if p.is_file() and p.suffix in SOURCE_SUFFIXES + HEADER_SUFFIXES)
