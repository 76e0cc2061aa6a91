"""The promises of docs/security.md that no other test checked (issue 32, item 9).

What each subcommand runs (the table "What it runs"): the programs it starts, recorded at
``subprocess.Popen``, are the listed ones with the listed purpose, never through a shell;
``--diff`` and ``--check`` write nothing in the source tree and leave nothing in the temporary
directory (what they write goes to the caches only); system headers are never edited or
analysed, where the same header as a project header is.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from s2s.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
OMP_SAMPLE = "openmp/backprop_layer"
CUDA_SAMPLE = "cuda/elementwise_chain"
#: per subcommand: the programs it may start, and a flag each of their command lines carries
ALLOWED = {
    "inspect": {},
    "omp": {"clang-16": ("-fsyntax-only",)},
    "transfers": {"nvcc": ("--version", "-c")},
    "fuse": {"nvcc": ("--version", "-c")},
    "mgpu": {"nvcc": ("--version", "-c")},
}
CASES = [("inspect", CUDA_SAMPLE, ()), ("omp", OMP_SAMPLE, ("--diff",)),
         ("omp", OMP_SAMPLE, ("--check",)), ("fuse", CUDA_SAMPLE, ("--check",)),
         ("mgpu", CUDA_SAMPLE, ("--diff",))]  # transfers checks its rewrite as mgpu does


def _tree(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every file under ``root``: size, modification time, hash."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns,
                                       hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def recorded(monkeypatch):
    """The command lines and keyword arguments of every process started."""
    started: list[tuple[list[str], dict]] = []
    real = subprocess.Popen.__init__

    def record(self, args, *rest, **kwargs):
        started.append(([args] if isinstance(args, str) else list(map(str, args)), kwargs))
        return real(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", record)
    return started


@pytest.mark.parametrize("command,sample,mode", CASES)
def test_a_command_runs_what_the_table_says_and_writes_nothing(
        tmp_path, monkeypatch, capsys, recorded, command, sample, mode):
    tree, temp, cache = tmp_path / "src", tmp_path / "tmp", tmp_path / "cache"
    shutil.copytree(ROOT / "samples" / sample, tree)
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("S2S_CPU_CACHE", str(cache / "cpu"))
    source = next(p for p in sorted(tree.iterdir()) if p.suffix in (".c", ".cu"))
    before = _tree(tree)
    code = main([command, *mode, str(source)])
    err = capsys.readouterr().err
    assert code in (0, 1) and "Traceback" not in err, err
    assert _tree(tree) == before
    assert list(temp.iterdir()) == []
    for argv, kwargs in recorded:
        program = Path(argv[0]).name
        assert program in ALLOWED[command], f"{command} ran {argv}"
        assert any(flag in argv for flag in ALLOWED[command][program]), argv
        assert not kwargs.get("shell"), argv


def test_system_headers_are_never_edited(tmp_path, capsys):
    header = ("static void scale(double *a, const double *b, int n)\n{\n"
              "#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) "
              "map(tofrom: b[0:n])\n  for (int i = 0; i < n; i++) a[i] = 2.0 * b[i];\n}\n")
    program = ("#include <stdio.h>\n#include <scale.h>\nint main(void)\n{\n"
               "  double a[100], b[100];\n  for (int i = 0; i < 100; i++) b[i] = i;\n"
               "  scale(a, b, 100);\n  printf(\"%g\\n\", a[10]);\n  return 0;\n}\n")
    for folder in ("system", "project"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "scale.h").write_text(header)
    main_c = tmp_path / "main.c"
    main_c.write_text(program)
    code = main(["omp", "--in-place", str(main_c), "--", "-isystem", str(tmp_path / "system")])
    err = capsys.readouterr().err
    assert code == 0 and "1 file: 0 changed" in err, err  # the header is not even analysed
    assert (tmp_path / "system" / "scale.h").read_text() == header
    main_c.write_text(program)
    code = main(["omp", "--check", str(main_c), "--", "-I", str(tmp_path / "project")])
    err = capsys.readouterr().err
    assert "2 files: 1 would change" in err, err  # as a project header it is part of the program


def test_every_promise_names_tests_that_exist():
    """docs/security.md: each row of a promise table names its tests; each named file exists
    under testsuite/ and defines each named test (a renamed test must take its row along)."""
    import re

    text = (ROOT / "docs" / "security.md").read_text()
    rows = [line for line in text.splitlines() if re.match(r"^\| [RXWGC]\d+ \|", line)]
    assert len(rows) >= 30
    for row in rows:
        cell = row.rstrip(" |").rsplit("|", 1)[1]
        named = re.findall(r"`([\w/]+\.py)(?:::([^`]+))?`", cell)
        assert named or "issue 32" in cell, row
        for path, tests in named:
            source = (ROOT / "testsuite" / path).read_text()
            for test in filter(None, (t.strip() for t in tests.split(","))):
                assert re.search(rf"^def {re.escape(test)}\(", source, re.M), (path, test)
