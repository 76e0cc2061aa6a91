"""`s2s omp` through the command line: --check, --in-place, --explain and exit codes."""

from __future__ import annotations

import shutil

from s2s.cli.main import main

SAMPLE = "samples/openmp/saxpy_time_loop/saxpy_time_loop.c"


def test_check_in_place_then_nothing_to_do(tmp_path, capsys):
    from conftest import REPO

    source = tmp_path / "prog.c"
    shutil.copy(REPO / SAMPLE, source)
    original = source.read_bytes()
    assert main(["omp", "--check", str(source)]) == 1  # changes needed
    assert source.read_bytes() == original
    assert main(["omp", "--in-place", "--backup", ".orig", str(source)]) == 0
    rewritten = source.read_bytes()
    assert rewritten != original and b"#pragma omp target enter data" in rewritten
    assert (tmp_path / "prog.c.orig").read_bytes() == original
    capsys.readouterr()
    assert main(["omp", "--check", str(source)]) == 0  # idempotent: nothing left to do
    assert source.read_bytes() == rewritten


def test_explain_notes_only_when_asked(tmp_path, capsys):
    from conftest import REPO

    source = tmp_path / "prog.c"
    shutil.copy(REPO / SAMPLE, source)
    assert main(["omp", str(source)]) == 0
    quiet = capsys.readouterr()
    assert quiet.out.startswith("--- a/") and "[omp-explain]" not in quiet.err
    assert main(["omp", "--explain", str(source)]) == 0
    explained = capsys.readouterr()
    assert "note: target enter/exit data region in 'main' maps x" in explained.err
    assert "[omp-explain]" in explained.err


def test_file_without_target_regions_is_left_alone(tmp_path, capsys):
    source = tmp_path / "plain.c"
    source.write_text("int main(void) { return 0; }\n")
    assert main(["omp", "--check", str(source)]) == 0
    assert source.read_text() == "int main(void) { return 0; }\n"
