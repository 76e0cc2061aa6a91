"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from s2s import parallel
from s2s.diagnostics import DiagnosticPrinter, UsageError
from s2s.frontend.core.parse import DEFAULT_GPU_ARCH, ParseOptions
from s2s.frontend.core.toolchain import default_toolchain

if TYPE_CHECKING:   # the driver (and the front end it loads) comes with the first file
    from s2s.driver import FileResult, RunOptions


def add_file_options(parser: argparse.ArgumentParser,
                     formats: tuple[str, ...] = ("text", "json")) -> None:
    """Options of every subcommand that reads source files."""
    parser.add_argument("files", nargs="*", metavar="PATH",
                        help="C, C++ or CUDA source files, or directories searched for them "
                        "(default with -p: every file of the compilation database)")
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                        help="leave out what a directory search finds whose path (below the "
                        "directory) or any part of it matches GLOB (repeatable); files named "
                        "on the command line are always taken")
    parser.add_argument("--no-gitignore", dest="gitignore", action="store_false",
                        help="also take files that .gitignore excludes from a directory search")
    parser.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                        help="colour diagnostics and diffs (auto: on a terminal, unless NO_COLOR "
                        "is set; FORCE_COLOR forces it)")
    parser.add_argument("-p", dest="build_dir", metavar="BUILD_DIR",
                        help="read compile flags from BUILD_DIR/compile_commands.json")
    parser.add_argument("--format", choices=list(formats), default=None,
                        help="output format (default: text, or 'format' of the configuration "
                        "file)")
    parser.add_argument("-q", "--quiet", action="store_true", help="only errors and results")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more detail (-vv: tracebacks of internal errors)")
    parser.add_argument("--silence", action="append", default=[], metavar="ID",
                        help="hide warnings whose id matches this pattern (repeatable; also "
                        "S2S_SILENCE=id1,id2)")
    parser.add_argument("--cuda-side", choices=["auto", "host", "device", "both"], default="auto",
                        help="which CUDA compilation side(s) to parse (auto: host, plus device "
                        "when the file uses __CUDA_ARCH__)")
    parser.add_argument("--cuda-path", metavar="DIR",
                        help="CUDA toolkit to parse against ('shim' for the bundled headers)")
    parser.add_argument("--gpu-arch", default=None, help="GPU architecture (default sm_90)")
    parser.add_argument("-x", dest="language", choices=["cuda", "c", "c++"],
                        help="treat every file as this language instead of by extension")
    parser.add_argument("-j", "--jobs", default="1", metavar="N",
                        help="parse and extract N files at once (worker processes; 0: one "
                        "per CPU core; default 1); the output is that of -j 1")
    parser.add_argument("--no-cache", dest="cache", action="store_false",
                        help="neither read nor write the fact cache ($XDG_CACHE_HOME/s2s/facts; "
                        "also S2S_NO_CACHE=1)")


def split_at_dashdash(argv: list[str]) -> tuple[list[str], tuple[str, ...]]:
    """Split ``s2s inspect a.cu -- -DN=4`` into the s2s part and the compiler flags."""
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], tuple(argv[at + 1 :])
    return argv, ()


def joined_values(argv: list[str], options: tuple[str, ...]) -> list[str]:
    """``OPTION VALUE`` written as ``OPTION=VALUE`` for the options whose value is free text:
    argparse would take a value starting with ``-`` (``--args "-x 32"``) for an option."""
    out, at = [], 0
    while at < len(argv):
        if argv[at] in options and at + 1 < len(argv):
            out.append(f"{argv[at]}={argv[at + 1]}")
            at += 2
        else:
            out.append(argv[at])
            at += 1
    return out


#: the language names of a compiler's ``-x`` (nvcc's ``cu``, clang's ``cuda``) -> s2s's
_LANGUAGES = {"cu": "cuda", "cuda": "cuda", "c": "c", "c++": "c++", "cpp": "c++"}


def language_flag(flags: tuple[str, ...]) -> tuple[str | None, tuple[str, ...]]:
    """The language a compiler's ``-x LANG`` among the flags after ``--`` names (nvcc's
    ``-x cu`` for a ``.cpp`` file of CUDA code) and the flags without it: s2s chooses the
    language of a parse itself, and says it with its own ``-x``."""
    out, language, at = [], None, 0
    while at < len(flags):
        flag = flags[at]
        value = flags[at + 1] if flag == "-x" and at + 1 < len(flags) else \
            flag[2:] if flag.startswith("-x") and flag != "-x" else None
        if value in _LANGUAGES:
            language = _LANGUAGES[value]
            at += 2 if flag == "-x" else 1
            continue
        out.append(flag)
        at += 1
    return language, tuple(out)


