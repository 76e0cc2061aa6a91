"""Command line: ``s2s inspect|omp|transfers|fuse|mgpu|report|nvcc|verify``.

Exit codes (all subcommands): 0 success or nothing to do, 1 a file failed or ``--check`` found
changes, 2 usage or internal error. Messages go to stderr through the one diagnostics printer;
results (tables, JSON, diffs) go to stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from s2s import __version__, deep_stack
from s2s.cli.command_options import add_report_options, add_verify_options
from s2s.cli.common import (
    Console,
    add_file_options,
    joined_values,
    language_flag,
    make_run_options,
    split_at_dashdash,
)
from s2s.cli.completion import SHELLS, completion_script
from s2s.cli.inputs import STDIN, expand_inputs
from s2s.cli.settings import apply_config, config_start, load_config
from s2s.cli.signals import Terminated, terminate_on_signals
from s2s.diagnostics import DiagnosticPrinter, S2SError, UsageError, silenced_from_env
from s2s.frontend.core.allowed_flags import allowed_flags, dropped_note
from s2s.output import PENDING
from s2s.transform import registry
from s2s.wrapper.compilers import is_compiler_command, table_for
from s2s.wrapper.nvcc_args import NVCC

# The passes, the subcommands' runners and the compiler launcher are imported where they are
# used (issue 30, item 4): ``s2s --help`` and ``s2s omp`` on a file with nothing to do need
# neither isl nor llvmlite nor the other passes (testsuite/test_lean_start.py).

#: Rewriting passes and the issue that brings each; the frame exists before the pass does.
REWRITE_PASSES = {
    "omp": ("insert optimal OpenMP target data / map / update directives", "#3"),
    "transfers": ("fuse cudaMemcpy and cudaMalloc calls of CUDA host code", "#7"),
    "fuse": ("fuse CUDA kernels of launch sequences", "#8"),
    "mgpu": ("partition CUDA programs over several GPUs", "#6"),
}


COMMANDS = ("inspect", *REWRITE_PASSES, "report", "nvcc", "verify", "completion")

LAUNCHER_HELP = """\
compiler launcher:
  s2s COMPILER ARGS...  run COMPILER (gcc, clang-16, nvcc, ... or a path) on rewritten copies
                        of the sources, as CMake's <LANG>_COMPILER_LAUNCHER or make CC="s2s gcc"
                        does; the passes come from --s2s-passes=LIST, S2S_PASSES or 'passes'
                        in .s2s.toml / [tool.s2s] (none by default: the command runs as is).
                        'COMPILER --s2s-help' and 's2s nvcc --s2s-help' say more.

