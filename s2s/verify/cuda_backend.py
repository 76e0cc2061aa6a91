"""``s2s verify`` for CUDA programs: both versions run on the s2s runtime's cpu devices.

One way runs an unmodified CUDA program here, and both versions use it wherever they can: the
host shim of :mod:`s2s.verify.cuda_host` (host code compiled by g++ against a stand-in
``cuda_runtime.h`` whose calls go to the runtime's C interface; kernels compiled by the
runtime for its emulated devices). The original always runs that way, on one cpu device: it
is the single-GPU program. The rewritten program runs the same way while the passes leave it
a plain CUDA program (transfers, fuse). Once ``mgpu`` has made it a program of the s2s runtime
(it includes ``s2s_mgpu.h``), it is built as its user would build it -- nvcc with the
runtime's flags, what ``s2s nvcc --s2s-passes=mgpu`` adds -- and runs on ``devices`` cpu
devices, where the runtime splits its launches.

Both versions report what they moved through the runtime's statistics (``S2S_STATS``, written
when the program exits): the cudaMemcpy calls per direction counted by the C interface, the
bytes over every host/device link (copies and the fetches of partitioned launches), and the
launches split over several devices.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from runtime.capi_build import build_library
from runtime.errors import BackendUnavailable, CompileError
from s2s import shell_safe
from s2s.diagnostics import Diagnostic, ToolchainError
from s2s.edits import beside_name
from s2s.frontend.core.parse import detect_language
from s2s.verify import cuda_host, mpi_job
from s2s.verify.bounded_run import run_process
from s2s.verify.differential import (
    DeviceTraffic,
    ProgramRun,
    Verdict,
    VerifyOptions,
    VerifyUnavailable,
    announce,
    first_error,
    judge,
    output_differences,
    program_name,
    register_backend,
)
from s2s.verify.omp_harness import CopyStats
from s2s.wrapper.linemap import add_line_directives
from s2s.wrapper.rewrite import RewriteFailed, chain_passes
from s2s.wrapper.runtime_flags import RuntimeFlags, RuntimeUnavailable, mgpu_runtime_flags

#: a rewritten file that includes this header calls the s2s runtime itself (the mgpu pass)
_RUNTIME_PROGRAM = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*<s2s_mgpu\.h>", re.MULTILINE)
#: what nvcc's shell acts on inside a double-quoted -D value (nvcc escapes the quotes themselves)
_SHELL_ACTIVE = re.compile(r"[$`\\\n]")


def verify_cuda(sources: Sequence[str], options: VerifyOptions) -> Verdict:
    """Build, run and compare one CUDA program (one ``.cu`` file, or several: each rewritten and
    compiled on its own, then linked); raises VerifyUnavailable, ToolchainError when nothing can
    be verified."""
    sources = tuple(sources)
    paths, hosts = _the_cuda_sources(sources, options.run.parse.language)
    _check_toolchain()
    rewrites: dict[str, tuple[bytes, bytes]] = {}
    generated: dict[str, tuple[tuple[str, bytes], ...]] = {}
    said: tuple = ()
    announce(options, f"rewriting with {', '.join(name for name, _ in options.passes)}")
    try:
        for path in paths:
            chained = chain_passes(path, options.run, options.passes, incomplete_is_error=True)
            rewrites[path] = (chained.before, chained.after)
            generated[path] = chained.generated
            said += chained.diagnostics
    except RewriteFailed as error:
        return Verdict(sources, "cuda", (), diagnostics=(error.diagnostic,))
    changed = tuple(p for p, (before, after) in rewrites.items() if after != before)
    changed += rewritten_beside(generated)
    for_runtime = any(_RUNTIME_PROGRAM.search(after) for _before, after in rewrites.values())
    if options.ranks > 1:
        if not for_runtime:
            raise VerifyUnavailable("--ranks runs a program rewritten for the s2s runtime (the mgpu "
                                    "pass); the passes did not make one", id="verify-no-mpi")
        mpi_job.check_mpi()
    nvcc = _nvcc() if for_runtime else None
    with tempfile.TemporaryDirectory(prefix="s2s-verify-", dir=shell_safe.temp_root()) as temp:
        announce(options, "building the original and the rewritten program")
        built = _build_both(rewrites, Path(temp), options, nvcc, generated, hosts)
        if isinstance(built, Diagnostic):
            return Verdict(sources, "cuda", changed, diagnostics=(*said, built))
        announce(options, "running the original program")
        original = _run(built[0], 1, program_name(sources), options)
        announce(options, "running the rewritten program")
        rewritten = _run(built[1], options.devices if for_runtime else 1, program_name(sources),
                         options, options.ranks if for_runtime else 1)
    failures = tuple(r for r in (original, rewritten) if isinstance(r, Diagnostic))
    if failures:
        return Verdict(sources, "cuda", changed, diagnostics=(*said, *failures))
    differences = output_differences(original, rewritten, options)
    verdict_said = (*said, *judge(original, rewritten, differences),
                    *_failed_runs(original, rewritten), *_one_device(options, for_runtime))
    return Verdict(sources, "cuda", changed, original, rewritten, differences, verdict_said)


def rewritten_beside(generated: dict[str, tuple[tuple[str, bytes], ...]]) -> tuple[str, ...]:
    """The program's own files the passes rewrote along with a source (a ``.cu`` file it
    includes as text, whose launches mgpu rewrites in place), as opposed to the files they
    create (mgpu's kernel table): "rewritten files" names every file whose text changed."""
    out = []
    for path, data in (item for items in generated.values() for item in items):
        try:
            with open(path, "rb") as handle:
                if handle.read() != data:
                    out.append(path)
        except OSError:
            continue                      # created by the pass
    return tuple(dict.fromkeys(out))


def _one_device(options: VerifyOptions, for_runtime: bool) -> list[Diagnostic]:
    """Why the table shows 1 device under ``--devices N`` (issue 29): only a program rewritten
    for the s2s runtime (by mgpu) spreads its launches over devices; any other rewrite (fuse,
    transfers) is a plain CUDA program, run as the original is, on one cpu device."""
    if for_runtime or options.devices <= 1 or not options.devices_asked:
        return []
    passes = ", ".join(name for name, _pass in options.passes)
    return [Diagnostic.note(f"the rewritten program ran on 1 cpu device, as the original did, not "
                            f"on the {options.devices} asked for: the passes ({passes}) did not "
                            "rewrite it for the s2s runtime (only mgpu does), and a plain CUDA "
                            "program runs on one device", "verify-one-device")]


def _failed_runs(original: ProgramRun, rewritten: ProgramRun) -> list[Diagnostic]:
    """What a program that exited with an error said last (the runtime's or the shim's
    message, an assertion ...)."""
    notes = []
    for which, run in (("original", original), ("rewritten", rewritten)):
        if run.returncode != 0:
            last = run.stderr.strip().splitlines()[-3:] or ["(nothing on stderr)"]
            notes.append(Diagnostic.note(f"the {which} program exited with status "
                                         f"{run.returncode}: {' | '.join(last)}",
                                         "verify-exit-message"))
    return notes


def _the_cuda_sources(sources: tuple[str, ...], language: str | None = None
                      ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The program's sources: its .cu files (or any files taken as CUDA, ``-x cu``), which
    the passes rewrite, and its C and C++ files (Rodinia lud's ``../common/common.c``), which
    nvcc hands to the host compiler: built as they are into both programs."""
    sources = tuple(dict.fromkeys(sources))
    cuda = sources if language == "cuda" else tuple(
        s for s in sources if detect_language(s) == "cuda")
    hosts = tuple(s for s in sources if s not in cuda and detect_language(s) in ("c", "c++"))
    others = [s for s in sources if s not in cuda and s not in hosts]
    if others or not cuda:
        raise VerifyUnavailable(
            "a CUDA program is verified from its .cu files (and the C and C++ files it links); "
            f"got {', '.join(others) or 'no .cu file'}: verify each with --each",
            id="verify-cuda-unsupported")
    return cuda, hosts


def _check_toolchain() -> None:
    if shutil.which("g++") is None:
        raise ToolchainError("cannot verify CUDA programs here: no C++ compiler (g++) to build "
                             "host code against the CUDA host shim")
    try:
        build_library()
    except (BackendUnavailable, CompileError, OSError) as error:
        raise ToolchainError(f"cannot verify CUDA programs here: the s2s runtime's C library "
                             f"cannot be built: {error}") from None


def _nvcc() -> str:
    found = os.environ.get("S2S_REAL_NVCC") or shutil.which("nvcc")
    if found is None:
        raise VerifyUnavailable("the mgpu rewrite is built with nvcc against the s2s runtime, "
                                "and no nvcc was found (set S2S_REAL_NVCC); verify the other "
                                "passes with --passes", id="verify-no-nvcc")
    return found


def _build_both(rewrites: dict[str, tuple[bytes, bytes]], temp: Path, options: VerifyOptions,
                nvcc: str | None, generated: dict[str, tuple[tuple[str, bytes], ...]],
                hosts: tuple[str, ...] = ()) -> tuple[Path, Path] | Diagnostic:
    """Executables of the original and the rewritten program, or the Diagnostic of the build
    that failed. A construct the shim cannot run in the original means nothing can be
    verified (VerifyUnavailable)."""
    parse = options.run.parse
    paths = list(rewrites)
    try:
        original = cuda_host.build_program(paths, temp / "original", options=parse,
                                           flags=options.build_flags, hosts=hosts)
    except cuda_host.ShimUnsupported as error:
        raise VerifyUnavailable(f"{error}; nothing was run", id="verify-cuda-unsupported") from None
    except ToolchainError as error:
        return Diagnostic.error("the original program does not build against the CUDA host "
                                f"shim: {first_error(str(error))}", "verify-build-original")
    texts = {path: add_line_directives(before, after, path) if after != before else before
             for path, (before, after) in rewrites.items()}
    try:
        if nvcc is None:
            rewritten = cuda_host.build_program(paths, temp / "rewritten", texts, options=parse,
                                                flags=options.build_flags, hosts=hosts)
        else:
            rewritten = _build_for_runtime(texts, temp / "rewritten", options, nvcc, generated,
                                           hosts)
    except ToolchainError as error:
        return Diagnostic.error(f"the rewritten program does not build: {first_error(str(error))}",
                                "verify-build-rewritten")
    return original, rewritten


def _build_for_runtime(texts: dict[str, bytes], workdir: Path, options: VerifyOptions,
                       nvcc: str, generated: dict[str, tuple[tuple[str, bytes], ...]],
                       hosts: tuple[str, ...] = ()) -> Path:
    """nvcc build of an mgpu-rewritten program (its files compiled each with ``-c``, then
    linked with the objects of its C and C++ files) with the runtime's flags, each beside the
    files generated for it (its kernel table); raises ToolchainError."""
    try:
        flags = mgpu_runtime_flags(for_nvcc=True)
    except RuntimeUnavailable as error:
        raise ToolchainError(str(error)) from None
    workdir.mkdir(parents=True)
    objects = [cuda_host.host_object(path, workdir / f"host{number}", options.build_flags)
               for number, path in enumerate(hosts)]
    exe, single = None, len(texts) == 1 and not objects
    for number, (path, text) in enumerate(texts.items()):
        unit = workdir / f"unit{number}"
        unit.mkdir()
        for generated_path, data in generated.get(path, ()):
            target = unit / beside_name(generated_path, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        command, out = runtime_build_command(nvcc, path, text, unit, options.build_flags, flags)
        if not single:                           # -c each (no link flags), link below
            link = command.index("-o") - len(flags.link)
            command = [*command[:link], "-c", "-o", str(out.with_suffix(".o"))]
            objects.append(out.with_suffix(".o"))
        exe = exe or workdir / out.name
        _run_nvcc(command, unit, path)
        if single:
            return out
    _run_nvcc([nvcc, "-arch=sm_90", *map(str, objects), *flags.link, "-o", str(exe)], workdir,
              next(iter(texts)))
    return exe


def _run_nvcc(command: list[str], workdir: Path, path: str) -> None:
    # nvcc's own temporary files go to workdir too: a TMPDIR its shell would act on is not used
    proc = run_process(command, env=dict(os.environ, TMPDIR=str(workdir)))
    if proc.returncode != 0:
        raise ToolchainError(f"nvcc failed on the rewritten {path}:\n{proc.stderr[-3000:]}")


def runtime_build_command(nvcc: str, path: str, text: bytes, workdir: Path,
                          build_flags: Sequence[str], flags: RuntimeFlags
                          ) -> tuple[list[str], Path]:
    """The nvcc command that builds ``text`` (the rewrite of ``path``) in ``workdir``, and the
    program it makes. nvcc hands parts of its command line to a shell, so every path in it is
    plain (:mod:`s2s.shell_safe`): a copy under a plain name, links in ``workdir`` for
    the quoted-include and ``-I`` directories that are not. Raises ToolchainError for a
    ``workdir`` or a ``-D``/``-U`` value that nvcc's shell would act on."""
    if not shell_safe.is_safe(str(workdir)):
        raise ToolchainError(f"cannot build with nvcc in {str(workdir)!r}: nvcc would hand the "
                             "path to a shell (set TMPDIR to a plain path)")
    name = os.path.basename(path)
    source = workdir / (name if shell_safe.quotable(name) else _plain_name(name))
    source.write_bytes(text)
    exe = workdir / source.stem
    directory = shell_safe.alias(os.path.dirname(os.path.abspath(path)), str(workdir), "quote")
    command = [nvcc, "-std=c++17", "-arch=sm_90", "-w", *flags.compile, "-Xcompiler",
               f"-iquote,{directory}", *_user_flags(build_flags, workdir), str(source),
               *flags.link, "-o", str(exe)]
    return command, exe


def _user_flags(build_flags: Sequence[str], workdir: Path) -> list[str]:
    """The user's build flags (:func:`cuda_host.user_flags`) for nvcc: directories and forced
    includes that are not plain become links; a macro nvcc's quoting would not protect is
    refused."""
    flags = []
    for number, (option, value) in enumerate(cuda_host.user_flags(build_flags)):
        if option in ("-I", "-isystem"):
            value = shell_safe.alias(value, str(workdir), f"include{number}")
        elif option == "-include" and os.path.isabs(value) and not shell_safe.is_safe(value):
            link = workdir / f"include{number}.h"
            link.symlink_to(value)
            value = str(link)
        elif _SHELL_ACTIVE.search(value):
            raise ToolchainError(f"cannot give {option}{value!r} to nvcc: it hands the value to "
                                 "a shell, which would act on its $, ` or \\")
        flags += [option, value] if option in ("-isystem", "-include") else [option + value]
    return flags


def _plain_name(name: str) -> str:
    """``name`` with every character but letters, digits and ``_.+-`` replaced by ``_``."""
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", name).lstrip("-") or "program.cu"


def _run(exe: Path, devices: int, argv0: str, options: VerifyOptions,
         ranks: int = 1) -> ProgramRun | Diagnostic:
    """Run ``exe`` as ``argv0`` on ``devices`` cpu devices (per rank of an MPI job of ``ranks``
    processes when ranks > 1); its output and what it moved."""
    which = exe.parent.name  # "original" or "rewritten"
    stats = exe.parent / "stats.json"
    env = dict(os.environ, S2S_BACKEND="cpu", S2S_DEVICES=str(devices), S2S_STATS=str(stats))
    argv, executable = [argv0, *options.args], exe
    if ranks > 1:
        argv, env = mpi_job.job(exe, ranks, options.args, env)
        executable = argv[0]
    try:
        proc = run_process(argv, executable=executable, env=env, timeout=options.timeout)
    except subprocess.TimeoutExpired:
        return Diagnostic.error(f"the {which} program ran longer than {options.timeout:g} s",
                                f"verify-timeout-{which}")
    if not stats.exists():  # the program never reached the runtime
        return ProgramRun(proc.stdout, proc.returncode, None, stderr=proc.stderr,
                          dropped=sum(proc.dropped.values()))
    copies, traffic = traffic_of(json.loads(stats.read_text()))
    return ProgramRun(proc.stdout, proc.returncode, copies, traffic=traffic, stderr=proc.stderr,
                      dropped=sum(proc.dropped.values()))


def traffic_of(stats: dict) -> tuple[CopyStats, DeviceTraffic]:
    """cudaMemcpy calls and bytes moved, from the runtime's ``S2S_STATS`` document: bytes over
    every link of the copies and of the launches (a partitioned launch fetches what its box
    reads), host links as host-to-device/device-to-host, the others between devices (a copy
    within one device moves nothing between them)."""
    calls = stats.get("calls", {})
    links = [stats["memcpy_links"], *(launch["links"] for launch in stats["launches"])]
    moved = {"h2d": 0, "d2h": 0, "d2d": 0}
    for table in links:
        for link, nbytes in table.items():
            source, target = link.split("->")
            if source == "host":
                moved["h2d"] += nbytes
            elif target == "host":
                moved["d2h"] += nbytes
            elif source != target:
                moved["d2d"] += nbytes
    copies = CopyStats(calls.get("memcpy_h2d", 0), moved["h2d"], calls.get("memcpy_d2h", 0),
                       moved["d2h"])
    traffic = DeviceTraffic(stats["devices"], calls.get("memcpy_d2d", 0), moved["d2d"],
                            len(stats["launches"]),
                            sum(1 for launch in stats["launches"]
                                if launch["partitioned"] and launch["boxes"] > 1),
                            calls.get("malloc", 0))
    return copies, traffic


register_backend("cuda", verify_cuda)
