"""Issue 17 item 9: a rewrite libclang accepts but clang-16 rejects is never emitted.

libclang-ng's clang is newer than clang-16 (OpenMP 5.1 by default) and accepts the ``present``
map-type modifier: ``map(present, to: v[0:n])``; clang-16 (OpenMP 5.0) says "incorrect map
type modifier". (``map(to: v.data()[0:n])``, the example of the brief, is rejected by both:
"expected addressable lvalue".) The pass below plans such a clause (plus a harmless group),
so only the clang-16 check can drop it.
"""

from __future__ import annotations

import shutil

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.frontend.openmp import clang_check
from s2s.transform import registry
from s2s.transform.check import EditGroup

pytestmark = pytest.mark.skipif(shutil.which("clang-16") is None, reason="clang-16 not on PATH")

PROGRAM = """#include <vector>
#include <cstdio>
#ifndef LEN
#error "build with -DLEN=..."
#endif
int main() {
  int n = LEN;
  std::vector<double> v(n, 1.0);
  double *p = v.data();
  #pragma omp target teams distribute parallel for map(tofrom: p[0:n])
  for (int i = 0; i < n; i++) p[i] += 1;
  std::printf("%f\\n", v[0]);
  return 0;
}
"""


def _vector_section(loaded):
    """An enter data with ``map(present, to: ...)`` before the kernel, and a comment."""
    text = loaded.source
    at = text.index(b"  #pragma omp target teams")
    region = Edit(loaded.path, at, 0, "  #pragma omp target enter data map(present, to: p[0:n])\n")
    comment = Edit(loaded.path, 0, 0, "// reviewed by s2s\n")
    return PassOutput((region, comment), (), (
        EditGroup("the data mapping of 'main'", (region,), None, "omp-rewrite-invalid"),
        EditGroup("the comment", (comment,), None, "omp-rewrite-invalid")), check_compiles=True)


@pytest.fixture
def program(tmp_path, monkeypatch):
    monkeypatch.setitem(registry.PASSES, "omp", _vector_section)
    src = tmp_path / "vec.cpp"
    src.write_text(PROGRAM)
    return src


def test_clang16_rejection_drops_the_group_and_the_file_exits_1(program, capsys):
    code = main(["omp", "--in-place", str(program), "--", "-DLEN=64"])
    _, err = capsys.readouterr()
    assert code == 1
    assert "[omp-rewrite-invalid]" in err and "clang-16" in err
    assert "incorrect map type modifier" in err
    text = program.read_text()
    assert "present" not in text                 # the group clang-16 rejects: dropped
    assert text.startswith("// reviewed by s2s\n")    # the other group: kept


def test_libclang_alone_accepts_it(program, capsys, monkeypatch):
    """The control: without the clang-16 check the same rewrite is emitted (exit 0)."""
    monkeypatch.setenv("S2S_CLANG_CHECK", "0")
    code = main(["omp", "--in-place", str(program), "--", "-DLEN=64"])
    capsys.readouterr()
    assert code == 0
    assert "map(present, to: p[0:n])" in program.read_text()


def test_the_users_flags_reach_clang16(program, capsys):
    """Without ``-DLEN`` clang-16 would reject the original as well (``#error``), and the
    check would then say nothing: the drop above needs the flags from ``--``."""
    assert clang_check.syntax_errors(PROGRAM.encode(), str(program), "c++", ())
    assert not clang_check.syntax_errors(PROGRAM.encode(), str(program), "c++", ("-DLEN=8",))
    argv = clang_check.command("clang-16", str(program), "c++", ("-DLEN=8", "-fopenmp"))
    assert argv[:4] == ["clang-16", "-fsyntax-only", "-fopenmp",
                        "-fopenmp-targets=x86_64-pc-linux-gnu"]
    assert "-DLEN=8" in argv and argv.count("-fopenmp") == 1 and argv[-1] == "-"


def test_the_flags_of_compile_commands_reach_clang16(program, tmp_path, capsys):
    import json

    (tmp_path / "compile_commands.json").write_text(json.dumps([{
        "directory": str(tmp_path), "file": "vec.cpp",
        "arguments": ["clang++-16", "-DLEN=32", "-fopenmp", "-c", "vec.cpp"]}]))
    code = main(["omp", "--in-place", "-p", str(tmp_path), str(program)])
    _, err = capsys.readouterr()
    assert code == 1 and "incorrect map type modifier" in err


def test_the_check_finds_the_files_own_header_not_the_working_directorys(tmp_path, monkeypatch):
    """The rewrite goes in on stdin, whose quoted includes clang searches first in the working
    directory: run from a folder with a header of the same name, the check read that one (an
    ``#error`` here) and blamed the rewrite. It runs in the file's folder, the user's relative
    ``-I`` anchored where it was given."""
    project, elsewhere = tmp_path / "proj", tmp_path / "run"
    (project / "inc").mkdir(parents=True)
    elsewhere.mkdir()
    (project / "x.h").write_text("#include \"y.h\"\n")
    (project / "inc" / "y.h").write_text("#define N 16\n")
    (elsewhere / "x.h").write_text("#error the working directory's header\n")
    source = b'#include "x.h"\nint a[N];\n'
    monkeypatch.chdir(elsewhere)
    assert clang_check.syntax_errors(source, "../proj/a.c", "c", ("-I../proj/inc",)) == []
    assert clang_check.syntax_errors(source, "../proj/a.c", "c", ())   # the control: no -I
