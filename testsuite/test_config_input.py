"""Issue 32 item 7 (and the compile-database part of item 5): configuration files and
compile_commands.json are checked, never trusted.

Wrong types and unknown pass names are named, other encodings and broken syntax are one clean
message (exit 2, no traceback), and a compile database is read only when it is a regular file
under a size bound: a FIFO would hang the run, a link to /dev/zero would read until memory
runs out.
"""

from __future__ import annotations

import json
import os

import pytest

from s2s.cli.main import main
from s2s.frontend.core import flags

SOURCE = "int twice(int x) { return 2 * x; }\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.c").write_text(SOURCE)
    (tmp_path / "build").mkdir()
    return tmp_path


def run(argv, capsys) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


PYPROJECTS = [
    ("latin-1", b"[tool.s2s]\nsilence = [\"x\"]\n# caf\xe9\n", "is not UTF-8 (byte 0xe9"),
    ("UTF-16", "[tool.s2s]\nsilence = []\n".encode("utf-16"), "is UTF-16"),
    ("UTF-16 without BOM", "[tool.s2s]\nsilence = []\n".encode("utf-16-le"), "NUL bytes"),
    ("s2s = 5", b"[tool]\ns2s = 5\n", "'tool.s2s' must be a table ([tool.s2s]), not 5"),
    ("unknown pass", b"[tool.s2s]\npasses = \"omp,bogus\"\n",
     "'passes' names unknown pass 'bogus' (s2s has omp, transfers, fuse, mgpu)"),
    ("unknown passes in a list", b"[tool.s2s]\npasses = [\"omp\", \"x\", \"y\"]\n",
     "unknown passes 'x', 'y'"),
    ("passes of another type", b"[tool.s2s]\npasses = 3\n", "must be a list"),
    ("deep nesting", b"[tool.s2s]\nx = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
     "nested too deeply"),
    ("unterminated string", b"[tool.s2s]\nformat = \"json\n", "not a valid TOML file"),
]


@pytest.mark.parametrize("name, data, said", PYPROJECTS, ids=[p[0] for p in PYPROJECTS])
def test_bad_pyproject_is_one_clean_message(project, capsys, name, data, said):
    (project / "pyproject.toml").write_bytes(data)
    code, err = run(["omp", "a.c"], capsys)
    assert code == 2, err
    assert said in err and "[config-invalid]" in err and "pyproject.toml" in err


def test_a_utf8_byte_order_mark_is_accepted(project, capsys):
    (project / ".s2s.toml").write_bytes("\ufeffsilence = [\"parse-*\"]\n".encode())
    code, err = run(["omp", "a.c"], capsys)
    assert code == 0, err


DATABASES = [
    ("unterminated quote", json.dumps([{"directory": ".", "file": "a.c",
                                        "command": "cc \"-DX a.c"}]).encode(),
     "entry 0: 'command' cannot be split into arguments: No closing quotation"),
    ("arguments as a string", json.dumps([{"directory": ".", "file": "a.c",
                                           "arguments": "cc -DX a.c"}]).encode(),
     "entry 0: 'arguments' must be a list of strings"),
    ("file as a number", json.dumps([{"directory": ".", "file": 5, "command": "cc"}]).encode(),
     "entry 0: 'file' must be a string"),
    ("deep nesting", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("UTF-16", json.dumps([]).encode("utf-16"), "is UTF-16"),
    ("latin-1", b'[{"directory": ".", "file": "\xe9.c", "command": "cc"}]', "is not UTF-8"),
    ("broken JSON", b'[{"directory": ".", "file": "a.c", "command": "cc}]',
     "cannot read compilation database"),
]


@pytest.mark.parametrize("name, data, said", DATABASES, ids=[d[0] for d in DATABASES])
def test_bad_compile_database_is_one_clean_message(project, capsys, name, data, said):
    (project / "build" / "compile_commands.json").write_bytes(data)
    code, err = run(["omp", "-p", "build", "a.c"], capsys)
    assert code == 2, err
    assert said in err and "compile_commands.json" in err


def test_a_fifo_database_is_refused_without_waiting(project, capsys):
    os.mkfifo(project / "build" / "compile_commands.json")
    code, err = run(["omp", "-p", "build", "a.c"], capsys)
    assert code == 2 and "not a regular file (a FIFO)" in err


def test_a_database_linked_to_dev_zero_is_refused(project, capsys):
    os.symlink("/dev/zero", project / "build" / "compile_commands.json")
    code, err = run(["omp", "-p", "build", "a.c"], capsys)
    assert code == 2 and "not a regular file (a character device)" in err


def test_a_database_over_the_bound_is_refused(project, capsys, monkeypatch):
    monkeypatch.setattr(flags, "MAX_DATABASE_BYTES", 64)
    (project / "build" / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(project), "file": "a.c", "arguments": ["cc", "-DLONG_ENOUGH=1"]}]))
    code, err = run(["omp", "-p", "build", "a.c"], capsys)
    assert code == 2 and "more than the 64 s2s reads" in err
