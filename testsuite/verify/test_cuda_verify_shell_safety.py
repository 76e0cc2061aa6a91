"""``s2s verify`` builds an mgpu rewrite with nvcc, which hands parts of its command line to a
shell: no directory, file name or flag of the user's may reach that shell.

Checked on the command :func:`runtime_build_command` makes (every path plain, links standing
in for the directories that are not), on a real ``nvcc -c`` of that command, and on a whole
verify run of the saxpy sample from a directory whose name is shell code. Each test checks
that no marker file was created and that the build worked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from runtime import capi_build
from s2s import shell_safe
from s2s.cli.main import main
from s2s.diagnostics import ToolchainError
from s2s.verify.cuda_backend import runtime_build_command
from s2s.wrapper.runtime_flags import RuntimeFlags, RuntimeUnavailable, mgpu_runtime_flags

REPO = Path(__file__).resolve().parents[2]
MARKER = "PWNED"
EVIL = f"d;touch {MARKER}1;$(touch {MARKER}2) `touch {MARKER}3` 'q\"x"

KERNEL = """\
#include "k.h"
#include "u.h"
__global__ void scale(float *x) { x[threadIdx.x] *= SCALE * USER; }
static_assert(sizeof(GREETING) == 6, "the -D value arrives unchanged");
"""

need_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found on PATH")


def markers(root: Path) -> list[Path]:
    return [p for p in root.rglob(f"{MARKER}*") if p.is_file()]


@pytest.fixture
def program(tmp_path, monkeypatch):
    """A kernel in a directory named like shell code, including a header from there and one
    from a -I directory named the same way; the cwd is tmp_path."""
    monkeypatch.chdir(tmp_path)
    source_dir = tmp_path / "src" / EVIL
    include_dir = tmp_path / "inc" / EVIL
    for directory in (source_dir, include_dir):
        directory.mkdir(parents=True)
    (source_dir / "k.h").write_text("#define SCALE 2.0f\n")
    (include_dir / "u.h").write_text("#define USER 3.0f\n")
    source = source_dir / f"k;$(touch {MARKER}4).cu"
    source.write_text(KERNEL)
    workdir = tmp_path / "work"
    workdir.mkdir()
    return source, include_dir, workdir


def test_command_holds_only_plain_paths(program):
    source, include_dir, workdir = program
    flags = ["-I", str(include_dir), '-DGREETING="a;b c"']
    command, exe = runtime_build_command("nvcc", str(source), source.read_bytes(), workdir,
                                         flags, RuntimeFlags())
    quote = command[command.index("-Xcompiler") + 1]
    assert quote.startswith("-iquote,") and shell_safe.is_safe(quote.split(",", 1)[1])
    assert Path(quote.split(",", 1)[1]).resolve() == source.parent.resolve()
    include = next(a for a in command if a.startswith("-I"))
    assert shell_safe.is_safe(include[2:]) and Path(include[2:]).resolve() == include_dir.resolve()
    copy = Path(command[command.index("-o") - 1])
    assert shell_safe.is_safe(str(copy)) and copy.read_bytes() == source.read_bytes()
    assert shell_safe.is_safe(str(exe)) and exe.parent == workdir


def test_macros_nvcc_would_expand_are_refused(program):
    source, _, workdir = program
    for number, flag in enumerate((f"-DX=$(touch {MARKER})", f"-DX=`touch {MARKER}`",
                                   "-DX=a\\b", "-DX=a\nb")):
        (workdir / str(number)).mkdir()
        with pytest.raises(ToolchainError, match="hands the value to a shell"):
            runtime_build_command("nvcc", str(source), b"", workdir / str(number), [flag],
                                  RuntimeFlags())


def test_work_directory_must_be_plain(tmp_path):
    workdir = tmp_path / f"w;touch {MARKER}"
    workdir.mkdir()
    with pytest.raises(ToolchainError, match="set TMPDIR to a plain path"):
        runtime_build_command("nvcc", "k.cu", b"", workdir, [], RuntimeFlags())


@need_nvcc
def test_the_command_compiles_with_nvcc(program, tmp_path):
    """The command as built, compiling only (linking needs the runtime library)."""
    source, include_dir, workdir = program
    command, _ = runtime_build_command(shutil.which("nvcc"), str(source), source.read_bytes(),
                                       workdir, ["-I", str(include_dir), '-DGREETING="a;b c"'],
                                       RuntimeFlags())
    at = command.index("-o")
    command[at + 1] = str(workdir / "k.o")
    proc = subprocess.run([*command, "-c"], capture_output=True, text=True,
                          env=dict(os.environ, TMPDIR=str(workdir)))
    assert markers(tmp_path) == []
    assert proc.returncode == 0, proc.stderr
    assert (workdir / "k.o").is_file()


def test_runtime_paths_nvcc_would_expand_make_the_runtime_unavailable(monkeypatch):
    evil = f"/cache/x;touch {MARKER}"
    monkeypatch.setattr(capi_build, "link_flags",
                        lambda: [f"-L{evil}", "-ls2s_runtime", "-Xlinker", "-rpath", "-Xlinker",
                                 evil])
    with pytest.raises(RuntimeUnavailable, match="nvcc would hand to a shell"):
        mgpu_runtime_flags(for_nvcc=True)
    assert mgpu_runtime_flags().link[-1] == evil  # gcc and clang get them as they are


@need_nvcc
def test_verify_mgpu_from_a_directory_named_like_shell_code(tmp_path, monkeypatch, capsys):
    if shutil.which("g++") is None:
        pytest.skip("no g++ to build CUDA host code against the shim")
    try:
        capi_build.build_library()
    except Exception as error:  # noqa: BLE001 (any reason the runtime cannot be built)
        pytest.skip(f"the runtime's C interface is unavailable: {error}")
    monkeypatch.setenv("S2S_CPU_THREADS", "2")
    monkeypatch.chdir(tmp_path)
    directory = tmp_path / EVIL
    directory.mkdir()
    shutil.copy(REPO / "samples" / "cuda" / "saxpy" / "saxpy.cu", directory / "saxpy.cu")
    code = main(["verify", "--passes", "mgpu", "--args", "500", str(directory / "saxpy.cu")])
    err = capsys.readouterr().err
    assert markers(tmp_path) == []
    assert code == 0, err
    assert "1 program(s) verified: 1 same behaviour, 0 failed" in err
