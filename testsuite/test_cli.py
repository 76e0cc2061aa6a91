"""The CLI end to end: exit codes, diagnostics format, bad input, and the rewrite frame."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import registry

SAXPY = """\
#include <cstdio>
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main() {
  float *x, *y;
  int n = 1 << 10;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  cudaDeviceSynchronize();
  printf("done\\n");
  return 0;
}
"""


def write(tmp_path, name: str, data: str | bytes):
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def run_cli(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("s2s ")


def test_inspect_text_lists_kernel_launch_and_api_calls(tmp_path, capsys):
    src = write(tmp_path, "saxpy.cu", SAXPY)
    code, out, err = run_cli(["inspect", src], capsys)
    assert code == 0, err
    assert "saxpy" in out and "(n + 255) / 256" in out and "cudaMalloc" in out
    assert "1 file inspected" in err


def test_inspect_json_is_machine_readable(tmp_path, capsys):
    src = write(tmp_path, "saxpy.cu", SAXPY)
    code, out, _ = run_cli(["inspect", "--format", "json", src], capsys)
    assert code == 0
    report = json.loads(out)
    (entry,) = report["files"]
    assert entry["status"] == "ok"
    model = entry["model"]
    assert [k["name"] for k in model["kernels"]] == ["saxpy"]
    (launch,) = model["launches"]
    assert launch["grid"]["text"] == "(n + 255) / 256"
    assert launch["block"]["text"] == "256"
    assert [c["name"] for c in model["api_calls"]] == ["cudaMalloc", "cudaMalloc",
                                                       "cudaDeviceSynchronize"]


def assert_clean_error(err: str, path, line: int, ident: str):
    assert "Traceback" not in err
    assert f"{path}:{line}:" in err
    assert f"[{ident}]" in err
    assert "^" in err


def test_syntax_error_is_a_diagnostic_and_file_untouched(tmp_path, capsys):
    text = "int main() {\n  int x = ;\n  return 0;\n}\n"
    src = write(tmp_path, "bad.c", text)
    code, _, err = run_cli(["inspect", src], capsys)
    assert code == 1
    assert_clean_error(err, src, 2, "clang-error")
    assert "  int x = ;" in err
    assert src.read_text() == text


def test_missing_include(tmp_path, capsys):
    src = write(tmp_path, "inc.cu", '#include "not_there.h"\n__global__ void k() {}\n')
    code, _, err = run_cli(["inspect", src], capsys)
    assert code == 1
    assert_clean_error(err, src, 1, "clang-error")
    assert "not_there.h" in err


def test_empty_file_is_a_warning_not_an_error(tmp_path, capsys):
    src = write(tmp_path, "empty.cu", "")
    code, _, err = run_cli(["inspect", src], capsys)
    assert code == 0
    assert f"{src}:1:1: warning: file is empty" in err and "[empty-file]" in err


def test_binary_junk(tmp_path, capsys):
    src = write(tmp_path, "junk.cu", bytes(range(256)) * 4)
    before = src.read_bytes()
    code, _, err = run_cli(["inspect", src], capsys)
    assert code == 1
    assert "[binary-file]" in err and "Traceback" not in err
    assert src.read_bytes() == before


def test_invalid_utf8_warns_and_still_inspects(tmp_path, capsys):
    data = SAXPY.replace("#include <cstdio>", "// caf\xe9 \n#include <cstdio>").encode("latin-1")
    src = write(tmp_path, "latin.cu", data)
    code, out, err = run_cli(["inspect", src], capsys)
    assert code == 0
    assert f"{src}:1:7: warning: invalid UTF-8" in err
    assert "saxpy" in out


def test_very_long_line_is_shown_truncated(tmp_path, capsys):
    line = "int a = " + " + ".join(["1"] * 25000) + " + ;\n"
    src = write(tmp_path, "long.c", line)
    code, _, err = run_cli(["inspect", src], capsys)
    assert code == 1
    assert "[clang-error]" in err
    assert max(len(x) for x in err.splitlines()) < 400


def test_one_bad_file_does_not_stop_the_others(tmp_path, capsys):
    good = write(tmp_path, "good.cu", SAXPY)
    code, out, err = run_cli(["inspect", tmp_path / "missing.cu", good], capsys)
    assert code == 1
    assert "[no-such-file]" in err
    assert "saxpy" in out
    assert "2 files inspected, 1 failed" in err


def test_usage_error_exit_code(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["inspect", "--no-such-option", "x.cu"])
    assert exc.value.code == 2


def test_pass_not_available_yet_exits_2(tmp_path, capsys, monkeypatch):
    import s2s.cli.main  # noqa: F401  (registers every pass first)
    from s2s.transform import registry

    monkeypatch.delitem(registry.PASSES, "transfers")  # as before issue #7
    src = write(tmp_path, "saxpy.cu", SAXPY)
    code, _, err = run_cli(["transfers", src], capsys)
    assert code == 2 and "not available" in err
    assert src.read_text() == SAXPY


def test_flags_after_dashdash_reach_the_parser(tmp_path, capsys):
    src = write(tmp_path, "n.c", "int a[N];\nint main(void) { return a[0]; }\n")
    code, _, _ = run_cli(["inspect", src], capsys)
    assert code == 1
    code, out, err = run_cli(["inspect", src, "--", "-DN=8"], capsys)
    assert code == 0, err
    assert "static_array" in out


def test_compile_commands_database(tmp_path, capsys):
    src = write(tmp_path, "n.c", "int a[N];\nint main(void) { return a[0]; }\n")
    build = tmp_path / "build"
    build.mkdir()
    entry = {"directory": str(build), "file": str(src),
             "arguments": ["cc", "-DN=8", "-c", str(src), "-o", "n.o"]}
    (build / "compile_commands.json").write_text(json.dumps([entry]))
    code, out, err = run_cli(["inspect", "-p", build, src], capsys)
    assert code == 0, err
    assert "static_array" in out


def test_silence_hides_a_warning(tmp_path, capsys):
    src = write(tmp_path, "empty.cu", "")
    _, _, err = run_cli(["inspect", "--silence", "empty-*", src], capsys)
    assert "empty-file" not in err


def test_no_traceback_from_a_subprocess_on_bad_input(tmp_path):
    src = write(tmp_path, "bad.cu", "__global__ void k( {\n")
    proc = subprocess.run([sys.executable, "-m", "s2s", "inspect", str(src)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert f"{src}:1:" in proc.stderr


# --- the rewrite frame, exercised with a small pass registered by the test -------------------

def banner_pass(loaded):
    """Insert a banner comment at the top unless it is there: a real, idempotent rewrite."""
    if loaded.source.startswith(b"// optimized by s2s\n"):
        return PassOutput()
    return PassOutput(edits=(Edit(loaded.path, 0, 0, "// optimized by s2s\n"),))


@pytest.fixture
def banner(monkeypatch):
    monkeypatch.setitem(registry.PASSES, "fuse", banner_pass)


def test_rewrite_diff_applies_with_git(tmp_path, capsys, banner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "saxpy.cu", SAXPY)
    code, out, _ = run_cli(["fuse", "saxpy.cu"], capsys)
    assert code == 0
    assert out.startswith("--- a/saxpy.cu\n+++ b/saxpy.cu\n")
    assert (tmp_path / "saxpy.cu").read_text() == SAXPY
    if shutil.which("git"):
        (tmp_path / "p.diff").write_text(out)
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
        subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True)
        assert (tmp_path / "saxpy.cu").read_text() == "// optimized by s2s\n" + SAXPY


def test_rewrite_check_in_place_and_idempotence(tmp_path, capsys, banner):
    src = write(tmp_path, "saxpy.cu", SAXPY)
    os.chmod(src, 0o640)
    code, out, err = run_cli(["fuse", "--check", src], capsys)
    assert code == 1 and out == "" and "would be changed" in err
    assert src.read_text() == SAXPY
    code, _, _ = run_cli(["fuse", "--in-place", "--backup", ".orig", src], capsys)
    assert code == 0
    assert src.read_text() == "// optimized by s2s\n" + SAXPY
    assert (tmp_path / "saxpy.cu.orig").read_text() == SAXPY
    assert os.stat(src).st_mode & 0o777 == 0o640
    before = src.read_bytes()
    code, out, _ = run_cli(["fuse", "--check", src], capsys)
    assert code == 0
    assert src.read_bytes() == before
    assert not list(tmp_path.glob(".s2s-*"))


def test_rewrite_output_dir(tmp_path, capsys, banner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "saxpy.cu", SAXPY)
    code, _, _ = run_cli(["fuse", "-o", "out", "saxpy.cu"], capsys)
    assert code == 0
    assert (tmp_path / "out" / "saxpy.cu").read_text() == "// optimized by s2s\n" + SAXPY
    assert (tmp_path / "saxpy.cu").read_text() == SAXPY


def test_rewrite_refuses_a_file_with_errors(tmp_path, capsys, banner):
    text = "int main() { return x; }\n"
    src = write(tmp_path, "bad.c", text)
    code, _, err = run_cli(["fuse", "--in-place", src], capsys)
    assert code == 1 and "[clang-error]" in err
    assert src.read_text() == text


def test_no_libclang_noise_at_interpreter_exit(tmp_path):
    """Units still alive when Python exits (here: kept on a module that outlives cindex's
    globals) must not print cindex's __del__ tracebacks; they flooded a CI log."""
    src = write(tmp_path, "k.cu", SAXPY)
    (tmp_path / "test_keep.py").write_text(
        "import pytest\n"
        "from s2s.frontend.core.parse import parse_file\n"
        "def test_keep():\n"
        f"    pytest.kept = parse_file({str(src)!r})\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path / "test_keep.py")], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Exception ignored" not in proc.stdout + proc.stderr
