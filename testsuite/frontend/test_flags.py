"""compile_commands.json reading and the flag table (s2s/frontend/core/flags.py)."""

import json

import pytest

from s2s.diagnostics import UsageError
from s2s.frontend.core.flags import filter_flags, load_compile_commands


def test_nvcc_command_keeps_what_the_parse_needs(tmp_path):
    argv = ["/usr/local/cuda/bin/nvcc", "-Iinclude", "-I", "../third", "-isystem", "/opt/x",
            "-DN=4", "-D", "M=2", "-UDEBUG", "-std=c++17", "-O3", "-arch=sm_90",
            "-gencode", "arch=compute_90,code=sm_90", "--expt-relaxed-constexpr",
            "-Xcompiler", "-fopenmp,-Wall,-fPIC", "-c", "src/a.cu", "-o", "a.o", "-MD", "-MF",
            "a.d", "--define-macro=K=1", "-rdc=true", "-lineinfo"]
    flags, unknown = filter_flags(argv, str(tmp_path / "build"))
    build = tmp_path / "build"
    assert flags == (f"-I{build}/include", "-I", str(tmp_path / "third"), "-isystem", "/opt/x",
                     "-DN=4", "-D", "M=2", "-UDEBUG", "-std=c++17", "-O3", "-Wall", "-DK=1")
    # (-fopenmp inside -Xcompiler too: OpenMP flags never reach the analysis parse)
    assert unknown == ()


def test_unknown_flags_are_reported_once():
    flags, unknown = filter_flags(["cc", "--frobnicate", "-c", "x.c", "--frobnicate", "-DX"], "/b")
    assert flags == ("-DX",)
    assert unknown == ("--frobnicate",)


def test_database_lookup_by_real_path(tmp_path):
    src = tmp_path / "src" / "k.cu"
    src.parent.mkdir()
    src.write_text("int x;\n")
    link = tmp_path / "link.cu"
    link.symlink_to(src)
    entries = [{"directory": str(tmp_path / "build"), "file": "../src/k.cu",
                "command": "nvcc -DA=1 -c ../src/k.cu -o k.o"}]
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "compile_commands.json").write_text(json.dumps(entries))
    database = load_compile_commands(tmp_path / "build")
    entry = database.entry_for(str(link))
    assert entry is not None and entry.arguments == ("nvcc", "-DA=1", "-c", "../src/k.cu", "-o",
                                                     "k.o")
    assert database.entry_for(str(tmp_path / "other.cu")) is None


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    ("{not json", "cannot read compilation database"),
    ('{"a": 1}', "JSON list"),
    ('[{"file": "a.c"}]', "lacks 'file' or 'directory'"),
    ('[{"file": "a.c", "directory": "/"}]', "neither 'arguments' nor 'command'"),
])
def test_bad_databases_are_usage_errors(tmp_path, content, message):
    if content is not None:
        (tmp_path / "compile_commands.json").write_text(content)
    with pytest.raises(UsageError, match=message):
        load_compile_commands(tmp_path)