Flags after '--' are passed to the parser (e.g. -- -DN=64 -Iinclude). Settings of every
command can also come from .s2s.toml or [tool.s2s] in pyproject.toml (the nearest one
above the input files): silence, flags, format, passes, cuda-path, gpu-arch, nvcc-check."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="s2s",
        usage="s2s [-h] [--version] COMMAND ...\n       s2s [--s2s-OPTION ...] COMPILER ARGS...",
        description="Source-to-source optimizer for CUDA and OpenMP offload programs.",
        epilog=LAUNCHER_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"s2s {__version__}")
    # prog: each subcommand's usage line reads "s2s omp ...", not the top usage's two lines
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", prog="s2s")
    commands.required = True

    inspect = commands.add_parser("inspect", help="show kernels, launches, API calls, allocations "
                                  "and OpenMP directives found in files")
    add_file_options(inspect)
    inspect.add_argument("--only", action="append", default=[],
                         choices=["kernels", "launches", "api", "allocations", "directives",
                                  "functions"], help="show only these tables (repeatable)")
    inspect.add_argument("--access", action="store_true",
                         help="also show each kernel's access maps, must/may, partitionability")

    for name, (summary, _issue) in REWRITE_PASSES.items():
        sub = commands.add_parser(name, help=summary)
        add_file_options(sub, ("text", "json", "sarif"))
        mode = sub.add_mutually_exclusive_group()
        sub.add_argument("--diff", action="store_true",
                         help="print a unified diff (default for files; with --check as well)")
        mode.add_argument("--in-place", action="store_true", help="rewrite the files in place")
        sub.add_argument("--check", action="store_true",
                         help="exit 1 if any file would change; print only which (and the diff "
                         "with --diff)")
        mode.add_argument("-o", "--output-dir", metavar="DIR",
                          help="write rewritten files under DIR instead")
        sub.add_argument("--stdin-filename", metavar="NAME",
                         help="with the input '-': the name of the text read from stdin (its "
                         "language, its includes, the names in the diff); the rewritten text "
                         "goes to stdout, or the diff with --diff")
        sub.add_argument("--backup", metavar="SUFFIX",
                         help="with --in-place, keep the original as FILE+SUFFIX")
        sub.add_argument("--strict", action="store_true",
                         help="exit 1 when any construct is left as it was (counted in the "
                         "summary as 'left ...')")
        sub.add_argument("--force", action="store_true",
                         help="with --in-place, also rewrite read-only files and files with "
                         "several hard links (this name only)")
        sub.add_argument("--explain", action="store_true",
                         help="explain every directive inserted or removed, with the access "
                         "that needs it")
        sub.add_argument("--no-nvcc-check", dest="nvcc_check", action="store_false", default=None,
                         help="check a CUDA rewrite with the libclang parse only, not with "
                         "'nvcc -c' (also 'nvcc-check = false' in .s2s.toml, S2S_NVCC_CHECK=0)")

    report = commands.add_parser("report", help="write one HTML page to review what the "
                                 "passes would change, with pictures")
    add_file_options(report, ("text",))
    add_report_options(report)

    nvcc = commands.add_parser("nvcc", help="drop-in nvcc wrapper running s2s passes first",
                               prefix_chars="\0")
    nvcc.add_argument("nvcc_args", nargs=argparse.REMAINDER)
    verify = commands.add_parser("verify", help="build and run original and rewritten "
                                 "programs and compare their outputs")
    add_file_options(verify)
    add_verify_options(verify)
    completion = commands.add_parser("completion", help="print a shell completion script "
                                     "(bash: source <(s2s completion bash))")
    completion.add_argument("shell", choices=SHELLS)
    parser.commands = commands.choices      # the subcommands' parsers, by name
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and table_for(os.path.basename(sys.argv[0])) is NVCC:
        argv = ["nvcc", *sys.argv[1:]]  # installed as a symlink named nvcc (as ccache is)
    argv = list(sys.argv[1:] if argv is None else argv)
    PENDING.reopen()
    try:
        return _run(argv)
    except KeyboardInterrupt:
        PENDING.discard()
        print("s2s: interrupted", file=sys.stderr)
        return 130
    except Terminated as stop:
        PENDING.discard()
        print(f"s2s: stopped by signal {stop.signum}", file=sys.stderr)
        return 128 + stop.signum
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _run(argv: list[str]) -> int:
    pass_issues = {name: REWRITE_PASSES[name][1] for name in registry.PIPELINE_ORDER
                   if name in REWRITE_PASSES}
    pass_issues.update((n, issue) for n, (_summary, issue) in REWRITE_PASSES.items()
                       if n not in pass_issues)
    if argv[:1] == ["nvcc"]:
        from s2s.wrapper.launcher import run_nvcc

        return run_nvcc(argv[1:], pass_issues)
    # CMAKE_<LANG>_COMPILER_LAUNCHER=s2s (or "s2s;--s2s-passes=omp"): s2s [--s2s-*] COMPILER
    lead = 0
    while lead < len(argv) and argv[lead].startswith("--s2s-"):
        lead += 1
    if lead < len(argv) and argv[lead] not in COMMANDS \
            and (is_compiler_command(argv[lead], os.environ) or table_for(argv[lead])):
        # a compiler's name that is not installed gets the launcher's wrapper-no-compiler
        from s2s.wrapper.launcher import run_launcher

        return run_launcher([argv[lead], *argv[:lead], *argv[lead + 1:]], pass_issues)
    files_part, extra_flags = split_at_dashdash(argv)
    if files_part[:1] == ["verify"]:
        files_part = joined_values(files_part, ("--args",))
    parser = build_parser()
    args, unknown = parser.parse_known_args(files_part)
    if unknown:                   # said by the subcommand's parser, with its own usage line
        parser.commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "completion":
        sys.stdout.write(completion_script(parser, args.shell))
        return 0
    with terminate_on_signals():
        # Deeply nested input must not overflow the main thread's 8 MiB stack (s2s.deep_stack).
        return deep_stack.call(_run_command, args, extra_flags)


