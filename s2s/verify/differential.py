"""``s2s verify``: build the original and the rewritten program, run both, compare.

This is the check users run on their own code before trusting a rewrite: same exit status,
same output (numbers within a relative tolerance if asked), and, for OpenMP offload, how many
copies and bytes each version moves, with every kernel pointer that has no device mapping
reported as an error in the rewritten program (it works on the host device only).

A backend per program kind does the building and running, registered with
:func:`register_backend`: OpenMP programs run on clang-16's host device through
:mod:`s2s.verify.omp_harness` (here); CUDA programs run on the s2s runtime's cpu devices
(:mod:`s2s.verify.cuda_backend`, which registers itself when imported).
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from s2s.diagnostics import Diagnostic, S2SError, ToolchainError
from s2s.driver import Failed, Pass, RunOptions, Success
from s2s.frontend.core.parse import detect_language
from s2s.transform import registry
from s2s.verify import omp_harness
from s2s.verify.bounded_run import OUTPUT_LIMIT
from s2s.whole_program import process_program
from s2s.wrapper.linemap import add_line_directives
from s2s.wrapper.rewrite import RewriteFailed, chain_passes, incomplete_rewrite


class VerifyUnavailable(S2SError):
    """This kind of program cannot be verified by this s2s (exit 2, nothing was run)."""

    exit_code = 2
    default_id = "verify-unavailable"


@dataclass(frozen=True)
class VerifyOptions:
    run: RunOptions  # how to parse (user flags after --, -p database)
    passes: tuple[tuple[str, Pass], ...]
    args: tuple[str, ...] = ()  # the program's command-line arguments
    tolerance: float = 0.0  # relative tolerance for numbers in the output
    timeout: float = 120.0  # seconds per run
    build_flags: tuple[str, ...] = ()  # compiler flags for both builds (-D, -I ...)
    devices: int = 2  # cpu devices a program rewritten for the runtime (mgpu) runs on
    #: ``devices`` was asked for (``--devices N``): a rewrite that cannot run on them says why
    devices_asked: bool = False
    ranks: int = 1  # MPI processes (mpirun -np) the rewritten runtime program runs as, each with devices
    ignore_lines: tuple[str, ...] = ()  # output lines matching one (re.search) are not compared
    #: told the step that starts ("building both versions"), for a progress line on stderr
    progress: Callable[[str], None] | None = field(default=None, compare=False)


def announce(options: VerifyOptions, step: str) -> None:
    """Say that ``step`` starts (builds and runs take minutes on large programs)."""
    if options.progress is not None:
        options.progress(step)


#: passes a program of each kind is verified with when none are named
#: the CUDA passes in the pipeline's order (fuse, transfers, mgpu: registry.PIPELINE_ORDER)
DEFAULT_PASSES = {"openmp": ("omp",),
                  "cuda": tuple(n for n in registry.PIPELINE_ORDER if n != "omp")}


@dataclass(frozen=True)
class DeviceTraffic:
    """What a CUDA program moved on the runtime's cpu devices, beyond ``ProgramRun.copies``
    (cudaMemcpy calls per direction; bytes between the host and the devices)."""

    devices: int
    d2d_calls: int  # cudaMemcpy calls device to device
    d2d_bytes: int  # bytes between two different devices (copies and partitioned launches)
    launches: int
    partitioned: int  # launches split over several devices
    mallocs: int


@dataclass(frozen=True)
class ProgramRun:
    """One version of the program, run once."""

    stdout: str
    returncode: int
    copies: omp_harness.CopyStats | None  # None where the backend cannot count copies
    unmapped: tuple[str, ...] = ()
    traffic: DeviceTraffic | None = None  # CUDA programs only
    stderr: str = field(default="", repr=False)  # kept by backends whose stderr is the program's
    dropped: int = 0  # output bytes past the bound kept per stream (not compared)


@dataclass(frozen=True)
class Verdict:
    """The comparison of one program's original and rewritten versions."""

    sources: tuple[str, ...]
    kind: str  # "openmp" or "cuda"
    changed: tuple[str, ...]  # sources the passes changed
    original: ProgramRun | None = None
    rewritten: ProgramRun | None = None
    differences: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    #: (stage, seconds) for ``-v``: rewrite, build, run original, ... (backends that time them)
    stages: tuple[tuple[str, float], ...] = ()

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


