"""A whole-program run replayed from the cache (s2s.run_cache, issue 30's warm runs).

A second run over unchanged files prints the same bytes without running the pass (the text
printers; JSON reads the models, which are not kept, and runs it again); any input
of the run changed (a file, a header it includes, an ``S2S_`` variable, the file order) runs
it again; a run with a failed file keeps nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from s2s import whole_program
from s2s.cli.main import main

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def program(tmp_path, monkeypatch) -> list[str]:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from gen_big_cu import generate_openmp_program, without_data_directives
    finally:
        sys.path.remove(str(REPO / "scripts"))
    for name, text in generate_openmp_program(500, 2).items():
        (tmp_path / name).write_text(without_data_directives(text))
    monkeypatch.chdir(tmp_path)
    return ["kernels_0.c", "kernels_1.c", "main.c"]


@pytest.fixture
def runs(monkeypatch) -> list[int]:
    """Counts the runs of the pass over a program (a replay runs none)."""
    real = whole_program._process_program
    counted: list[int] = []

    def counting(*args):
        counted.append(1)
        return real(*args)

    monkeypatch.setattr(whole_program, "_process_program", counting)
    return counted


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    """Exit status, stdout and stderr (the diagnostics and the summary are replayed too)."""
    code = main(argv)
    said = capsys.readouterr()
    return code, said.out, said.err


@pytest.mark.parametrize("form", ["text", "json"])
def test_a_second_run_replays_the_same_bytes(program, runs, fact_cache_on, capsys, form):
    argv = ["omp", "--diff", "--format", form, *program]
    cold = _run(argv, capsys)
    warm = _run(argv, capsys)
    assert warm == cold and "omp target" in cold[1]
    # the text printers replay the first run; JSON (it prints the models' facts) runs again
    assert len(runs) == (1 if form == "text" else 2)
    assert _run([*argv, "--no-cache"], capsys) == cold


def test_a_changed_input_runs_the_pass_again(program, runs, fact_cache_on, capsys,
                                            monkeypatch):
    argv = ["omp", "--diff", *program]
    first = _run(argv, capsys)
    header = Path("kernels.h")
    header.write_text(header.read_text() + "\nint added_by_the_test(int);\n")
    assert _run(argv, capsys) == first and len(runs) == 2     # a header it includes
    monkeypatch.setenv("S2S_TEST_SETTING", "1")
    _run(argv, capsys)
    assert len(runs) == 3                                     # the environment
    _run(["omp", "--diff", *reversed(program)], capsys)
    assert len(runs) == 4                                     # the order of the files
    Path("main.c").write_text(Path("main.c").read_text().replace("int main", "int  main"))
    changed = _run(argv, capsys)
    assert len(runs) == 5                                     # a file's own bytes
    assert _run(argv, capsys) == changed and len(runs) == 5
    assert _run([*argv, "--no-cache"], capsys) == changed


def test_a_run_with_a_failed_file_is_not_kept(program, runs, fact_cache_on, capsys):
    Path("broken.c").write_text("int f( {\n")
    argv = ["omp", "--diff", *program, "broken.c"]
    first = _run(argv, capsys)
    assert first[0] == 1
    assert _run(argv, capsys) == first and len(runs) == 2


def test_clang16_verdicts_on_unchanged_rewrites_are_kept(program, fact_cache_on, capsys,
                                                        monkeypatch):
    from s2s.frontend.openmp import clang_check

    if clang_check.available() is None:
        pytest.skip("clang-16 is not installed: no second opinion to keep")
    checked: list[str] = []
    real = clang_check._errors.__wrapped__      # (not the in-process memo: each run asks)

    def counting(*args):
        checked.append(args[1])
        return real(*args)

    monkeypatch.setattr(clang_check, "_errors", counting)
    argv = ["omp", "--diff", *program]
    _run(argv, capsys)
    assert sorted(checked) == sorted(program)
    Path("main.c").write_text(Path("main.c").read_text() + "\n/* edited */\n")
    edited = _run(argv, capsys)
    assert checked[len(program):] == ["main.c"]   # the kernel files' rewrites are as before
    assert _run([*argv, "--no-cache"], capsys) == edited


def test_a_file_edited_during_the_run_is_not_kept(program, fact_cache_on, capsys, monkeypatch):
    real = whole_program._process_program
    original = Path("main.c").read_text()
    counted: list[int] = []

    def edited_meanwhile(*args):       # the run reads another text than its key was made of
        counted.append(1)
        if len(counted) == 1:
            Path("main.c").write_text(original.replace("int main", "int  main"))
        try:
            return real(*args)
        finally:
            Path("main.c").write_text(original)

    monkeypatch.setattr(whole_program, "_process_program", edited_meanwhile)
    argv = ["omp", "--diff", *program]
    _run(argv, capsys)
    second = _run(argv, capsys)
    assert len(counted) == 2                  # nothing was kept under the first key
    assert _run([*argv, "--no-cache"], capsys) == second