def _run_command(args: argparse.Namespace, extra_flags: tuple[str, ...]) -> int:
    console = Console(quiet=getattr(args, "quiet", False), verbose=getattr(args, "verbose", 0),
                      color=getattr(args, "color", "auto"))
    try:
        args.files = _inputs(args)
        config = load_config(args.command, config_start(
            [args.stdin_filename if f == STDIN and getattr(args, "stdin_filename", None) else f
             for f in args.files if f != STDIN or getattr(args, "stdin_filename", None)]))
    except UsageError as error:
        DiagnosticPrinter().emit(error.diagnostic)
        return 2
    formats = ("text", "json", "sarif") if args.command in REWRITE_PASSES else \
        () if args.command == "report" else ("text", "json")
    try:
        extra_flags = apply_config(args, config, extra_flags, formats)
    except UsageError as error:
        DiagnosticPrinter().emit(error.diagnostic)
        return 2
    language, extra_flags = language_flag(extra_flags)
    if language is not None and getattr(args, "language", None) is None:
        args.language = language
    silenced = tuple(getattr(args, "silence", []) or ())
    if not getattr(args, "explain", True) or args.command == "report":  # the page has them
        silenced += ("*-explain",)
    printer = DiagnosticPrinter(silenced=silenced + silenced_from_env(),
                                color=console.err_color)
    for warning in config.warnings:
        printer.emit(warning)
    extra_flags, dropped = allowed_flags(extra_flags)
    if dropped:
        printer.emit(dropped_note(dropped, "the command line and the configuration file"))
    if console.verbose and config.path:
        console.status(f"s2s {args.command}: settings from {config.path}")
    try:
        return _dispatch(args, extra_flags, printer, console)
    finally:
        printer.stream.write(printer.repeat_notes())


def _dispatch(args: argparse.Namespace, extra_flags: tuple[str, ...], printer: DiagnosticPrinter,
              console: Console) -> int:
    try:
        if args.command == "inspect":
            from s2s.cli.inspect_cmd import run_inspect

            return run_inspect(args, make_run_options(args, extra_flags, printer), printer, console)
        if args.command in REWRITE_PASSES:
            run_pass = registry.get(args.command)
            if run_pass is None:
                return _not_available(args.command, REWRITE_PASSES[args.command][1])
            from s2s.cli.rewrite_cmd import run_rewrite

            return run_rewrite(args, make_run_options(args, extra_flags, printer), printer,
                               console, run_pass)
        if args.command == "report":
            from s2s.cli.report_cmd import run_report

            return run_report(args, make_run_options(args, extra_flags, printer), printer,
                              console, extra_flags)
        if args.command == "verify":
            from s2s.cli.verify_cmd import run_verify

            return run_verify(args, make_run_options(args, extra_flags, printer), extra_flags,
                              printer, console)
    except UsageError as error:
        printer.emit(error.diagnostic)
        return 2
    except S2SError as error:
        printer.emit(error.diagnostic)
        return error.exit_code
    raise AssertionError(f"unhandled command {args.command}")


def _inputs(args: argparse.Namespace) -> list[str]:
    """The files of the run: directories searched, ``-`` checked against its options."""
    files = list(getattr(args, "files", []))
    stdin_name = getattr(args, "stdin_filename", None)
    if STDIN in files:
        if args.command not in REWRITE_PASSES:
            raise UsageError(f"s2s {args.command} does not read stdin ('-'); name the files")
        if files != [STDIN]:
            raise UsageError("'-' (stdin) is the only input of its run; name no other file")
        if not stdin_name:
            raise UsageError("'-' reads stdin: give --stdin-filename NAME (its language and "
                             "includes come from the name)")
        if args.in_place or args.output_dir:
            raise UsageError("--in-place and -o write files: with '-' (stdin) the rewrite goes "
                             "to stdout")
        return files
    if stdin_name:
        raise UsageError("--stdin-filename only makes sense with the input '-'")
    return expand_inputs(files, tuple(getattr(args, "exclude", ())),
                         getattr(args, "gitignore", True))


def _not_available(command: str, issue: str) -> int:
    print(f"s2s {command}: this pass is not available in s2s {__version__} yet (tracked in issue "
          f"{issue}); nothing was changed", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