Backend = Callable[[Sequence[str], VerifyOptions], Verdict]
BACKENDS: dict[str, Backend] = {}


def register_backend(kind: str, backend: Backend) -> None:
    """Make programs of ``kind`` ('openmp', 'cuda') verifiable."""
    BACKENDS[kind] = backend


def program_kind(sources: Sequence[str], language: str | None = None) -> str:
    """'cuda' for a program with a .cu source (or every source taken as CUDA: ``-x cu``),
    else 'openmp'."""
    if language is not None:
        return "cuda" if language == "cuda" else "openmp"
    return "cuda" if any(detect_language(s) == "cuda" for s in sources) else "openmp"


def verify_program(sources: Sequence[str], options: VerifyOptions) -> Verdict:
    """Verify one program made of ``sources``; raises VerifyUnavailable, ToolchainError."""
    kind = program_kind(sources, options.run.parse.language)
    backend = BACKENDS.get(kind)
    if backend is None:
        raise VerifyUnavailable(f"this s2s cannot verify {kind} programs (no backend is "
                                "registered); nothing was built or run",
                                id=f"verify-{kind}-unavailable")
    return backend(sources, options)


def program_name(sources: Sequence[str]) -> str:
    """The ``argv[0]`` both versions of a program run with: ``./`` and the first source's stem,
    as its user would run it. Why: the two builds live in different places, and a program that
    prints its own name (a usage line) must not differ for that reason."""
    return "./" + Path(sources[0]).stem


def distinct(diagnostics) -> list[Diagnostic]:
    """Each diagnostic once, in first-seen order, with ``(N times)`` after a message said
    N > 1 times: verify runs several passes and builds, which repeat what they find (every
    pass warns about the same launch in a macro)."""
    counts: dict[Diagnostic, int] = {}
    for diagnostic in diagnostics:
        counts[diagnostic] = counts.get(diagnostic, 0) + 1
    return [d if n == 1 else replace(d, message=f"{d.message} ({n} times)")
            for d, n in counts.items()]


def output_differences(original: ProgramRun, rewritten: ProgramRun,
                       options: VerifyOptions) -> tuple[str, ...]:
    """The places where the two runs' outputs differ, with the options' tolerance and ignored
    lines; shared by the backends so that every option reaches each."""
    return tuple(omp_harness.output_differences(original.stdout, rewritten.stdout,
                                                options.tolerance, ignore=options.ignore_lines))


# --------------------------------------------------------------------------
# OpenMP offload programs on clang-16's host device
# --------------------------------------------------------------------------


