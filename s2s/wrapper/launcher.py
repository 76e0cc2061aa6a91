"""``s2s nvcc ...`` and ``s2s <compiler> ...``: rewrite the sources, then run the real compiler.

The promise to a build is that the wrapper never breaks it. So every step that can go wrong
ends in one of two safe places:

* *pass on*: run the compiler on the command as given (minus ``--s2s-*`` options), silently,
  when there is nothing to do: no passes selected, no sources (a link step, ``--version``),
  no source changed, or a wrapper further up the process chain already ran the passes;
* *fall back*: the same, plus one warning line saying why, when the wrapper cannot do what was
  asked: an option it does not know, a bad setting, a pass that failed on a source, or
  rewritten sources that the compiler rejects. The warning comes only when the original
  command compiles: when it fails too, the compiler's own messages say what is wrong.

Only a missing real compiler is an error (exit 2): there is nothing to fall back to.
Otherwise the exit code is the compiler's; stopped by SIGTERM, SIGINT or SIGHUP, the wrapper
stops its compiler, removes its temporary files and exits with 128 + the signal number
(:mod:`s2s.wrapper.children`).

nvcc hands parts of its command line to a shell, so nothing the wrapper adds to an nvcc
command carries a character that shell would act on (:mod:`s2s.shell_safe`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from s2s import parallel, shell_safe
from s2s.diagnostics import Diagnostic, DiagnosticPrinter, InputError, S2SError, UsageError
from s2s.edits import beside_name
from s2s.output import write_output
from s2s.transform import registry
from s2s.user_files import read_regular
from s2s.wrapper import outputs
from s2s.wrapper.args import Classified, Phase, Table, classify
from s2s.wrapper.children import Children, Interrupted
from s2s.wrapper.compilers import (
    CompilerNotFound,
    check_launched,
    child_environ,
    find_real_nvcc,
    guarded,
    self_paths,
    table_for,
)
from s2s.wrapper.config import (
    WRAPPER_HELP,
    ConfigProblem,
    Settings,
    load_settings,
    split_wrapper_options,
    without_wrapper_options,
)
from s2s.wrapper.linemap import add_line_directives
from s2s.wrapper.nvcc_args import NVCC
from s2s.wrapper.rewrite import Rewrite, RewriteFailed, parse_options, rewrite_source
from s2s.wrapper.runtime_flags import RuntimeFlags, RuntimeUnavailable, runtime_flags

if TYPE_CHECKING:
    from s2s.driver import Pass

_DEPS_WITH_COMPILE = ("-MD", "-MMD", "--generate-dependencies-with-compile",
                      "--generate-nonsystem-dependencies-with-compile")
_DEPS_FILE = ("-MF", "--dependency-output")
_STDOUT = "-"


def run_nvcc(argv: list[str], known_passes: Mapping[str, str],
             environ: Mapping[str, str] | None = None) -> int:
    """``s2s nvcc ARGS``: the real nvcc comes from the settings or PATH."""
    env = dict(os.environ if environ is None else environ)
    wrapper = _Wrapper(env, known_passes, "s2s nvcc")
    return wrapper.run_stoppable(argv, lambda s: find_real_nvcc(s.real_nvcc, env, self_paths()),
                                 NVCC)


def run_launcher(argv: list[str], known_passes: Mapping[str, str],
                 environ: Mapping[str, str] | None = None) -> int:
    """``s2s COMPILER ARGS`` (CMake's compiler launcher): ``argv[0]`` is the compiler."""
    env = dict(os.environ if environ is None else environ)
    compiler = argv[0]
    wrapper = _Wrapper(env, known_passes, f"s2s {os.path.basename(compiler)}")
    return wrapper.run_stoppable(argv[1:], lambda s: check_launched(compiler, env, self_paths()),
                                 table_for(compiler))


@dataclass
class _Wrapper:
    environ: dict[str, str]
    known_passes: Mapping[str, str]  # pass name -> the issue that brings it
    name: str  # how messages name us: "s2s nvcc", "s2s clang-16"
    settings: Settings = field(default_factory=Settings)
    printer: DiagnosticPrinter = field(default_factory=lambda: DiagnosticPrinter(hint=None))
    compiler: str = ""
    children: Children = field(default_factory=Children)

    def run_stoppable(self, raw: list[str], find_compiler: Callable[[Settings], str],
                      table: Table | None) -> int:
        """:meth:`run`, ended by a termination signal with 128 + its number once the
        compiler is stopped and the temporary files are gone."""
        with self.children.active():
            try:
                return self.run(raw, find_compiler, table)
            except Interrupted as stop:
                return 128 + stop.signum

    def run(self, raw: list[str], find_compiler: Callable[[Settings], str],
            table: Table | None) -> int:
        problem = None
        try:
            options, args = split_wrapper_options(raw)
        except ConfigProblem as error:
            problem, options, args = str(error), {}, without_wrapper_options(raw)
        if options.get("help"):
            sys.stdout.write(WRAPPER_HELP)
            return 0
        try:
            self.settings = load_settings(options, self.environ, Path.cwd())
        except ConfigProblem as error:
            problem = problem or str(error)
            self.settings = Settings(real_nvcc=self.environ.get("S2S_REAL_NVCC"))
        self.printer.silenced = ("*-explain", *self.settings.silence)
        try:
            self.compiler = find_compiler(self.settings)
        except CompilerNotFound as error:
            self.printer.emit(Diagnostic.error(f"{self.name}: {error}", "wrapper-no-compiler"))
            return 2
        if guarded(self.environ):
            self._say("nested under another s2s wrapper: passing the command on")
            return self._pass_on(args)
        if problem:
            return self._fall_back(args, problem)
        for warning in self.settings.warnings:
            self._warn(warning, "wrapper-config")
        if not self.settings.passes:
            return self._pass_on(args)
        if table is None:
            return self._fall_back(args, f"'{os.path.basename(self.compiler)}' is not a "
                                   "compiler s2s knows the options of")
        return self._rewrite_and_compile(args, classify(args, table), table)

    # ---- the steps ----------------------------------------------------------------------

    def _rewrite_and_compile(self, args: list[str], command: Classified, table: Table) -> int:
        if command.info_only:
            return self._pass_on(args)
        if not command.sources:
            return self._link_objects(args, command, table)
        problem = _unsupported(command)
        if problem:
            return self._fall_back(args, problem)
        passes, flags = self._available_passes(for_nvcc=table is NVCC)
        if not passes:
            return self._pass_on(args)
        try:
            work = [(source, parse_options(command, source, table is NVCC), passes)
                    for source in command.sources]
            rewrites = list(parallel.ordered_map(_rewrite_one, work, wrapper_jobs()))
        except RewriteFailed as error:
            return self._fall_back(args, f"s2s could not process {error.path}: "
                                   f"{error.diagnostic.headline()}")
        except S2SError as error:
            return self._fall_back(args, error.diagnostic.headline())
        except Exception as error:  # a bug of s2s must never break the user's build
            return self._fall_back(args, f"internal error in s2s ({type(error).__name__}: "
                                   f"{error})")
        for rewrite in rewrites:
            for diagnostic in rewrite.diagnostics:
                self.printer.emit(diagnostic)
        changed = [r for r in rewrites if r.changed]
        self._say(f"passes {', '.join(n for n, _ in passes)} (from {self.settings.passes_from})"
                  f": {len(changed)} of {len(rewrites)} sources changed")
        if not changed:
            return self._pass_on(args)
        directories = {os.path.dirname(r.source.path) or "." for r in changed}
        if len(directories) > 1:
            return self._fall_back(args, "rewritten sources from several directories in one "
                                   "command (their quoted includes could resolve differently)")
        unquotable = [r.source.path for r in changed
                      if table is NVCC and not shell_safe.quotable(os.path.basename(r.source.path))]
        if unquotable:
            return self._fall_back(args, f"nvcc would hand the name of {unquotable[0]!r} to a "
                                   "shell, which changes it ($, `, \", \\ or a newline)")
        return self._compile_copies(args, command, changed, directories.pop(), table, flags)

    def _link_objects(self, args: list[str], command: Classified, table: Table) -> int:
        """A link of object files only (``nvcc -o prog a.o b.o``): objects of files the mgpu
        pass rewrote call the s2s runtime's C library, so the link gets its flags (linking it
        into a program that does not call it is harmless); any other command runs as is."""
        if command.phase is not Phase.LINK or "mgpu" not in self.settings.passes:
            return self._pass_on(args)
        passes, flags = self._available_passes(for_nvcc=table is NVCC)
        if "mgpu" not in (name for name, _ in passes):
            return self._pass_on(args)
        self._say("linking object files with the s2s runtime's library (pass mgpu)")
        return self._execute([*args, *flags.link], capture=False).returncode

    def _available_passes(self, for_nvcc: bool) -> tuple[list[tuple[str, Pass]], RuntimeFlags]:
        """The selected passes that exist here, in the canonical order; warns about the rest."""
        selected = self.settings.passes
        unknown = [n for n in selected if n not in self.known_passes and registry.get(n) is None]
        order = list(self.known_passes) + [n for n in selected if n not in self.known_passes]
        missing, passes = [], []
        for name in order:
            if name in selected and name not in unknown:
                run_pass = registry.deferred(name)      # (imported when a rewrite runs)
                (passes if run_pass is not None else missing).append((name, run_pass))
        flags = RuntimeFlags()
        try:
            flags = runtime_flags([n for n, _ in passes], for_nvcc)
        except RuntimeUnavailable as error:
            passes = [(n, p) for n, p in passes if n != "mgpu"]
            missing.append(("mgpu", None))
            self._say(str(error))
        messages = []
        if unknown:
            messages.append("unknown pass " + ", ".join(f"'{n}'" for n in unknown)
                            + f" (known: {', '.join(self.known_passes)})")
        if missing:
            messages.append("pass " + ", ".join(
                f"'{n}' (issue {self.known_passes.get(n, '?')})" for n, _ in missing)
                + " not available in this s2s yet")
        if messages:
            self._warn(f"{self.name}: " + "; ".join(messages) + "; compiling without "
                       + ("it" if len(unknown) + len(missing) == 1 else "them"),
                       "wrapper-pass-unavailable")
        return passes, flags

    def _compile_copies(self, args: list[str], command: Classified, changed: list[Rewrite],
                        directory: str, table: Table, flags: RuntimeFlags) -> int:
        with self._workspace(table) as temp:
            if temp is None:
                return self._fall_back(args, "no temporary directory whose path nvcc's shell "
                                       "would leave alone (TMPDIR, /tmp)")
            quote, replacements = _quote_flags(directory, table, temp)
            new_args = _place_copies(args, changed, temp, replacements)
            link = list(flags.link) if command.phase is Phase.LINK else []
            cmd = [*quote, *flags.compile, *new_args, *link]
            self._say("running " + " ".join([self.compiler, *cmd]))
            scratch = os.path.join(temp, "tmp")
            result = self._execute(cmd, capture=True, tmpdir=scratch)
            if result.returncode != 0:
                return self._after_failed_copies(args, result, replacements, scratch)
            problem = _fix_outputs(command, replacements, result)
            if problem:
                self._warn(f"{self.name}: {problem}", "wrapper-deps")
            _write(outputs.substitute(result.stdout, replacements),
                   outputs.substitute(result.stderr, replacements))
            return 0

    @contextlib.contextmanager
    def _workspace(self, table: Table) -> Iterator[str | None]:
        """A temporary directory for the copies, with ``tmp/`` in it for the compiler's own
        temporary files (its TMPDIR), so that a stopped compile leaves nothing behind;
        removed after the block (unless --s2s-keep-temps). None when there is no place whose
        path nvcc's shell would leave alone."""
        root = shell_safe.temp_root()
        if root is None and table is NVCC:
            yield None
            return
        temp = None
        try:
            with self.children.holding():  # a signal now would lose the directory's name
                temp = tempfile.mkdtemp(prefix="s2s-wrap-", dir=root)
            os.mkdir(os.path.join(temp, "tmp"))
            yield temp
        finally:
            if temp is not None and self.settings.keep_temps:
                self._say(f"kept the rewritten sources in {temp}", always=True)
            elif temp is not None:
                shutil.rmtree(temp, ignore_errors=True)  # links in it go, not their targets

    def _after_failed_copies(self, args: list[str], failed: subprocess.CompletedProcess,
                             replacements: dict[bytes, bytes], tmpdir: str) -> int:
        """The rewritten sources did not compile: compile the originals, which decides whose
        fault it was. Their output is what the user sees, as without the wrapper."""
        original = self._execute(args, capture=True, tmpdir=tmpdir)
        if original.returncode == 0:
            stderr = outputs.substitute(failed.stderr, replacements).decode(errors="replace")
            first = next((line.strip() for line in stderr.splitlines() if "error" in line),
                         f"exit status {failed.returncode}")
            self._warn(f"{self.name}: the rewritten sources did not compile ({first}); "
                       "compiled the original sources instead", "wrapper-rewrite-failed")
        _write(original.stdout, original.stderr)
        return original.returncode

    # ---- running the compiler and talking ------------------------------------------------

    def _pass_on(self, args: list[str]) -> int:
        return self._execute(args, capture=False).returncode

    def _fall_back(self, args: list[str], reason: str) -> int:
        """Compile the command as given; say why only if that works (when it fails, the
        compiler's own errors are the news, and a parse failure of s2s usually repeats them)."""
        result = self._execute(args, capture=True)
        if result.returncode == 0:
            self._warn(f"{self.name}: {reason}; compiled the original sources unchanged",
                       "wrapper-fallback")
        _write(result.stdout, result.stderr)
        return result.returncode

    def _execute(self, args: list[str], capture: bool,
                 tmpdir: str | None = None) -> subprocess.CompletedProcess:
        env = child_environ(self.environ, self.compiler)
        if tmpdir is not None:
            env["TMPDIR"] = tmpdir
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            result = self.children.run([self.compiler, *args], env, capture)
        except OSError as error:
            self.printer.emit(Diagnostic.error(f"{self.name}: cannot run {self.compiler}: "
                                               f"{error}", "wrapper-no-compiler"))
            return subprocess.CompletedProcess(args, 2, b"", b"")
        if result.returncode < 0:  # killed by a signal: report it as a shell would
            result.returncode = 128 - result.returncode
        return result

    def _warn(self, message: str, id: str) -> None:
        self.printer.emit(Diagnostic.warning(message, id))

    def _say(self, message: str, always: bool = False) -> None:
        if self.settings.verbose or always:
            sys.stderr.write(f"{self.name}: {message}\n")
            sys.stderr.flush()


def _unsupported(command: Classified) -> str | None:
    """Why the wrapper cannot rewrite this command (None: it can)."""
    if command.unsupported:
        return command.unsupported[0]
    if not command.rewritable:
        return f"sources given to the {command.phase.value} phase"
    if command.has(*_DEPS_WITH_COMPILE) and not command.has(*_DEPS_FILE) \
            and command.has("--output-directory", "-odir"):
        return "dependency file placed by --output-directory (give -MF)"
    return None


def _quote_flags(directory: str, table: Table,
                 temp: str) -> tuple[list[str], dict[bytes, bytes]]:
    """Put the original directory first on the search path of quoted includes (#include
    "x.h" looks next to the including file first, and the copy is elsewhere); and what to
    write instead of the stand-in link where the compiler names it.

    nvcc gives -Xcompiler values to its shell bare and splits them at commas (its host
    compiler preprocesses both sides), so a directory that is not plain becomes a link."""
    if table is not NVCC:
        return ["-iquote", directory], {}
    alias = shell_safe.alias(directory, temp, "include")
    replacements = {os.fsencode(alias): os.fsencode(directory)} if alias != directory else {}
    return ["-Xcompiler", f"-iquote,{alias}"], replacements


def _place_copies(args: list[str], changed: list[Rewrite], temp: str,
                  replacements: dict[bytes, bytes]) -> list[str]:
    """Write each rewritten source to ``temp/N/<its name>`` (with #line directives naming the
    original) and the files the passes generate for it beside the copy (mgpu's kernel table:
    its quoted include finds it there; the user's tree is not written); returns the arguments
    naming the copies and records each copy's real name. A file the passes create is named by
    its source in dependency files and messages: it is made from the source, and does not exist
    in the tree; a file of the user's they rewrote (a ``.cu`` file included as text) keeps its
    own name and line numbers (#line directives, as the source's copy)."""
    new_args = list(args)
    for number, rewrite in enumerate(changed):
        copy = Path(temp, str(number), os.path.basename(rewrite.source.path))
        copy.parent.mkdir()
        copy.write_bytes(add_line_directives(rewrite.before, rewrite.after, rewrite.source.path))
        new_args[rewrite.source.index] = str(copy)
        replacements[os.fsencode(copy)] = os.fsencode(rewrite.source.path)
        for path, text in rewrite.generated:
            placed = beside_name(path, rewrite.source.path)
            generated = copy.parent / placed
            generated.parent.mkdir(parents=True, exist_ok=True)
            own = _users_file(path)
            if own is None:
                generated.write_bytes(text)
                replacements[os.fsencode(generated)] = os.fsencode(rewrite.source.path)
                continue
            # a file of the user's the passes rewrote (a .cu file the source includes as
            # text): nvcc's messages about it name it, at its own lines
            name = os.path.join(os.path.dirname(rewrite.source.path), placed)
            generated.write_bytes(add_line_directives(own, text, name))
            replacements[os.fsencode(generated)] = os.fsencode(name)
    return new_args


def _users_file(path: str) -> bytes | None:
    """The bytes of ``path`` when a file the passes generated is one of the user's rewritten
    (it exists), None for a file they create (mgpu's kernel table)."""
    try:
        return read_regular(path, MAX_OUTPUT_BYTES)
    except OSError:
        return None


#: the largest dependency file or preprocessed output the wrapper reads back to adjust
MAX_OUTPUT_BYTES = 256 * 1024 * 1024


def _fix_outputs(command: Classified, replacements: dict[bytes, bytes],
                 result: subprocess.CompletedProcess) -> str | None:
    """Name the user's sources in dependency files and preprocessed output; returns a problem
    to report when a dependency file is not where it should be."""
    for path in _dependency_files(command):
        if path == _STDOUT:
            result.stdout = outputs.fix_dependencies(result.stdout, replacements)
            continue
        if _is_special(path):
            continue                       # -MF /dev/null: nothing kept, nothing to adjust
        try:
            data = read_regular(path, MAX_OUTPUT_BYTES)
        except OSError:
            return f"no dependency file at {path} to adjust"
        try:
            write_output(path, outputs.fix_dependencies(data, replacements))
        except InputError as error:
            return error.diagnostic.message
    if command.phase is Phase.PREPROCESS and command.output and not _is_special(command.output):
        try:
            text = read_regular(command.output, MAX_OUTPUT_BYTES)
        except OSError:
            return None                    # the compiler wrote none: its own message says why
        try:
            write_output(command.output, outputs.substitute(text, replacements))
        except InputError as error:
            return error.diagnostic.message
    return None


def _is_special(path: str) -> bool:
    """A device, FIFO or socket the user named as an output: the compiler wrote into it and
    s2s neither reads it back nor replaces it (the one writer refuses such files)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _dependency_files(command: Classified) -> list[str]:
    """Where the compiler wrote dependency rules (gcc and nvcc agree on the rules)."""
    explicit = command.value_of(*_DEPS_FILE)
    if command.phase is Phase.DEPS:
        return [explicit or command.output or _STDOUT]
    if not command.has(*_DEPS_WITH_COMPILE):
        return []
    if explicit:
        return [explicit]
    if command.output:
        return [os.path.splitext(command.output)[0] + ".d"]
    return [os.path.splitext(os.path.basename(s.path))[0] + ".d" for s in command.sources]


def _write(stdout: bytes, stderr: bytes) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(stdout)
    sys.stdout.buffer.flush()
    sys.stderr.flush()
    sys.stderr.buffer.write(stderr)
    sys.stderr.buffer.flush()


def wrapper_jobs() -> int:
    """``S2S_JOBS``: the sources of one compile command (``nvcc a.cu b.cu -o app``) rewritten
    on that many worker processes (:mod:`s2s.parallel`; 0: one per core); 1 by default, as
    ``make -j`` runs compiles at once already. A value that is no number is 1: a setting
    never breaks the user's build."""
    try:
        return parallel.jobs_from(os.environ.get("S2S_JOBS", "1"))
    except UsageError:
        return 1


def _rewrite_one(work: tuple) -> Rewrite:
    return rewrite_source(*work)
