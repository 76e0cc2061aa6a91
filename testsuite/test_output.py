"""The output printers (s2s/output.py): diffs that real tools apply, and safe in-place writes.

The diff tests apply what ``unified_diff`` prints with ``git apply`` and GNU ``patch -p1`` and
compare the result with the bytes ``EditSet.apply`` produced, byte for byte.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from s2s.diagnostics import InputError
from s2s.edits import Edit, EditSet
from s2s.output import FileChange, diff_bytes, unified_diff, write_in_place

GIT = shutil.which("git")
PATCH = shutil.which("patch")

# Line-rich bytes: CRLF, lone CR, tabs, form feed, invalid UTF-8, lines that look like diff headers.
CHUNKS = [b"x", b"int a;", b"\n", b"\n", b"\r\n", b"\r", b"\t", b"  ", b"\xff", b"\xc3\x28", "é€".encode(),
          b"--i;", b"++i;", b"@@", b"\\", b"\x0c", b"-", b"+"]
sources = st.lists(st.sampled_from(CHUNKS), max_size=60).map(b"".join)
texts = st.sampled_from(["", "x", "\n", "\r\n", "\tfoo();\n", "--n;", "+", "é", "\udcff", "a\nb", " "])
TOOLS = ["git", "patch"]


@st.composite
def changes(draw):
    """(before, after): ``after`` made by a random EditSet over ``before``."""
    before = draw(sources)
    n = draw(st.integers(0, 5))
    points = sorted(draw(st.lists(st.integers(0, len(before)), min_size=2 * n, max_size=2 * n)))
    edits = EditSet()
    for start, end in zip(points[::2], points[1::2], strict=True):
        edits.add(Edit("f", start, end - start, draw(texts)))
    return before, edits.apply("f", before)


def apply_with(tool: str, root: str, diff: bytes) -> subprocess.CompletedProcess:
    if tool == "git":
        cmd = [GIT, "apply", "-"]
    else:
        cmd = [PATCH, "-p1", "--batch", "--no-backup-if-mismatch", "--quiet"]
    return subprocess.run(cmd, cwd=root, input=diff, capture_output=True, timeout=30)


def require(tool: str) -> None:
    if (GIT if tool == "git" else PATCH) is None:
        pytest.skip(f"{tool} is not installed: cannot check that its diffs apply")


def round_trip(tool: str, root: str, rel: str, before: bytes, after: bytes, context: int = 3) -> None:
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(before)
    text = unified_diff(FileChange(path, before, after), root=root, context=context)
    if before == after:
        assert text == ""
        return
    assert text.startswith(f"--- a/{rel}")
    result = apply_with(tool, root, diff_bytes(text))
    assert result.returncode == 0, (result.stdout + result.stderr).decode(errors="replace") + "\n" + text
    with open(path, "rb") as handle:
        assert handle.read() == after, text


@pytest.fixture(scope="module")
def repo():
    with tempfile.TemporaryDirectory() as root:
        if GIT:
            subprocess.run([GIT, "init", "-q", root], check=True)
        yield root


@pytest.mark.parametrize("tool", TOOLS)
@settings(max_examples=40, deadline=None)
@given(change=changes(), context=st.sampled_from([1, 3]))
def test_diff_applies(repo, tool, change, context):
    require(tool)
    round_trip(tool, repo, "src/kernel.cu", *change, context=context)


EXAMPLES = {
    "no-final-newline": (b"a\nb\nc", b"a\nB\nc"),
    "add-final-newline": (b"a\nb", b"a\nb\n"),
    "drop-final-newline": (b"a\nb\n", b"a\nb"),
    "crlf": (b"int a;\r\nint b;\r\n", b"int a;\r\n#pragma omp simd\r\nint b;\r\n"),
    "crlf-no-final": (b"x\r\ny", b"x\r\nz"),
    "invalid-utf8": (b"\xff\xfe\n\xc3(\n", b"\xff\xfe\n\xc3)\n"),
    "tabs": (b"\tfoo();\n\t\tbar();\n", b"\tfoo();\n\t\tbaz();\n"),
    "from-empty": (b"", b"new\n"),
    "to-empty": (b"old\n", b""),
    "decrement-last-line": (b"a\n--x;", b"a\n"),
    "increment-lines": (b"++i;\n--j;\n", b"--j;\n++i;\n"),
    "lone-cr": (b"a\rb\nc\n", b"a\rB\nc\n"),
}


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_diff_applies_examples(repo, tool, name):
    require(tool)
    round_trip(tool, repo, f"ex/{name}.c", *EXAMPLES[name])


@pytest.mark.parametrize("tool", TOOLS)
def test_diff_path_with_space(repo, tool):
    require(tool)
    round_trip(tool, repo, "my dir/a file.cu", b"a\nb\n", b"a\nc\n")


def test_diff_format():
    change = FileChange(os.path.join(os.getcwd(), "k.cu"), b"a\nb", b"a\nc")
    assert unified_diff(change) == ("--- a/k.cu\n+++ b/k.cu\n@@ -1,2 +1,2 @@\n a\n-b\n"
                                    "\\ No newline at end of file\n+c\n\\ No newline at end of file\n")
    assert unified_diff(FileChange("k.cu", b"same", b"same")) == ""


def write_file(path, data: bytes, mode: int) -> None:
    path.write_bytes(data)
    os.chmod(path, mode)


def leftovers(directory) -> list[str]:
    return glob.glob(os.path.join(directory, ".s2s-*.tmp"))


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])
def test_write_in_place_keeps_mode(tmp_path, mode):
    path = tmp_path / "k.cu"
    write_file(path, b"old\r\n", mode)
    write_in_place(FileChange(str(path), b"old\r\n", b"new\xff\r\n"))
    assert path.read_bytes() == b"new\xff\r\n"
    assert os.stat(path).st_mode & 0o7777 == mode
    assert leftovers(tmp_path) == []
    assert sorted(os.listdir(tmp_path)) == ["k.cu"]


def test_write_in_place_backup(tmp_path):
    path = tmp_path / "k.cu"
    write_file(path, b"old\n", 0o640)
    write_in_place(FileChange(str(path), b"old\n", b"new\n"), backup_suffix=".orig")
    assert path.read_bytes() == b"new\n"
    backup = tmp_path / "k.cu.orig"
    assert backup.read_bytes() == b"old\n"
    assert os.stat(backup).st_mode & 0o7777 == 0o640
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("backup", [None, ".bak"])
def test_write_in_place_failure_leaves_original(tmp_path, monkeypatch, backup):
    path = tmp_path / "k.cu"
    write_file(path, b"original\n", 0o755)

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(InputError, match="No space left on device") as caught:
        write_in_place(FileChange(str(path), b"original\n", b"rewritten\n"), backup_suffix=backup)
    assert caught.value.diagnostic.id == "write-failed"   # every OSError: one clean error
    monkeypatch.undo()
    assert path.read_bytes() == b"original\n"
    assert os.stat(path).st_mode & 0o7777 == 0o755
    assert leftovers(tmp_path) == []
    assert sorted(os.listdir(tmp_path)) == ["k.cu"]


def test_write_in_place_failure_while_writing(tmp_path, monkeypatch):
    path = tmp_path / "k.cu"
    write_file(path, b"original\n", 0o644)

    def failing_fsync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(InputError, match="Input/output error"):
        write_in_place(FileChange(str(path), b"original\n", b"rewritten\n"))
    monkeypatch.undo()
    assert path.read_bytes() == b"original\n"
    assert leftovers(tmp_path) == []


def test_unchanged_writes_nothing(tmp_path):
    path = tmp_path / "k.cu"
    write_file(path, b"same\n", 0o644)
    old = 1_000_000_000
    os.utime(path, ns=(old, old))
    write_in_place(FileChange(str(path), b"same\n", b"same\n"), backup_suffix=".orig")
    assert os.stat(path).st_mtime_ns == old
    assert sorted(os.listdir(tmp_path)) == ["k.cu"]


def test_write_in_place_missing_file(tmp_path):
    with pytest.raises(InputError):
        write_in_place(FileChange(str(tmp_path / "gone.cu"), b"a", b"b"))
    assert os.listdir(tmp_path) == []


@settings(max_examples=25, deadline=None)
@given(change=changes())
def test_write_in_place_matches_diff(change):
    """What --in-place writes is what --diff shows (both from the same FileChange)."""
    before, after = change
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "k.cu")
        with open(path, "wb") as handle:
            handle.write(before)
        write_in_place(FileChange(path, before, after))
        with open(path, "rb") as handle:
            assert handle.read() == after
        assert leftovers(root) == []
