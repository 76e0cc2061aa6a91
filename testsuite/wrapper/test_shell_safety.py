"""No directory or file name reaches a shell through what ``s2s nvcc`` adds to a command.

nvcc runs its host compiler through ``sh -c`` and puts ``-Xcompiler`` values into that command
line bare, so a source directory named ``e;touch PWNED;f`` passed as
``-Xcompiler -iquote,<dir>`` ran ``touch``. Every test here builds from a directory (or file)
whose name is made of shell syntax, then checks two things: no marker file was created
anywhere, and the build worked with the header found next to the user's source (it is only
there, so the rewritten copy finds it only through the wrapper's quote path).

The wrapper runs in-process (the ``banner`` pass registered by monkeypatch) or, for CMake,
through a small script that registers the same pass and calls ``s2s``'s ``main``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import registry
from s2s.wrapper.outputs import make_escape

REPO = Path(__file__).resolve().parents[2]
ARCH = "-arch=sm_90"
MARKER = "PWNED"

#: directory names that are shell syntax; each would run `touch PWNED` (or break the
#: command) if a shell saw it unquoted
EVIL_DIRS = {
    "semicolon": f"e;touch {MARKER};f",
    "command-substitution": f"d$(touch {MARKER})x",
    "backquotes": f"b`touch {MARKER}`x",
    "quotes": f"q'x\"y;touch {MARKER}",
    "blank-and-newline": f"s p\nn;touch {MARKER}",
    "comma": "c,o,mma",
}
#: file names nvcc itself quotes safely (it puts file names in double quotes)
SAFE_FOR_NVCC_FILE = "k;x 'y.cu"

KERNEL = """\
#include "k.h"
// the banner pass inserts its line above this one
__global__ void scale(float *x) { x[threadIdx.x] *= SCALE; }
"""

HELPER = """\
import sys
sys.path.insert(0, {repo!r})
from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import registry

def banner(loaded):
    return PassOutput((Edit(loaded.path, 0, 0, "/* rewritten by s2s */\\n"),))

registry.PASSES["fuse"] = banner
sys.exit(main(sys.argv[1:]))
"""

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found on PATH")


def banner(loaded):
    at = loaded.source.index(b"// the banner pass")
    return PassOutput((Edit(loaded.path, at, 0, "/* inserted by s2s */\n"),))


@pytest.fixture
def project(tmp_path, monkeypatch):
    """The cwd: an empty project root; nvcc's own temp files go to a directory of the test."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    for name in ("S2S_WRAPPED", "S2S_REAL_NVCC", "S2S_SILENCE", "S2S_VERBOSE", "S2S_PASSES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setitem(registry.PASSES, "fuse", banner)
    return root


def markers(root: Path) -> list[Path]:
    return [p for p in root.rglob(f"{MARKER}*") if p.is_file()]


def make_sources(directory: Path, source_name: str = "k.cu") -> Path:
    directory.mkdir(parents=True)
    (directory / "k.h").write_text("#pragma once\n#define SCALE 2.0f\n")
    source = directory / source_name
    source.write_text(KERNEL)
    return source


def wrapped(capfd, *args: str) -> tuple[int, str]:
    code = main(["nvcc", "--s2s-passes=fuse", "--s2s-verbose", *args])
    return code, capfd.readouterr().err


@pytest.mark.parametrize("name", EVIL_DIRS.values(), ids=EVIL_DIRS.keys())
def test_source_directory_names_reach_no_shell(project, capfd, name):
    source = make_sources(Path("src", name), SAFE_FOR_NVCC_FILE)
    code, err = wrapped(capfd, ARCH, "-MD", "-MF", "out.d", "-c", str(source), "-o", "out.o")
    assert markers(project.parent) == []
    assert code == 0, err
    assert "1 of 1 sources changed" in err and "wrapper-" not in err  # no fallback
    assert Path("out.o").is_file()
    deps = Path("out.d").read_bytes()
    assert make_escape(os.fsencode(f"src/{name}/k.h")) in deps  # found next to the original
    assert b"s2s-wrap" not in deps
    assert (project / "src" / name / "k.h").is_file()  # cleaning up kept the user's files


def test_messages_name_the_users_header(project, capfd):
    """Diagnostics about a header found through the wrapper's link name the real directory."""
    name = EVIL_DIRS["semicolon"]
    source = make_sources(Path("src", name))
    Path("src", name, "k.h").write_text("#pragma once\n#define SCALE 2.0f\n"
                                        "static int unused_in_header(void) { return 0; }\n"
                                        "#warning from the header\n")
    code, err = wrapped(capfd, ARCH, "-c", str(source), "-o", "out.o")
    assert code == 0, err
    assert f"src/{name}/k.h:4:2: warning: #warning from the header" in err
    assert "s2s-wrap" not in "\n".join(line for line in err.splitlines()
                                       if not line.startswith("s2s nvcc:"))
    assert markers(project.parent) == []