def verify_openmp(sources: Sequence[str], options: VerifyOptions) -> Verdict:
    problem = omp_harness.toolchain_problem()
    if problem is not None:
        raise ToolchainError(f"cannot build OpenMP offload programs here: {problem}")
    sources = tuple(sources)
    said: list[Diagnostic] = []
    rewritten: dict[str, tuple[bytes, bytes]] = {}
    clock = _Stages()
    announce(options, f"rewriting with {', '.join(name for name, _ in options.passes)}")
    whole = _whole_program(sources, options)
    if isinstance(whole, Diagnostic):
        return Verdict(sources, "openmp", (), diagnostics=(whole,))
    if whole is not None:
        rewritten, said = whole
    for path in sources if whole is None else ():
        try:
            chained = chain_passes(path, options.run, options.passes, incomplete_is_error=True)
        except RewriteFailed as error:
            return Verdict(sources, "openmp", (), diagnostics=(error.diagnostic,))
        said += chained.diagnostics
        if chained.before != chained.after:
            rewritten[path] = (chained.before, chained.after)
    clock.done("rewrite")
    with tempfile.TemporaryDirectory(prefix="s2s-verify-") as temp:
        announce(options, "building the original and the rewritten program")
        built = _build_both(sources, rewritten, Path(temp), options)
        clock.done("build both")
        if isinstance(built, Diagnostic):
            return Verdict(sources, "openmp", tuple(rewritten), diagnostics=(*said, built),
                           stages=clock.stages)
        announce(options, "running the original program")
        original = _run(built[0], program_name(sources), options)
        clock.done("run original")
        announce(options, "running the rewritten program")
        changed = _run(built[1], program_name(sources), options)
        clock.done("run rewritten")
    if isinstance(original, Diagnostic) or isinstance(changed, Diagnostic):
        failures = tuple(r for r in (original, changed) if isinstance(r, Diagnostic))
        return Verdict(sources, "openmp", tuple(rewritten), diagnostics=(*said, *failures),
                       stages=clock.stages)
    differences = output_differences(original, changed, options)
    said += judge(original, changed, differences)
    clock.done("compare")
    return Verdict(sources, "openmp", tuple(rewritten), original, changed, differences,
                   tuple(said), clock.stages)


class _Stages:
    """Seconds since the previous stage ended, per stage (``s2s verify -v``)."""

    def __init__(self):
        self.stages: tuple[tuple[str, float], ...] = ()
        self._last = time.perf_counter()

    def done(self, stage: str) -> None:
        now = time.perf_counter()
        self.stages += ((stage, now - self._last),)
        self._last = now


def _whole_program(sources: tuple[str, ...], options: VerifyOptions):
    """The rewrite ``s2s omp`` makes of the sources as one program (what the user gets from
    ``s2s omp a.c b.c``): ``(rewritten, diagnostics)``; None where the passes are not one
    whole-program pass (they then run file by file); a Diagnostic when a file fails or a
    project header would change (the rewritten build cannot place it yet)."""
    if len(options.passes) != 1 or not registry.is_whole_program(options.passes[0][1]):
        return None
    rewritten, said = {}, []
    for result in process_program(list(sources), options.run, options.passes[0][1]):
        if isinstance(result, Failed):
            errors = [d for d in result.diagnostics if d.is_error] or list(result.diagnostics)
            return errors[0] if errors else Diagnostic.error(f"{result.path}: the pass failed",
                                                             "internal")
        if not isinstance(result, Success):
            continue
        said += result.diagnostics[len(result.loaded.diagnostics):]
        if result.incomplete:
            said.append(incomplete_rewrite(options.passes[0][0], result.path))
        if result.change is not None and result.change.changed:
            if result.path not in sources:
                return Diagnostic.error(f"the rewrite changes the project header {result.path}, "
                                        "which verify cannot build yet", "verify-header")
            rewritten[result.path] = (result.change.before, result.change.after)
    return rewritten, said


def _build_both(sources: tuple[str, ...], rewritten: dict[str, tuple[bytes, bytes]],
                temp: Path, options: VerifyOptions) -> tuple[Path, Path] | Diagnostic:
    """Build the original and the rewritten program; a Diagnostic when either fails."""
    copies = []
    for number, path in enumerate(sources):
        if path not in rewritten:
            copies.append(path)
            continue
        copy = temp / str(number) / os.path.basename(path)
        copy.parent.mkdir()
        copy.write_bytes(add_line_directives(*rewritten[path], path))
        copies.append(str(copy))
    quote = [flag for d in dict.fromkeys(os.path.dirname(p) or "." for p in rewritten)
             for flag in ("-iquote", d)]
    language = omp_harness.language_of(sources)
    exes = temp / "original", temp / "rewritten"
    for exe, files, extra in ((exes[0], sources, ()), (exes[1], copies, quote)):
        try:
            omp_harness.build(files, exe, language, (*extra, *options.build_flags))
        except omp_harness.BuildError as error:
            which = exe.name
            return Diagnostic.error(f"the {which} program does not build: "
                                    f"{first_error(error.stderr)}", f"verify-build-{which}")
    return exes