def database_files(build_dir: str) -> list[str]:
    """The source files of ``BUILD_DIR/compile_commands.json`` in its order, each once, as
    paths relative to the current directory when below it."""
    from s2s.frontend.core.flags import load_compile_commands

    files = []
    for entry in load_compile_commands(build_dir).entries:
        path = os.path.normpath(os.path.join(entry.directory, entry.file))
        relative = os.path.relpath(path)
        files.append(path if relative.startswith("..") else relative)
    return list(dict.fromkeys(files))


def make_run_options(args: argparse.Namespace, extra_flags: tuple[str, ...],
                     printer: DiagnosticPrinter) -> RunOptions:
    """ParseOptions from the command line, plus per-file flags from ``-p BUILD_DIR``."""
    from s2s.driver import RunOptions

    if not args.files:
        if not args.build_dir:
            raise UsageError("no input files (name them, or give -p BUILD_DIR to take every "
                             "file of its compile_commands.json)")
        args.files = database_files(args.build_dir)
    if args.cuda_path == "shim":
        toolchain = default_toolchain(None)
    elif args.cuda_path:
        toolchain = default_toolchain(args.cuda_path)
    else:
        toolchain = default_toolchain()
    parse = ParseOptions(language=args.language, cuda_side=args.cuda_side, user_flags=extra_flags,
                         toolchain=toolchain, gpu_arch=args.gpu_arch or DEFAULT_GPU_ARCH,
                         nvcc_check=bool(getattr(args, "nvcc_check", False)),
                         cache=getattr(args, "cache", True))
    flags_for = None
    if args.build_dir:
        flags_for = _database_lookup(args.build_dir, printer)
    return RunOptions(parse=parse, flags_for=flags_for,
                      jobs=parallel.jobs_from(getattr(args, "jobs", 1)))


def _database_lookup(build_dir: str, printer: DiagnosticPrinter):
    from s2s.diagnostics import Diagnostic
    from s2s.frontend.core.allowed_flags import allowed_flags, dropped_note
    from s2s.frontend.core.flags import filter_flags, load_compile_commands

    database = load_compile_commands(build_dir)
    warned: set[str] = set()

    def flags_for(path: str) -> tuple[str, ...]:
        entry = database.entry_for(path)
        if entry is None:
            printer.emit(Diagnostic.warning(f"{path} is not in {build_dir}/compile_commands.json; "
                                            "parsing with default flags", "not-in-database"))
            return ()
        flags, unknown = filter_flags(entry.arguments, entry.directory)
        for flag in unknown:
            if flag not in warned:
                warned.add(flag)
                printer.emit(Diagnostic.warning(f"ignoring unknown flag '{flag}' from "
                                                "compile_commands.json", "unknown-flag"))
        flags, dropped = allowed_flags(flags)
        fresh = [flag for flag in dropped if flag not in warned]
        if fresh:
            warned.update(fresh)
            printer.emit(dropped_note(fresh, f"{build_dir}/compile_commands.json"))
        return flags

    return flags_for


#: the width of piped output when COLUMNS does not say (as most tools assume)
PIPED_WIDTH = 80


def use_color(choice: str, stream) -> bool:
    """Whether to colour ``stream``: ``--color always|never``; ``auto`` colours a terminal
    unless ``NO_COLOR`` is set (https://no-color.org), and ``FORCE_COLOR`` colours a pipe."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _isatty(stream)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def table_width(stream) -> int | None:
    """The width tables are laid out in: COLUMNS when set, the terminal's on a terminal
    (None: rich asks it), else 80."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return None if stream.isatty() else PIPED_WIDTH
    except (AttributeError, ValueError):
        return PIPED_WIDTH


