"""Output for people: colour on terminals (--color, NO_COLOR, FORCE_COLOR), tables that fit
COLUMNS (80 when piped), progress lines of long steps on stderr only."""

from __future__ import annotations

import io
import re

import pytest

from s2s.cli.common import Console, table_width, use_color
from s2s.cli.main import main
from s2s.diagnostics import Diagnostic, DiagnosticPrinter, Location
from s2s.output import FileChange, colored_diff, unified_diff
from testsuite.test_cli_inputs import SCALE

ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run_cli(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("choice, env, terminal, expected", [
    ("auto", {}, True, True),
    ("auto", {}, False, False),
    ("auto", {"NO_COLOR": "1"}, True, False),
    ("auto", {"FORCE_COLOR": "1"}, False, True),
    ("always", {"NO_COLOR": "1"}, False, True),
    ("never", {"FORCE_COLOR": "1"}, True, False),
])
def test_when_to_colour(choice, env, terminal, expected, monkeypatch):
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    stream = _Terminal() if terminal else io.StringIO()
    assert use_color(choice, stream) is expected


def test_coloured_diagnostics_keep_the_plain_text():
    stream = io.StringIO()
    printer = DiagnosticPrinter(stream=stream, show_source=False, color=True)
    for diagnostic in (Diagnostic.error("no such file: x.c", "no-such-file"),
                       Diagnostic.warning("p is not mapped", "omp-left-unmapped",
                                          Location("a.c", 3, 5))):
        printer.emit(diagnostic)
    text = stream.getvalue()
    assert "\x1b[1;31merror:\x1b[0m" in text and "\x1b[1;33mwarning:\x1b[0m" in text
    assert ESCAPE.sub("", text) == ("error: no such file: x.c [no-such-file]\n"
                                    "a.c:3:5: warning: p is not mapped [omp-left-unmapped]\n"
                                    "note: silence this warning with --silence "
                                    "omp-left-unmapped\n")


def test_coloured_diff_marks_added_and_removed_lines():
    change = FileChange("f.c", b"int a;\nint b;\n", b"int a;\nint c;\n")
    plain = unified_diff(change)
    coloured = colored_diff(plain)
    assert "\x1b[32m+int c;\x1b[0m\n" in coloured and "\x1b[31m-int b;\x1b[0m\n" in coloured
    assert ESCAPE.sub("", coloured) == plain


def test_color_option_end_to_end(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scale.c").write_text(SCALE)
    (tmp_path / "broken.c").write_text("int main( {\n")
    code, out, err = run_cli(["omp", "--color", "always", "scale.c", "broken.c"], capsys)
    assert "\x1b[32m+    #pragma omp target enter data" in out and "\x1b[1;31merror:" in err
    code, out, err = run_cli(["omp", "scale.c", "broken.c"], capsys)     # piped: no colour
    assert "\x1b[" not in out + err
    monkeypatch.setenv("FORCE_COLOR", "1")
    _code, out, err = run_cli(["omp", "--color", "never", "scale.c", "broken.c"], capsys)
    assert "\x1b[" not in out + err


def test_piped_tables_fit_80_columns_or_columns(tmp_path, capsys, monkeypatch):
    source = tmp_path / ("a_rather_long_directory_name_" * 3) / "scale.c"
    source.parent.mkdir()
    source.write_text(SCALE)
    monkeypatch.delenv("COLUMNS")
    assert table_width(io.StringIO()) == 80 and table_width(_Terminal()) is None
    _code, out, _err = run_cli(["inspect", source], capsys)
    widths = [len(line) for line in out.splitlines()]
    assert widths and max(widths) <= 80
    assert "│ teams " in out and "│ distribute " in out       # folded in its column, not cut
    monkeypatch.setenv("COLUMNS", "60")
    _code, out, _err = run_cli(["inspect", source], capsys)
    assert max(len(line) for line in out.splitlines()) <= 60


def test_progress_lines_only_on_a_terminal_or_with_verbose(tmp_path, capsys, monkeypatch):
    console = Console()
    console.step("verify", "building")                    # stderr is captured: no terminal
    assert capsys.readouterr().err == ""
    Console(verbose=1).step("verify", "building")
    assert re.fullmatch(r"s2s verify: \[ *\d+\.\d s\] building\.\.\.\n", capsys.readouterr().err)
    Console(verbose=1, quiet=True).step("verify", "building")
    assert capsys.readouterr().err == ""
    source = tmp_path / "scale.c"
    source.write_text(SCALE)
    code, out, err = run_cli(["report", "-v", "-o", tmp_path / "r.html", source], capsys)
    assert code == 0 and out == ""
    assert "s2s report: [" in err and "analysing the OpenMP program of 1 file..." in err
    assert "writing the page..." in err
    code, out, err = run_cli(["report", "-o", tmp_path / "r.html", source], capsys)
    assert "analysing" not in err


def test_verify_says_its_steps_with_verbose(tmp_path, capsys):
    from s2s.verify import omp_harness

    if omp_harness.toolchain_problem() is not None:
        pytest.skip(f"no OpenMP offload toolchain: {omp_harness.toolchain_problem()}")
    source = tmp_path / "scale.c"
    source.write_text(SCALE)
    code, out, err = run_cli(["verify", "-v", source], capsys)
    assert code == 0, err
    steps = [line.split("] ")[1] for line in err.splitlines() if line.startswith("s2s verify: [")]
    assert steps == ["rewriting with omp...", "building the original and the rewritten program...",
                     "running the original program...", "running the rewritten program..."]
    assert "s2s verify: [" not in out