def test_unsafe_temp_directory_is_not_used(project, capfd, monkeypatch, tmp_path):
    """TMPDIR with shell syntax in it: the wrapper's copies and links go elsewhere."""
    evil_tmp = tmp_path / f"t;touch {MARKER};$(touch {MARKER}2)"
    evil_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(evil_tmp))
    monkeypatch.setattr("tempfile.tempdir", None)
    source = make_sources(Path("src", EVIL_DIRS["blank-and-newline"]))
    code, err = wrapped(capfd, ARCH, "-c", str(source), "-o", "out.o")
    assert markers(tmp_path) == []
    assert code == 0, err
    assert "1 of 1 sources changed" in err and "wrapper-" not in err
    assert list(evil_tmp.iterdir()) == []


def test_launcher_form(project, capfd):
    """``s2s /path/to/nvcc ...`` (CMake's compiler launcher) takes the same care."""
    nvcc = shutil.which("nvcc")
    source = make_sources(Path("src", EVIL_DIRS["command-substitution"]), SAFE_FOR_NVCC_FILE)
    code = main(["--s2s-passes=fuse", "--s2s-verbose", nvcc, ARCH, "-c", str(source),
                 "-o", "out.o"])
    err = capfd.readouterr().err
    assert markers(project.parent) == []
    assert code == 0, err
    assert "1 of 1 sources changed" in err and Path("out.o").is_file()


def _recording_nvcc(directory: Path) -> Path:
    """A stand-in nvcc that writes its arguments, one per NUL-terminated entry."""
    script = directory / "nvcc"
    script.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done '
                      f'> "{directory}/args"\n')
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("name", ["k$(touch PWNED).cu", "k`touch PWNED`.cu", 'k"q.cu',
                                  "k\\$HOME.cu", "k\nl.cu"])
def test_file_names_nvcc_would_expand_are_passed_on_as_given(project, capfd, monkeypatch,
                                                            tmp_path, name):
    """nvcc puts file names in double quotes without escaping ``$`` or backquotes (plain nvcc
    runs them); the wrapper cannot rename the user's source without renaming its outputs, so
    it adds nothing: nvcc gets the user's command exactly."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("S2S_REAL_NVCC", str(_recording_nvcc(bindir)))
    source = make_sources(Path("src"), name)
    args = [ARCH, "-c", str(source), "-o", "out.o"]
    code, err = wrapped(capfd, *args)
    assert code == 0, err
    assert (bindir / "args").read_bytes().split(b"\0")[:-1] == [os.fsencode(a) for a in args]
    assert "[wrapper-fallback]" in err and "shell" in err


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("ninja") is None,
                    reason="cmake or ninja not found")
def test_cmake_launcher_in_a_directory_named_like_shell_code(tmp_path):
    """A CMake build with s2s as the CUDA compiler launcher, the project under a directory
    with a blank and the source under one with ``;`` (both fine for plain nvcc and CMake)."""
    project = tmp_path / "p x"
    source_dir = project / "src" / f"a;touch {MARKER};b"
    make_sources(source_dir)
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(t LANGUAGES CUDA)\n"
        "set(CMAKE_CUDA_ARCHITECTURES 90)\n"
        f'add_library(kernels OBJECT "src/a\\;touch {MARKER}\\;b/k.cu")\n')
    helper = tmp_path / "s2s_with_banner.py"
    helper.write_text(HELPER.format(repo=str(REPO)))
    env = dict(os.environ, S2S_PASSES="fuse", S2S_VERBOSE="1")
    for name in ("S2S_WRAPPED", "S2S_REAL_NVCC", "S2S_SILENCE"):
        env.pop(name, None)
    build = project / "build"
    configure = subprocess.run(
        ["cmake", "-S", str(project), "-B", str(build), "-G", "Ninja",
         f"-DCMAKE_CUDA_COMPILER_LAUNCHER={sys.executable};{helper}"],
        env=env, capture_output=True, text=True, timeout=300)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    result = subprocess.run(["cmake", "--build", str(build), "-v"], env=env,
                            capture_output=True, text=True, timeout=300)
    log = result.stdout + result.stderr
    assert markers(tmp_path) == [], log
    assert result.returncode == 0, log
    assert "1 of 1 sources changed" in log and "wrapper-" not in log
    assert len(list(build.rglob("k.cu.o"))) == 1


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("kind", ["semicolon", "command-substitution", "backquotes"])
def test_fuse_resource_measurement_runs_no_shell_syntax(tmp_path, monkeypatch, kind):
    """The fuse pass measures registers with ``nvcc --resource-usage``; it passed the source
    directory as ``-I<dir>`` (nvcc does not escape backquotes there) and the file's own name."""
    from s2s.analysis.fuse import resources as fuse_resources

    evil = tmp_path / EVIL_DIRS[kind]
    evil.mkdir()
    (evil / "k.h").write_text("#define SCALE 2.0f\n")
    source = b'#include "k.h"\n__global__ void k(float *a) { a[threadIdx.x] *= SCALE; }\n'
    monkeypatch.setenv("S2S_CPU_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    usage = fuse_resources.resource_usage(source, str(evil / "k.cu"), ("k",))
    assert not list(tmp_path.rglob(f"{MARKER}*"))
    assert usage is not None and "k" in usage  # the header was found: it compiled
