"""``s2s nvcc`` against plain nvcc: same objects, dependency files, preprocessed text and
links; messages about the user's files; fallbacks; the recursion guard.

Objects differ byte for byte between two plain nvcc runs (nvcc embeds temporary file names),
so objects and programs are compared by their symbol tables (``nm``), dependency files as
text. The passes here are registered by the tests: ``banner`` inserts two lines in the middle
of a file (every later line moves, so the #line mapping, the include path and the output
fix-ups all have work to do) without changing what the code means.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import registry

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None or shutil.which("nm") is None,
                                reason="nvcc or nm not found on PATH")

REPO = Path(__file__).resolve().parents[2]
ARCH = "-arch=sm_90"

KERNEL_H = "#pragma once\n#define SCALE 2.0f\nvoid launch(float *x, int n);\n"
KERNEL_CU = """\
#include <cuda_runtime.h>
#include "k.h"
// the banner pass inserts its lines above this one
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= SCALE;
}
void launch(float *x, int n) { scale<<<(n + 255) / 256, 256>>>(x, n); }
"""
MAIN_CU = """\
#include <cuda_runtime.h>
#include "k.h"
// the banner pass inserts its lines above this one
int main() {
  float *x;
  cudaMalloc(&x, 64 * sizeof(float));
  launch(x, 64);
  return cudaDeviceSynchronize() != cudaSuccess;
}
"""
WARNS_CU = """\
#include "k.h"
// the banner pass inserts its lines above this one
__global__ void g(float *x) {
  int unused_here;
  x[0] = SCALE;
}
"""
ERROR_CU = WARNS_CU.replace("x[0] = SCALE;", "x[0] = SCALE + not_declared;")


def banner(loaded):
    at = loaded.source.index(b"// the banner pass")
    return PassOutput((Edit(loaded.path, at, 0, "/* inserted by s2s */\n/* two lines */\n"),))


def broken(loaded):
    at = loaded.source.index(b"// the banner pass")
    return PassOutput((Edit(loaded.path, at, 0, "this is not C++;\n"),))


def crashing(loaded):
    raise RuntimeError("a bug in the pass")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A tiny CUDA project; the cwd is its root, passes come from S2S_PASSES only."""
    src = tmp_path / "src"
    src.mkdir()
    for name, text in (("k.h", KERNEL_H), ("k.cu", KERNEL_CU), ("main.cu", MAIN_CU),
                       ("warns.cu", WARNS_CU), ("error.cu", ERROR_CU)):
        (src / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    for name in ("S2S_WRAPPED", "S2S_REAL_NVCC", "S2S_SILENCE", "S2S_VERBOSE", "S2S_PASSES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setitem(registry.PASSES, "fuse", banner)
    monkeypatch.setitem(registry.PASSES, "broken", broken)
    monkeypatch.setitem(registry.PASSES, "crashing", crashing)
    return tmp_path


def plain(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["nvcc", *args], capture_output=True, text=True)


def wrapped(capfd, passes: str, *args: str) -> tuple[int, str, str]:
    code = main(["nvcc", f"--s2s-passes={passes}", "--s2s-verbose", *args])
    out, err = capfd.readouterr()
    return code, out, err


def symbols(path: str) -> list[str]:
    """Defined and undefined symbols with their types (addresses left out)."""
    listing = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    return sorted(line[17:] for line in listing.splitlines())


def test_compile_and_dependencies_match_plain_nvcc(project, capfd):
    flags = [ARCH, "-MD", "-MP", "-MT", "k.o", "-c", "src/k.cu"]
    reference = plain(*flags, "-MF", "plain.d", "-o", "plain.o")
    assert reference.returncode == 0, reference.stderr
    code, _, err = wrapped(capfd, "none", *flags, "-MF", "off.d", "-o", "off.o")
    assert code == 0, err
    code, _, err = wrapped(capfd, "fuse", *flags, "-MF", "on.d", "-o", "on.o")
    assert code == 0, err
    assert "1 of 1 sources changed" in err  # the copy really was compiled
    for name in ("off", "on"):
        assert symbols(f"{name}.o") == symbols("plain.o")
        assert Path(f"{name}.d").read_text() == Path("plain.d").read_text()
    assert "src/k.h" in Path("on.d").read_text()  # found next to the original, as before


def test_default_dependency_file_name(project, capfd):
    code, _, err = wrapped(capfd, "fuse", ARCH, "-MMD", "-c", "src/k.cu")
    assert code == 0, err
    text = Path("k.d").read_text()
    assert text.startswith("k.o : src/k.cu") and "s2s-wrap" not in text


def test_generate_dependencies_to_stdout(project, capfd):
    reference = plain(ARCH, "-M", "src/k.cu")
    code, out, err = wrapped(capfd, "fuse", ARCH, "-M", "src/k.cu")
    assert code == 0, err
    assert out == reference.stdout


def test_preprocess(project, capfd):
    reference = plain(ARCH, "-E", "src/k.cu")
    code, out, err = wrapped(capfd, "fuse", ARCH, "-E", "src/k.cu")
    assert code == 0, err
    assert "s2s-wrap" not in out

    def code_lines(text: str) -> list[str]:
        return [line for line in text.splitlines()
                if line.strip() and not re.match(r"#(line)? *\d+ ", line)]

    assert code_lines(out) == code_lines(reference.stdout)
    code, _, err = wrapped(capfd, "fuse", ARCH, "-E", "src/k.cu", "-o", "k.ii")
    assert code == 0 and "s2s-wrap" not in Path("k.ii").read_text()


def test_link_matches_plain_nvcc(project, capfd):
    reference = plain(ARCH, "src/k.cu", "src/main.cu", "-o", "plain_prog")
    assert reference.returncode == 0, reference.stderr
    code, _, err = wrapped(capfd, "fuse", ARCH, "src/k.cu", "src/main.cu", "-o", "prog")
    assert code == 0, err
    assert "2 of 2 sources changed" in err
    assert symbols("prog") == symbols("plain_prog")
    # A link of objects only has no sources to rewrite: nvcc gets the command as given.
    assert plain(ARCH, "-c", "src/k.cu", "-o", "k.o").returncode == 0
    assert plain(ARCH, "-c", "src/main.cu", "-o", "main.o").returncode == 0
    code, _, err = wrapped(capfd, "fuse", ARCH, "k.o", "main.o", "-o", "prog2")
    assert code == 0 and "sources changed" not in err
    assert symbols("prog2") == symbols("plain_prog")


def test_messages_name_the_users_file_and_line(project, capfd):
    code, _, err = wrapped(capfd, "fuse", ARCH, "-c", "src/warns.cu", "-o", "w.o")
    assert code == 0, err
    assert "1 of 1 sources changed" in err
    # line 4 of the user's file, though the compiled copy has it on line 7
    assert 'src/warns.cu(4): warning #177-D: variable "unused_here"' in err
    from_nvcc = [line for line in err.splitlines() if not line.startswith("s2s nvcc:")]
    assert not [line for line in from_nvcc if "s2s-wrap" in line]


INCLUDER_CU = """\
#include "part.cu"
// the banner pass inserts its lines above this one
int main() { return part(); }
"""
PART_CU = """\
// the banner pass inserts its lines above this one
static int part() {
  int unused_in_part;
  return 0;
}
"""


def banner_with_part(loaded):
    """banner, and the same two lines in ``part.cu``, which the source includes as text (as
    mgpu rewrites an included .cu file's launches in place)."""
    part = os.path.join(os.path.dirname(loaded.path), "part.cu")
    text = Path(part).read_bytes()
    lines = "/* inserted by s2s */\n/* two lines */\n"
    return PassOutput(banner(loaded).edits + (Edit(part, text.index(b"// the banner"), 0, lines),))


def test_messages_in_a_rewritten_included_file_name_it_and_its_line(project, capfd, monkeypatch):
    (project / "src" / "includer.cu").write_text(INCLUDER_CU)
    (project / "src" / "part.cu").write_text(PART_CU)
    monkeypatch.setitem(registry.PASSES, "fuse", banner_with_part)
    code, _, err = wrapped(capfd, "fuse", ARCH, "-c", "src/includer.cu", "-o", "i.o")
    assert code == 0, err
    # line 3 of part.cu, though the compiled copy has it on line 5 and includer.cu is the source
    assert 'src/part.cu(3): warning #177-D: variable "unused_in_part"' in err, err
    assert (project / "src" / "part.cu").read_text() == PART_CU      # the user's tree as it was


def test_errors_in_the_users_code_are_nvccs_own(project, capfd):
    reference = plain(ARCH, "-c", "src/error.cu", "-o", "e.o")
    code, _, err = wrapped(capfd, "fuse", ARCH, "-c", "src/error.cu", "-o", "e.o")
    assert code == reference.returncode != 0
    assert "src/error.cu(5): error" in err and "wrapper-" not in err


def test_rewrite_that_does_not_compile_falls_back_to_the_original(project, capfd):
    code, _, err = wrapped(capfd, "broken", ARCH, "-c", "src/k.cu", "-o", "k.o")
    assert code == 0 and Path("k.o").is_file()
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "[wrapper-rewrite-failed]" in warnings[0]
    assert "src/k.cu(3)" in warnings[0]  # the compiler's first error, at the user's line


def test_failing_pass_falls_back_with_one_warning(project, capfd):
    code, _, err = wrapped(capfd, "crashing", ARCH, "-c", "src/k.cu", "-o", "k.o")
    assert code == 0 and Path("k.o").is_file()
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "a bug in the pass" in warnings[0]
    assert warnings[0].endswith("compiled the original sources unchanged [wrapper-fallback]")


def test_unsupported_option_falls_back(project, capfd):
    Path("opts.txt").write_text(f"{ARCH}\n")
    code, _, err = wrapped(capfd, "fuse", "--options-file", "opts.txt", "-c", "src/k.cu",
                           "-o", "k.o")
    assert code == 0 and Path("k.o").is_file()
    assert "'--options-file': options read from a file are not visible" in err
    # When the original command fails as well, nvcc's own message is all there is to say.
    code, _, err = wrapped(capfd, "fuse", "--no-such-option", "-c", "src/k.cu")
    assert code == plain("--no-such-option", "-c", "src/k.cu").returncode != 0
    assert "nvcc fatal   : Unknown option '--no-such-option'" in err and "warning" not in err


def test_unavailable_pass_warns_and_compiles_the_original(project, capfd, monkeypatch):
    import s2s.cli.main  # noqa: F401  (registers every pass first)
    from s2s.transform import registry

    monkeypatch.delitem(registry.PASSES, "transfers")  # as before issue #7
    code, out, err = wrapped(capfd, "transfers,nonsense", ARCH, "-E", "src/k.cu")
    assert code == 0 and "__global__" not in out and "scale" in out
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "unknown pass 'nonsense'" in warnings[0] and "'transfers' (issue #7)" in warnings[0]


def test_bad_wrapper_option_falls_back(project, capfd):
    code = main(["nvcc", "--s2s-pases=fuse", ARCH, "-E", "src/k.cu"])
    out, err = capfd.readouterr()
    assert code == 0 and "scale" in out
    assert "unknown wrapper option '--s2s-pases=fuse'" in err and "[wrapper-fallback]" in err


def _s2s_env(tmp_path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), S2S_PASSES="none")
    env.pop("S2S_WRAPPED", None)
    env.pop("S2S_REAL_NVCC", None)
    return env


def _looping_nvcc(tmp_path) -> Path:
    """An 'nvcc' on PATH that is the wrapper again (a common way to install a wrapper)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "nvcc"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m s2s nvcc "$@"\n')
    script.chmod(0o755)
    return script


def test_recursion_guard_reaches_the_real_nvcc(tmp_path):
    script = _looping_nvcc(tmp_path)
    env = _s2s_env(tmp_path)
    env["PATH"] = f"{script.parent}{os.pathsep}{env['PATH']}"
    proc = subprocess.run([str(script), "--version"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Cuda compilation tools" in proc.stdout


def test_recursion_guard_stops_a_configured_loop(tmp_path):
    script = _looping_nvcc(tmp_path)
    env = _s2s_env(tmp_path)
    env["S2S_REAL_NVCC"] = str(script)
    proc = subprocess.run([sys.executable, "-m", "s2s", "nvcc", "--version"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "is the wrapper itself or leads back to it" in proc.stderr


def test_running_under_the_name_nvcc(tmp_path):
    s2s_script = Path(sys.executable).parent / "s2s"
    if not s2s_script.is_file():
        pytest.skip("no s2s console script next to the Python interpreter")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "nvcc").symlink_to(s2s_script)
    env = _s2s_env(tmp_path)
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    proc = subprocess.run([str(bindir / "nvcc"), "--version"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Cuda compilation tools" in proc.stdout


def test_no_real_nvcc_is_an_error(tmp_path):
    env = _s2s_env(tmp_path)
    env["PATH"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "s2s", "nvcc", "--version"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no real nvcc found on PATH" in proc.stderr


def test_a_bug_outside_the_passes_still_falls_back(project, capfd, monkeypatch):
    """Whatever fails inside s2s (here: the rewrite step itself), the build goes on with the
    original sources."""
    from s2s.wrapper import launcher

    def broken(*_args, **_kwargs):
        raise RuntimeError("a bug in the rewrite step")

    monkeypatch.setattr(launcher, "rewrite_source", broken)
    code, _, err = wrapped(capfd, "fuse", ARCH, "-c", "src/k.cu", "-o", "k.o")
    assert code == 0 and Path("k.o").is_file()
    assert "internal error in s2s (RuntimeError: a bug in the rewrite step)" in err
    assert "Traceback" not in err
