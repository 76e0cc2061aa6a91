"""Inputs as black and ruff take them: directories, --exclude, .gitignore, stdin with
--stdin-filename, --check --diff, each subcommand's usage line, and shell completion."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys

import pytest

from s2s.cli.inputs import GitIgnore, expand_inputs, search_directory
from s2s.cli.main import build_parser, main
from s2s.diagnostics import UsageError

SCALE = """\
#include <stdio.h>
#define N 1000

static void scale(double *a, int n)
{
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; ++i)
        a[i] *= 2.0;
}

int main(void)
{
    double a[N];
    for (int i = 0; i < N; ++i)
        a[i] = i;
    for (int step = 0; step < 4; ++step)
        scale(a, N);
    printf("%f\\n", a[N - 1]);
    return 0;
}
"""
ENTER = "#pragma omp target enter data map(to: a)"


def run_cli(args, capsys, stdin: bytes | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def tree(root, files: dict[str, str]):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_directory_search_takes_sources_by_extension_recursively(tmp_path):
    tree(tmp_path, {"a.c": "", "sub/b.cu": "", "sub/deep/c.cpp": "", "sub/d.h": "",
                    "notes.txt": "", ".git/x.c": "", "build/CMakeFiles/id/CMakeCCompilerId.c": ""})
    got = [f.removeprefix(str(tmp_path) + "/") for f in search_directory(str(tmp_path))]
    assert got == ["a.c", "sub/b.cu", "sub/deep/c.cpp"]


def test_gitignore_rules_as_git_reads_them(tmp_path):
    (tmp_path / ".git").mkdir()
    tree(tmp_path, {".gitignore": "# generated\nbuild/\n*.gen.c\n/top_only.c\n!keep.gen.c\n"
                                  "docs/**/example.c\n",
                    "src/.gitignore": "local[0-9].c\n",
                    "src/a.c": "", "src/x.gen.c": "", "src/keep.gen.c": "", "src/top_only.c": "",
                    "top_only.c": "", "build/b.c": "", "src/build/c.c": "", "src/local1.c": "",
                    "src/locala.c": "", "docs/a/b/example.c": "", "docs/example.c": ""})
    got = {f.removeprefix(str(tmp_path) + "/") for f in search_directory(str(tmp_path))}
    assert got == {"src/a.c", "src/keep.gen.c", "src/top_only.c", "src/locala.c"}
    # the rules of the work tree's root apply below it too, and --no-gitignore takes all
    below = {f.removeprefix(str(tmp_path) + "/") for f in search_directory(str(tmp_path / "src"))}
    assert below == {"src/a.c", "src/keep.gen.c", "src/top_only.c", "src/locala.c"}
    everything = search_directory(str(tmp_path), respect_gitignore=False)
    assert len(everything) == 11


def test_gitignore_last_rule_wins_and_directory_rules_skip_files(tmp_path):
    ignore = GitIgnore()
    (tmp_path / ".gitignore").write_text("*.c\n!a.c\nlogs/\n")
    ignore.load(str(tmp_path))
    assert ignore.ignored(str(tmp_path / "b.c"), False)
    assert not ignore.ignored(str(tmp_path / "a.c"), False)
    assert ignore.ignored(str(tmp_path / "logs"), True)
    assert not ignore.ignored(str(tmp_path / "logs"), False)


def test_exclude_globs_filter_what_a_search_finds_not_named_files(tmp_path):
    tree(tmp_path, {"src/a.c": "", "src/tests/t.c": "", "src/b_test.c": ""})
    found = expand_inputs([str(tmp_path / "src")], exclude=("tests", "*_test.c"))
    assert found == [str(tmp_path / "src" / "a.c")]
    named = expand_inputs([str(tmp_path / "src" / "b_test.c")], exclude=("*_test.c",))
    assert named == [str(tmp_path / "src" / "b_test.c")]


def test_a_directory_without_sources_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="no C, C\\+\\+ or CUDA source"):
        expand_inputs([str(tmp_path / "empty")])
    code, _out, err = run_cli(["omp", "--check", tmp_path / "empty"], capsys)
    assert code == 2 and "no C, C++ or CUDA source files" in err


def test_check_diff_on_a_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tree(tmp_path, {"src/scale.c": SCALE, "src/ignored/scale2.c": SCALE,
                    "src/.gitignore": "ignored/\n"})
    (tmp_path / ".git").mkdir()
    code, out, err = run_cli(["omp", "--check", "--diff", "src/"], capsys)
    assert code == 1, err
    assert out.startswith("--- a/src/scale.c\n+++ b/src/scale.c\n") and ENTER in out
    assert "scale2.c" not in out + err
    assert "src/scale.c: would be changed" in err and "1 file: 1 would change" in err
    # --check alone prints no diff; nothing was written
    code, out, _err = run_cli(["omp", "--check", "src"], capsys)
    assert code == 1 and out == ""
    assert (tmp_path / "src" / "scale.c").read_text() == SCALE


def test_check_with_in_place_is_a_usage_error(tmp_path, capsys):
    tree(tmp_path, {"scale.c": SCALE})
    code, _out, err = run_cli(["omp", "--check", "--in-place", tmp_path / "scale.c"], capsys)
    assert code == 2 and "--check only tells" in err


def test_stdin_with_stdin_filename(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = SCALE.encode()
    code, out, err = run_cli(["omp", "--diff", "-", "--stdin-filename", "f.c"], capsys, data,
                             monkeypatch)
    assert code == 0, err
    assert out.startswith("--- a/f.c\n+++ b/f.c\n") and f"+    {ENTER}\n" in out
    assert not (tmp_path / "f.c").exists()            # the name need not exist on disk
    code, out, err = run_cli(["omp", "-", "--stdin-filename", "f.c"], capsys, data, monkeypatch)
    assert code == 0 and ENTER in out and out.count("#include <stdio.h>") == 1
    code, out, _err = run_cli(["omp", "--check", "-", "--stdin-filename", "f.c"], capsys, data,
                              monkeypatch)
    assert code == 1 and out == ""
    # failing input: the text comes back unchanged (a pipe into a file never empties it)
    broken = b"int main( {\n"
    code, out, err = run_cli(["omp", "-", "--stdin-filename", "f.c"], capsys, broken,
                             monkeypatch)
    assert code == 1 and out == broken.decode() and "error" in err


@pytest.mark.parametrize("args, message", [
    (["omp", "--in-place", "-", "--stdin-filename", "f.c"], "--in-place and -o write files"),
    (["omp", "-"], "give --stdin-filename"),
    (["omp", "-", "other.c", "--stdin-filename", "f.c"], "only input"),
    (["omp", "x.c", "--stdin-filename", "f.c"], "only makes sense with the input '-'"),
    (["inspect", "-"], "does not read stdin"),
])
def test_stdin_usage_errors(args, message, capsys):
    code, _out, err = run_cli(args, capsys)
    assert code == 2 and message in err


def test_stdin_through_a_real_pipe(tmp_path):
    """The issue's command: cat f.c | s2s omp --diff - --stdin-filename f.c."""
    (tmp_path / "f.c").write_text(SCALE)
    proc = subprocess.run(f"cat f.c | {sys.executable} -m s2s omp --diff - --stdin-filename f.c",
                          shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("--- a/f.c\n+++ b/f.c\n") and ENTER in proc.stdout


@pytest.mark.parametrize("command", ["inspect", "omp", "transfers", "fuse", "mgpu", "report",
                                     "verify", "completion"])
def test_each_subcommand_has_its_own_usage_line(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert out.startswith(f"usage: s2s {command} ["), out[:200]
    assert "COMPILER ARGS" not in out.splitlines()[0]


def test_an_unknown_option_is_reported_by_its_subcommand(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["omp", "--bogus", "x.c"])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.startswith("usage: s2s omp [") and "s2s omp: error: unrecognized arguments: " \
        "--bogus" in err


def _complete(script: str, words: list[str], tmp_path) -> list[str]:
    """The candidates bash's completion function offers after ``words``."""
    (tmp_path / "s2s.bash").write_text(script)
    line = " ".join(words)
    program = (f"source {tmp_path / 's2s.bash'}\ncomplete -p s2s\n"
               f"COMP_WORDS=({line})\nCOMP_CWORD={len(words) - 1}\n"
               "_s2s_complete\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    proc = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], cwd=tmp_path,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "complete -o default -F _s2s_complete s2s"
    return lines[1:]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion_from_the_parser(tmp_path, capsys):
    code = main(["completion", "bash"])
    script = capsys.readouterr().out
    assert code == 0
    commands = set(_complete(script, ["s2s", "''"], tmp_path))
    assert {"inspect", "omp", "transfers", "fuse", "mgpu", "report", "nvcc", "verify",
            "completion", "--version"} <= commands
    options = _complete(script, ["s2s", "omp", "--"], tmp_path)
    for option in ("--check", "--diff", "--in-place", "--stdin-filename", "--exclude",
                   "--color", "--format"):
        assert option in options
    assert _complete(script, ["s2s", "omp", "--format", "''"], tmp_path) == ["text", "json",
                                                                             "sarif"]
    assert _complete(script, ["s2s", "completion", "''"], tmp_path)[:3] == ["-h", "--help",
                                                                            "bash"]


def test_zsh_and_fish_scripts_name_every_subcommand_and_option():
    parser = build_parser()
    from s2s.cli.completion import completion_script

    zsh = completion_script(parser, "zsh")
    fish = completion_script(parser, "fish")
    assert zsh.startswith("#compdef s2s\n") and "bashcompinit" in zsh
    for command in parser.commands:
        assert f"-a {command} " in fish
    assert "__fish_seen_subcommand_from omp' -l check" in fish
    assert "-l format -r -a 'text json sarif'" in fish
