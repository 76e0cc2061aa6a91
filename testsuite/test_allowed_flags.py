"""Issue 32 item 2: user flags reach the tools s2s runs itself only through an allow-list.

A flag that loads code (``-fplugin=``, ``-Xclang -load``, ``-B``, ``--driver-mode=``,
``@file``) or writes files (``-o``, ``-MD``/``-MF``, ``--save-temps``, ``-fprofile-*``,
``-Wl,``) is dropped, with its argument, and named in one note; the flags that say how to read
the source are kept. The end-to-end tests build a real plugin whose constructor leaves a mark,
so "no code runs" is observed, not assumed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.frontend.core import parse
from s2s.frontend.core.allowed_flags import allowed_flags
from s2s.frontend.core.toolchain import default_toolchain
from s2s.frontend.openmp import clang_check
from s2s.transform import nvcc_check, registry
from s2s.transform.check import EditGroup
from s2s.verify import cuda_host, omp_harness

KEPT = ["-I", "inc", "-Iinc2", "-isystem", "/opt/x", "-iquote", "q", "-include", "pre.h",
        "-DN=4", "-D", "M", "-UDEBUG", "-std=c++17", "-x", "c++", "-Wall", "-Wno-unused",
        "-Werror=return-type", "-w", "-fno-exceptions", "-fms-extensions", "-O2", "-g",
        "-march=native", "-m64", "--cuda-gpu-arch=sm_80", "-arch", "sm_90", "-pedantic"]

# (family, the flags as given, what the note names)
DROPPED = [
    ("plugin", ["-fplugin=/x/p.so"], ["-fplugin=/x/p.so"]),
    ("pass plugin", ["-fpass-plugin=/x/p.so"], ["-fpass-plugin=/x/p.so"]),
    ("Xclang load", ["-Xclang", "-load", "-Xclang", "/x/p.so"], ["-Xclang -load", "-Xclang /x/p.so"]),
    ("bare load", ["-load", "/x/p.so"], ["-load /x/p.so"]),
    ("dependency files", ["-MD", "-MMD", "-MF", "d.d", "-MT", "t", "-MQ", "q", "-MP"],
     ["-MD", "-MMD", "-MF d.d", "-MT t", "-MQ q", "-MP"]),
    ("output", ["-o", "out.o", "-oout2.o"], ["-o out.o", "-oout2.o"]),
    ("save temps", ["--save-temps", "-save-temps=obj"], ["--save-temps", "-save-temps=obj"]),
    ("profile", ["-fprofile-generate", "-fprofile-instr-generate=/x/p", "-fprofile-use=/x"],
     ["-fprofile-generate", "-fprofile-instr-generate=/x/p", "-fprofile-use=/x"]),
    ("linker and assembler", ["-Wl,-rpath,/x", "-Wa,-adhln=/x", "-Wp,-MD,/x", "-Xlinker", "-y"],
     ["-Wl,-rpath,/x", "-Wa,-adhln=/x", "-Wp,-MD,/x", "-Xlinker -y"]),
    ("tool search path", ["-B/x", "-B", "/y", "--driver-mode=cl", "-specs=/x/s"],
     ["-B/x", "-B /y", "--driver-mode=cl", "-specs=/x/s"]),
    ("response file", ["@/x/args.rsp"], ["@/x/args.rsp"]),
    ("llvm options", ["-mllvm", "-info-output-file=/x"], ["-mllvm -info-output-file=/x"]),
    ("traces and records", ["-ftime-trace", "-fsave-optimization-record", "-fmodules-cache-path=/x",
                            "-fcrash-diagnostics-dir=/x"],
     ["-ftime-trace", "-fsave-optimization-record", "-fmodules-cache-path=/x",
      "-fcrash-diagnostics-dir=/x"]),
    ("stray inputs", ["other.c"], ["other.c"]),
]


def test_the_flags_that_say_how_to_read_the_source_are_kept():
    assert allowed_flags(KEPT) == (tuple(KEPT), ())


@pytest.mark.parametrize("family, given, named", DROPPED, ids=[d[0] for d in DROPPED])
def test_each_dropped_family_goes_with_its_argument(family, given, named):
    kept, dropped = allowed_flags(["-DA=1", *given, "-Iinc"])
    assert kept == ("-DA=1", "-Iinc")
    assert dropped == tuple(named)


@pytest.mark.parametrize("family, given, named", DROPPED, ids=[d[0] for d in DROPPED])
def test_no_tool_command_s2s_builds_carries_a_dropped_flag(family, given, named, tmp_path):
    """The sinks filter too: the clang-16 check, the libclang parse, the nvcc check, the
    verify builds (OpenMP and the CUDA shim)."""
    flags = ("-DA=1", *given)
    commands = [clang_check.command("clang-16", str(tmp_path / "a.c"), "c", flags),
                omp_harness.build_command([tmp_path / "a.c"], tmp_path / "a.out", "c", flags),
                parse.clang_args("c", default_toolchain(), user_flags=flags),
                list(nvcc_check.check_flags(flags)),
                [o + v for o, v in cuda_host.user_flags(flags)]]
    for command in commands:
        for flag in given:
            if flag not in ("-o",):          # the harness's own "-o exe" stays
                assert flag not in command, (family, command)


PLUGIN_C = r"""
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void) {
  const char *at = getenv("S2S_TEST_PLUGIN_MARK");
  if (at) close(open(at, O_CREAT | O_WRONLY, 0644));
}
"""

PROGRAM = """#include <stdio.h>
int main(void) {
  double p[64];
  int n = 64;
  #pragma omp target teams distribute parallel for map(tofrom: p[0:n])
  for (int i = 0; i < n; i++) p[i] = i;
  printf("%f\\n", p[3]);
  return 0;
}
"""


def _comment_pass(loaded):
    """A rewrite that asks for the compile checks, so clang-16 -fsyntax-only runs."""
    comment = Edit(loaded.path, 0, 0, "// reviewed by s2s\n")
    return PassOutput((comment,), (), (EditGroup("the comment", (comment,), None,
                                                 "omp-rewrite-invalid"),), check_compiles=True)


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    if shutil.which("gcc") is None:
        pytest.skip("gcc not on PATH: cannot build the test plugin")
    source = tmp_path / "plugin.c"
    source.write_text(PLUGIN_C)
    built = tmp_path / "plugin.so"
    subprocess.run(["gcc", "-shared", "-fPIC", str(source), "-o", str(built)], check=True)
    mark = tmp_path / "plugin-ran"
    monkeypatch.setenv("S2S_TEST_PLUGIN_MARK", str(mark))
    monkeypatch.setitem(registry.PASSES, "omp", _comment_pass)
    monkeypatch.chdir(tmp_path)
    clang_check._errors.cache_clear()
    (tmp_path / "prog.c").write_text(PROGRAM)
    return built, mark


@pytest.mark.skipif(shutil.which("clang-16") is None, reason="clang-16 not on PATH")
def test_plugin_after_dashdash_is_never_loaded_and_dep_file_never_written(plugin, capsys):
    built, mark = plugin
    code = main(["omp", "--check", "prog.c", "--", f"-fplugin={built}", "-MD", "-MF", "dep.d",
                 "-Xclang", "-load", "-Xclang", str(built)])
    err = capsys.readouterr().err
    assert code == 1                                  # --check: the comment would be added
    assert not mark.exists(), "the plugin's code ran"
    assert not Path("dep.d").exists(), "--check wrote a dependency file"
    assert err.count("[flags-dropped]") == 1
    assert f"'-fplugin={built}'" in err and "'-MF dep.d'" in err and "'-Xclang -load'" in err


@pytest.mark.skipif(shutil.which("clang-16") is None, reason="clang-16 not on PATH")
def test_plugin_in_compile_commands_is_never_loaded(plugin, capsys, tmp_path):
    built, mark = plugin
    entry = {"directory": str(tmp_path), "file": "prog.c",
             "arguments": ["cc", f"-fplugin={built}", "-MD", "-MF", "db.d", "-DX=1", "-c",
                           "prog.c", "-o", "prog.o"]}
    (tmp_path / "compile_commands.json").write_text(json.dumps([entry]))
    code = main(["omp", "--diff", "-p", str(tmp_path), "prog.c"])
    err = capsys.readouterr().err
    assert code == 0
    assert not mark.exists(), "the plugin's code ran"
    assert not Path("db.d").exists()
    assert "[flags-dropped]" in err and f"'-fplugin={built}'" in err


def test_relative_paths_are_anchored_where_they_were_given(tmp_path):
    from s2s.frontend.core.allowed_flags import anchored

    (tmp_path / "pre.h").write_text("")
    got = anchored(("-Iinc", "-I", "../up", "-isystem", "/abs", "-include", "pre.h",
                    "-include", "stdio.h", "-DX=inc", "--sysroot=sr"), str(tmp_path))
    assert got == (f"-I{tmp_path}/inc", "-I", str(tmp_path.parent / "up"), "-isystem", "/abs",
                   "-include", f"{tmp_path}/pre.h", "-include", "stdio.h", "-DX=inc",
                   f"--sysroot={tmp_path}/sr")
