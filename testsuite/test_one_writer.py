"""Issue 32 items 1 and 3: every file s2s writes goes through one writer.

Regular files only (a device node, a FIFO or a directory given as an output is refused, a
symbolic link written through), every OSError a clean ``error: ... [id]`` (no traceback), and
``--in-place`` never replaces a file that changed after it was read. The full disk and the
read-only folder are real: a tiny tmpfs mounted for the test (skipped where mounting is not
allowed; the monkeypatched ENOSPC test runs everywhere).
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
from pathlib import Path

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import registry

KERNEL = "int twice(int x) { return 2 * x; }\n"
BANNER = "// optimized by s2s\n"
OMP = """#include <stdio.h>
int main(void) {
  double a[32];
  #pragma omp target teams distribute parallel for map(tofrom: a[0:32])
  for (int i = 0; i < 32; i++) a[i] = i;
  printf("%f\\n", a[1]);
  return 0;
}
"""


def banner_pass(loaded):
    if loaded.source.startswith(BANNER.encode()):
        return PassOutput()
    return PassOutput(edits=(Edit(loaded.path, 0, 0, BANNER),))


@pytest.fixture
def banner(monkeypatch):
    monkeypatch.setitem(registry.PASSES, "fuse", banner_pass)


@pytest.fixture
def program(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.c").write_text(OMP)
    return tmp_path / "prog.c"


def report(target: str | Path, capsys) -> tuple[int, str]:
    code = main(["report", "-q", "-o", str(target), "prog.c"])
    return code, capsys.readouterr().err


def mounted(where: Path, *options: str):
    """Mount a tmpfs at ``where`` (skip when this machine does not allow it)."""
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(options), "tmpfs",
                           str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode})")


@pytest.fixture
def tiny_fs(tmp_path):
    where = tmp_path / "tiny"
    mounted(where, "size=8k")
    yield where
    subprocess.run(["umount", "-l", str(where)], check=False)


@pytest.fixture
def read_only_fs(tmp_path):
    where = tmp_path / "ro"
    mounted(where, "size=64k", "ro")
    yield where
    subprocess.run(["umount", "-l", str(where)], check=False)


# --- item 1: what an output may be ---------------------------------------------------------

def test_report_refuses_a_fifo_and_leaves_it(program, capsys):
    fifo = program.parent / "pipe"
    os.mkfifo(fifo)
    code, err = report(fifo, capsys)
    assert code == 1
    assert "not a regular file (a FIFO)" in err and "[output-not-regular]" in err
    assert "Traceback" not in err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_report_refuses_a_device_node(program, capsys, tmp_path):
    """``-o /dev/null`` as root would turn the device into a file; a node of our own (root
    makes one here; elsewhere /dev/null itself, which a non-root user cannot replace)."""
    node = Path("/dev/null")
    if os.geteuid() == 0:
        node = tmp_path / "null"
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    code, err = report(node, capsys)
    assert code == 1 and "a character device" in err and "[output-not-regular]" in err
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_report_onto_an_existing_folder_is_a_clean_error(program, capsys):
    folder = program.parent / "out"
    folder.mkdir()
    code, err = report(folder, capsys)
    assert code == 1 and "it is a directory" in err and "Traceback" not in err
    assert folder.is_dir() and not list(folder.iterdir())


def test_report_writes_through_a_symlink(program, capsys):
    real = program.parent / "pages" / "r.html"
    real.parent.mkdir()
    real.write_text("old")
    link = program.parent / "r.html"
    link.symlink_to(real)
    code, err = report(link, capsys)
    assert code == 0, err
    assert link.is_symlink() and real.read_text().startswith("<!")


def test_report_into_a_read_only_folder_is_a_clean_error(program, capsys, read_only_fs):
    code, err = report(read_only_fs / "r.html", capsys)
    assert code == 1 and "Read-only file system" in err and "[write-failed]" in err
    assert "Traceback" not in err


def test_report_onto_a_full_disk_is_a_clean_error(program, capsys, tiny_fs):
    (tiny_fs / "filler").write_bytes(b"x" * 4096)
    code, err = report(tiny_fs / "r.html", capsys)
    assert code == 1 and "No space left on device" in err and "[write-failed]" in err
    assert "Traceback" not in err
    assert sorted(p.name for p in tiny_fs.iterdir()) == ["filler"]     # no temp file left


def test_full_disk_simulated_where_mounting_is_not_allowed(program, capsys, monkeypatch):
    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    code, err = report(program.parent / "r.html", capsys)
    monkeypatch.undo()
    assert code == 1 and "No space left on device" in err and "[write-failed]" in err
    assert not (program.parent / "r.html").exists()
    assert not list(program.parent.glob(".s2s-*"))


def test_output_dir_copy_onto_a_fifo_is_refused(tmp_path, capsys, banner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.c").write_text(KERNEL)
    (tmp_path / "out").mkdir()
    os.mkfifo(tmp_path / "out" / "a.c")
    code = main(["fuse", "-o", "out", "a.c"])
    err = capsys.readouterr().err
    assert code == 1 and "[output-not-regular]" in err and "a.c is left as it was" in err
    assert stat.S_ISFIFO(os.lstat(tmp_path / "out" / "a.c").st_mode)


def test_in_place_onto_a_full_disk_keeps_the_file(tmp_path, capsys, banner, tiny_fs):
    src = tiny_fs / "k.c"
    src.write_text(KERNEL)
    (tiny_fs / "filler").write_bytes(b"x" * (8192 - 4096))
    code = main(["fuse", "--in-place", str(src)])
    err = capsys.readouterr().err
    assert code == 1 and "No space left on device" in err and "Traceback" not in err
    assert src.read_text() == KERNEL


def test_backup_onto_a_directory_is_refused(tmp_path, capsys, banner):
    src = tmp_path / "k.c"
    src.write_text(KERNEL)
    (tmp_path / "k.c.orig").mkdir()
    code = main(["fuse", "--in-place", "--backup", ".orig", str(src)])
    err = capsys.readouterr().err
    assert code == 1 and "[output-not-regular]" in err
    assert src.read_text() == KERNEL


def test_backup_onto_a_symbolic_link_is_refused_not_followed(tmp_path, capsys, banner):
    src = tmp_path / "k.c"
    src.write_text(KERNEL)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (tmp_path / "k.c.orig").symlink_to(victim)
    code = main(["fuse", "--in-place", "--backup", ".orig", str(src)])
    err = capsys.readouterr().err
    assert code == 1 and "symbolic link" in err and "[output-not-regular]" in err
    assert victim.read_text() == "keep me\n" and src.read_text() == KERNEL


# --- item 3: a file changed while s2s ran is never replaced ---------------------------------

def _saving_pass(change):
    """A pass during which "the editor saves the file": ``change(path)`` runs between the read
    and the rename."""
    def run(loaded):
        change(loaded.path)
        return banner_pass(loaded)
    return run


def test_in_place_keeps_a_line_saved_while_s2s_ran(tmp_path, capsys, monkeypatch):
    src = tmp_path / "k.c"
    src.write_text(KERNEL)

    def save(path):
        with open(path, "a") as handle:
            handle.write("int saved_meanwhile;\n")

    monkeypatch.setitem(registry.PASSES, "fuse", _saving_pass(save))
    code = main(["fuse", "--in-place", str(src)])
    err = capsys.readouterr().err
    assert code == 1 and "changed while s2s was running" in err and "[file-changed]" in err
    assert str(src) in err
    assert src.read_text() == KERNEL + "int saved_meanwhile;\n"


def test_in_place_refuses_same_size_other_bytes_and_a_moved_mtime(tmp_path, capsys, monkeypatch):
    src = tmp_path / "k.c"
    src.write_text(KERNEL)
    def same_size_same_mtime(path):
        was = os.stat(path).st_mtime_ns
        Path(path).write_text(KERNEL.replace("2", "3"))
        os.utime(path, ns=(was, was))

    for change, why in ((same_size_same_mtime, "bytes differ"),
                        (lambda p: os.utime(p, ns=(1, 10**18)), "modification time moved")):
        monkeypatch.setitem(registry.PASSES, "fuse", _saving_pass(change))
        code = main(["fuse", "--in-place", str(src)])
        err = capsys.readouterr().err
        assert code == 1 and why in err and "[file-changed]" in err
        assert not src.read_text().startswith(BANNER)
        src.write_text(KERNEL)


def test_a_write_between_the_check_inputs_and_the_rename_is_seen(tmp_path, capsys, banner,
                                                                 monkeypatch):
    """The injected write lands after the temp file is written (its fsync), i.e. just before
    the rename: the check runs last."""
    src = tmp_path / "k.c"
    src.write_text(KERNEL)
    real_fsync = os.fsync

    def fsync_then_save(fd):
        real_fsync(fd)
        if src.read_text() == KERNEL:
            with open(src, "a") as handle:
                handle.write("// saved\n")

    monkeypatch.setattr(os, "fsync", fsync_then_save)
    code = main(["fuse", "--in-place", str(src)])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 1 and "[file-changed]" in err
    assert src.read_text() == KERNEL + "// saved\n"
    assert not list(tmp_path.glob(".s2s-*"))