class Console:
    """stdout/stderr consoles (rich) and a progress display for multi-file runs."""

    def __init__(self, quiet: bool = False, verbose: int = 0, color: str = "auto"):
        self.quiet = quiet
        self.verbose = verbose
        self._started = time.perf_counter()
        self.out_color = use_color(color, sys.stdout)
        self.err_color = use_color(color, sys.stderr)
        # (the streams of now; rich's consoles are built on first use: a run that prints
        # no table and no bar starts without importing rich)
        self._stdout, self._stderr = sys.stdout, sys.stderr
        self._out_width = table_width(sys.stdout)
        self._err_terminal = _isatty(sys.stderr)

    @functools.cached_property
    def out(self):
        """stdout's rich console. Tables fit the terminal, or COLUMNS, or 80 columns when
        piped: long cells fold inside their column instead of making rows hundreds of
        columns wide."""
        from rich.console import Console as RichConsole

        return RichConsole(file=self._stdout, highlight=False, soft_wrap=False,
                           width=self._out_width,
                           force_terminal=True if self.out_color else None,
                           color_system="standard" if self.out_color else None)

    @functools.cached_property
    def err(self):
        """stderr's rich console: the progress display is for a person at a terminal,
        whatever FORCE_COLOR says."""
        from rich.console import Console as RichConsole

        return RichConsole(file=self._stderr, highlight=False,
                           force_terminal=self._err_terminal,
                           color_system="standard" if self.err_color else None)

    def status(self, text: str) -> None:
        """A plain line on stderr (no wrapping or markup: tools and people both read it)."""
        sys.stderr.write(text + "\n")

    def step(self, command: str, text: str) -> None:
        """A progress line on stderr for a long step (a build, a run, a pass over a large
        file): on a terminal or with -v, never with -q, never on stdout."""
        if self.quiet or not (self.verbose or self._err_terminal):
            return
        elapsed = time.perf_counter() - self._started
        sys.stderr.write(f"s2s {command}: [{elapsed:5.1f} s] {text}...\n")
        sys.stderr.flush()

    @contextlib.contextmanager
    def progress(self, total: int) -> Iterator[callable]:
        """Yield ``advance(path)``; shows a transient bar on a terminal with several files."""
        if total < 2 or self.quiet or not self._err_terminal:
            yield lambda path: None
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
        with Progress(*columns, console=self.err, transient=True) as bar:
            task = bar.add_task("parsing", total=total)
            yield lambda path: bar.update(task, advance=1, description=path)


def report_results(results: Iterable[FileResult], printer: DiagnosticPrinter, console: Console
                   ) -> None:
    """Print every result's diagnostics (warnings hidden by -q; near-duplicates of one file
    collapsed) and tracebacks with -vv."""
    for result in results:
        printer.emit_all(d for d in result.diagnostics if d.is_error or not console.quiet)
        if getattr(result, "traceback", None) and console.verbose >= 2:
            console.status(result.traceback.rstrip())


def check_files_exist(paths: list[str]) -> None:
    """Usage errors come before any work: an option mistaken for a file, for instance."""
    for path in paths:
        if path.startswith("-"):
            raise UsageError(f"unknown option '{path}'")


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 file``, ``2 files``; ``words`` for an irregular plural (``launches``)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def verbose_line(result: FileResult, console: Console, what: str = "",
                 stages: tuple[tuple[str, float], ...] = ()) -> None:
    """``-v``: what the pass planned in this file (its groups, edits and counts) and the time
    of each stage; ``what`` adds the command's own facts (the inspect tables' sizes),
    ``stages`` its own stages after the driver's (the report's summary and pictures)."""
    from s2s.driver import Success
    from s2s.output import quote_path

    if not isinstance(result, Success):
        console.status(f"{quote_path(result.path)}: {result.status}")
        return
    times = ", ".join(f"{stage} {seconds:.3f} s" for stage, seconds in result.timings + stages)
    parts = [what] if what else []
    if result.change is not None:
        edits = result.change.edits
        # (a group's edits of a file generated beside this one, mgpu's kernel table, are
        # applied with it: not a dropped group)
        applied = set(edits).union(*(c.edits for c in result.generated))
        planned = "; ".join(f"{g.label}: {plural(len(g.edits), 'edit')}"
                            + ("" if set(g.edits) <= applied or not edits else " (dropped)")
                            for g in result.groups)
        parts.append(f"{plural(len(edits), 'edit')} applied" + (f" ({planned})" if planned
                                                               else ""))
    parts += [f"{n} {w}" for w, n in result.counts]
    console.status(f"{quote_path(result.path)}: {', '.join(parts)}"
                   + (f"; {times}" if times else ""))
