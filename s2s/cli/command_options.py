"""The options of ``s2s report`` and ``s2s verify``, apart from their runners: the command
line's parser is built on every run (``s2s --help`` included), the runners' imports (the
passes, the verify backends, rich tables) only when the command runs (issue 30, item 4)."""

from __future__ import annotations


def add_report_options(parser) -> None:
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="where to write the page (e.g. report.html)")
    parser.add_argument("--passes", default=None, metavar="LIST",
                        help="passes to show (default: omp for OpenMP files, "
                        "transfers,fuse,mgpu for CUDA files)")
    parser.add_argument("--devices", type=int, default=2, metavar="N",
                        help="devices of the mgpu grid-partition pictures (default 2)")
    parser.add_argument("--title", default="s2s review", help="the page's title")
    parser.add_argument("--run", action="store_true",
                        help="OpenMP programs: also build and run the original and the rewrite "
                        "on clang-16's host device (as s2s verify) and show the measured "
                        "copies; the flags after -- are used for both builds")
    parser.add_argument("--args", default=None, metavar="ARGS",
                        help="the program's arguments for --run, shell-quoted (implies --run)")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="S",
                        help="seconds per run with --run (default 120)")

def add_verify_options(parser) -> None:
    parser.add_argument("--args", default="", metavar="ARGS",
                        help="arguments for both programs, one shell-quoted string")
    parser.add_argument("--ignore-lines", action="append", default=[], metavar="REGEX",
                        help="leave output lines that REGEX matches (Python re.search) out of "
                        "the comparison, e.g. timings; repeatable")
    parser.add_argument("--tolerance", type=float, default=0.0, metavar="REL",
                        help="relative tolerance for numbers in the outputs (default 0: equal)")
    parser.add_argument("--passes", default=None, metavar="LIST",
                        help="passes that make the rewritten program (default: omp for OpenMP "
                        "programs, fuse,transfers,mgpu for CUDA programs)")
    parser.add_argument("--devices", type=int, default=None, metavar="N",
                        help="cpu devices a CUDA program rewritten by mgpu runs on (default 2)")
    parser.add_argument("--ranks", type=int, default=1, metavar="N",
                        help="run a CUDA program rewritten by mgpu as an MPI job of N processes "
                        "(mpirun on this machine), each with --devices cpu devices (default 1: no MPI)")
    parser.add_argument("--each", action="store_true",
                        help="each FILE is a program of its own (default: FILEs form one)")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                        help="time limit of each run (default 120)")
    parser.add_argument("--explain", action="store_true",
                        help="also show the passes' explanations of each change")