def _run(exe: Path, argv0: str, options: VerifyOptions) -> ProgramRun | Diagnostic:
    try:
        result = omp_harness.run(exe, options.args, timeout=options.timeout, argv0=argv0)
    except subprocess.TimeoutExpired:
        return Diagnostic.error(f"the {exe.name} program ran longer than {options.timeout:g} s",
                                f"verify-timeout-{exe.name}")
    return ProgramRun(result.stdout, result.returncode, result.copies, result.unmapped,
                      dropped=result.dropped)


def judge(original: ProgramRun, rewritten: ProgramRun,
          differences: tuple[str, ...]) -> list[Diagnostic]:
    """The errors (and warnings) the comparison of two runs gives; shared by the backends."""
    said = _failed_exits(original, rewritten)
    if differences:
        said.append(Diagnostic.error(f"outputs differ in {len(differences)} place(s); first: "
                                     f"{differences[0]}", "verify-output"))
    for which, run in (("original", original), ("rewritten", rewritten)):
        if run.dropped:
            said.append(Diagnostic.warning(
                f"the {which} program printed {run.dropped} bytes more than the "
                f"{OUTPUT_LIMIT >> 20} MiB per stream verify keeps: only the kept part of "
                "its output (and of its copy log) was compared", "verify-output-truncated"))
    for pointer in rewritten.unmapped:
        said.append(Diagnostic.error(f"the rewritten program uses {pointer} with no device "
                                     "mapping: right on the host device, wrong on a GPU",
                                     "verify-unmapped"))
    for pointer in original.unmapped:
        said.append(Diagnostic.warning(f"the original program uses {pointer} with no device "
                                       "mapping", "verify-unmapped-original"))
    return said


def _failed_exits(original: ProgramRun, rewritten: ProgramRun) -> list[Diagnostic]:
    """Errors for exit statuses. Why more than "they differ": two identical crashes, or an
    original that itself fails, compare equal and yet show nothing about the rewrite, so a
    death by a signal of either, and a non-zero exit of the original, fail the check."""
    said = []
    if original.returncode != rewritten.returncode:
        said.append(Diagnostic.error(f"exit status differs: original {original.returncode}, "
                                     f"rewritten {rewritten.returncode}", "verify-exit-status"))
    elif original.returncode > 0:
        said.append(Diagnostic.error(f"the original program exits with {original.returncode}: "
                                     "nothing to compare (the rewritten one exits with it "
                                     "too)", "verify-original-fails"))
    for which, run in (("original", original), ("rewritten", rewritten)):
        if run.returncode < 0:
            said.append(Diagnostic.error(f"the {which} program was killed by "
                                         f"{_signal_name(-run.returncode)}",
                                         f"verify-signal-{which}"))
    return said


def _signal_name(number: int) -> str:
    """``signal 11 (SIGSEGV)``, or ``signal N`` for a number Python does not name."""
    try:
        return f"signal {number} ({signal.Signals(number).name})"
    except ValueError:
        return f"signal {number}"


def first_error(stderr: str) -> str:
    """The line of a compiler's output worth showing in a one-line diagnostic (for a failed
    link, the linker's complaint rather than collect2's summary)."""
    lines = stderr.splitlines()
    errors = [line for line in lines if "error" in line and "collect2" not in line]
    unresolved = [line for line in lines if "undefined reference" in line]
    fallback = [line for line in lines if "error" in line] or stderr.strip().splitlines()[:1]
    return (errors or unresolved or fallback or ["(no message)"])[0].strip()


register_backend("openmp", verify_openmp)
