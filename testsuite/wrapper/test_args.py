"""The option tables: how command lines are read, and the nvcc table against nvcc --help."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from s2s.wrapper.args import Phase, Role, Value, classify
from s2s.wrapper.cc_args import CC
from s2s.wrapper.nvcc_args import NVCC
from s2s.wrapper.rewrite import parse_options, preprocessing_flags


def nvcc(*args: str):
    return classify(list(args), NVCC)


def cc(*args: str):
    return classify(list(args), CC)


@pytest.mark.parametrize("table", [NVCC, CC], ids=["nvcc", "cc"])
def test_every_spelling_has_one_row(table):
    names = [name for option in table.options for name in option.names]
    exact_only = [n for o in table.options for n in o.names if o.value is not Value.JOINED]
    assert len(exact_only) == len(set(exact_only)), "an option spelled twice with different rows"
    assert all(name.startswith("-") for name in names)


def test_compile_command_sources_output_and_values():
    command = nvcc("-c", "-arch=sm_80", "-o", "out/k.o", "-Iinc", "-I", "more", "src/k.cu",
                   "-DX=1", "--std", "c++17")
    assert [s.path for s in command.sources] == ["src/k.cu"]
    assert command.sources[0].index == 7 and command.sources[0].language == "cuda"
    assert command.phase is Phase.COMPILE and command.output == "out/k.o"
    assert command.values(Role.PREPROCESS) == ("inc", "more", "X=1", "c++17")
    assert command.rewritable and not command.unsupported


@pytest.mark.parametrize("spelling", [["-o", "x.o"], ["-o=x.o"], ["--output-file", "x.o"],
                                      ["--output-file=x.o"]])
def test_nvcc_value_spellings(spelling):
    command = nvcc("-c", *spelling, "k.cu")
    assert command.output == "x.o" and [s.path for s in command.sources] == ["k.cu"]


def test_a_value_is_never_taken_for_a_source():
    command = nvcc("-Xcompiler", "-fopenmp", "-include", "pre.cu", "-MF", "deps.cu", "-MD",
                   "-c", "a.cu")
    assert [s.path for s in command.sources] == ["a.cu"]


def test_x_cu_makes_every_source_cuda_and_objects_stay_inputs():
    command = nvcc("-x", "cu", "-c", "kernel.cpp", "main.o")
    assert [(s.path, s.language) for s in command.sources] == [("kernel.cpp", "cuda")]
    assert command.other_inputs == ("main.o",)


def test_link_of_objects_has_nothing_to_rewrite():
    command = nvcc("a.o", "b.o", "-o", "prog", "-lcublas")
    assert command.phase is Phase.LINK and not command.sources and not command.rewritable


@pytest.mark.parametrize("args, reason", [
    (["-c", "--no-such-flag", "k.cu"], "unknown nvcc option '--no-such-flag'"),
    (["-run", "k.cu"], "runs the program"),
    (["--options-file", "opts.txt", "-c", "k.cu"], "options read from a file"),
    (["-E", "-M", "k.cu"], "several output phases"),
    (["-c", "k.cu", "-o"], "value is missing"),
    (["-x", "fortran", "-c", "k.f"], "unknown input language"),
    (["-c", "@args.rsp"], "response file"),
])
def test_unsupported_commands_say_why(args, reason):
    command = nvcc(*args)
    assert command.unsupported and reason in command.unsupported[0]
    assert not command.rewritable


def test_forwarded_unknown_options_are_host_arguments():
    command = nvcc("-forward-unknown-to-host-compiler", "-Wall", "-fopenmp", "-DHOST=1", "-c",
                   "k.cu")
    assert not command.unsupported
    assert preprocessing_flags(command, True) == ["-D", "HOST=1"]


def test_info_options_compile_nothing():
    assert nvcc("--version").info_only and nvcc("-dryrun", "-c", "k.cu").info_only


def test_phases():
    assert nvcc("-E", "k.cu").phase is Phase.PREPROCESS
    assert nvcc("-M", "k.cu").phase is Phase.DEPS
    assert nvcc("-MD", "-c", "k.cu").phase is Phase.COMPILE
    assert nvcc("-ptx", "k.cu").phase is Phase.DEVICE_CODE
    assert nvcc("-dc", "k.cu").phase is Phase.COMPILE
    assert not nvcc("-dlink", "k.cu").rewritable  # sources given to the device-link phase


def test_parse_flags_in_clang_spelling():
    command = nvcc("--define-macro=A,B=2", "-Ui", "--include-path", "x,y", "-std=c++14",
                   "-Xcompiler", "-fopenmp,-DH,-Ihost", "--pre-include=pre.h", "-c", "k.cu",
                   "-arch", "compute_80")
    assert preprocessing_flags(command, True) == [
        "-D", "A", "-D", "B=2", "-U", "i", "-I", "x", "-I", "y", "-std=c++14",
        "-D", "H", "-I", "host", "-include", "pre.h"]
    options = parse_options(command, command.sources[0], True)
    assert options.gpu_arch == "sm_80" and options.language == "cuda"


def test_cc_table_joined_values_and_positional_x():
    command = cc("-x", "c", "a.inc", "-x", "none", "b.c", "c.cpp", "-MFdeps.d", "-MD",
                 "-Wl,-rpath,/x", "-fopenmp-targets=x86_64-pc-linux-gnu", "-c")
    assert [(s.path, s.language) for s in command.sources] == [
        ("a.inc", "c"), ("b.c", "c"), ("c.cpp", "c++")]
    assert command.value_of("-MF") == "deps.d" and not command.unsupported
    assert preprocessing_flags(cc("-std=gnu11", "-isystem", "sys", "-Iinc", "-fopenmp",
                                  "-c", "x.c"), False) == ["-std=gnu11", "-isystem", "sys",
                                                           "-I", "inc"]


def test_cc_unsupported():
    assert "options the wrapper cannot read" in cc("-Xclang", "-foo", "-c", "x.c").unsupported[0]
    assert cc("-c", "-frobnicate-unknown", "x.c").unsupported == ()  # an -f flag: no value


# --- the nvcc table against the nvcc it wraps ----------------------------------------------

_HELP_ROW = re.compile(r"^(--[\w-]+)(?:\s+([<{\[]\S*))?\s+\((-[\w-]+)\)")


@pytest.fixture(scope="module")
def nvcc_help() -> list[tuple[str, str, bool]]:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found on PATH")
    text = subprocess.run(["nvcc", "--help"], capture_output=True, text=True).stdout
    rows = []
    for line in text.splitlines():
        match = _HELP_ROW.match(line)
        if match:
            rows.append((match.group(1), match.group(3), match.group(2) is not None))
    assert len(rows) > 100, "nvcc --help changed its layout"
    return rows


#: --help prints no "<file>" after -MF, yet "nvcc -MF" takes one (checked: "-MF x.d -MD")
_HELP_OMITS_VALUE = {"--dependency-output", "-MF"}


def test_every_nvcc_option_is_in_the_table_with_its_arity(nvcc_help):
    exact = NVCC.exact()
    missing, wrong = [], []
    for long, short, takes_value in nvcc_help:
        takes_value = takes_value or long in _HELP_OMITS_VALUE
        for name in (long, short):
            option = exact.get(name)
            if option is None:
                missing.append(name)
            elif (option.value is not Value.NONE) != takes_value:
                wrong.append(name)
    assert not missing, f"nvcc options missing from the table: {missing}"
    assert not wrong, f"options whose value-taking differs from nvcc --help: {wrong}"
