"""Hostile and careless input (issue 16): deep nesting, special files, -o collisions, write
errors, --in-place on links and read-only files, CRLF files, signals, odd file names.

Rewrites use a small registered pass (a banner comment) so each test is about the frame, not
about an analysis; the CRLF test runs the real OpenMP pass.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from s2s.cli.main import main
from s2s.driver import PassOutput
from s2s.edits import Edit
from s2s.transform import registry

ROOT = Path(__file__).resolve().parents[1]
KERNEL = "int twice(int x) { return 2 * x; }\n"
BANNER = "// optimized by s2s\n"


def banner_pass(loaded):
    """Insert a banner comment at the top unless it is there: a real, idempotent rewrite."""
    if loaded.source.startswith(BANNER.encode()):
        return PassOutput()
    return PassOutput(edits=(Edit(loaded.path, 0, 0, BANNER),))


@pytest.fixture
def banner(monkeypatch):
    monkeypatch.setitem(registry.PASSES, "fuse", banner_pass)


def run_cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def s2s(*args: str, cwd: Path, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    """The installed command in a child process (a crash must show as its exit status)."""
    return subprocess.run([sys.executable, "-m", "s2s", *args], cwd=cwd, capture_output=True,
                          text=True, errors="replace", timeout=timeout, **kwargs)


# --- 2. deep nesting: an error or a result, never a crash -----------------------------------

def test_deep_parentheses_do_not_crash(tmp_path):
    """1300 nested parentheses overflowed libclang's 8 MiB parse stack (exit 139, no message)."""
    depth = 1300
    write(tmp_path / "deep.c", "int f(int x) { return " + "(" * depth + "x" + ")" * depth + "; }\n")
    proc = s2s("inspect", "deep.c", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert "f " in proc.stdout or "│ f" in proc.stdout


def test_bracket_depth_beyond_clang_limit_is_a_file_error(tmp_path):
    depth = 5000
    write(tmp_path / "deeper.c", "int f(int x) { return " + "(" * depth + "x" + ")" * depth + "; }\n")
    write(tmp_path / "ok.c", KERNEL)
    proc = s2s("inspect", "deeper.c", "ok.c", cwd=tmp_path)
    assert proc.returncode == 1
    assert "deeper.c:1:" in proc.stderr and "bracket nesting level" in proc.stderr
    assert "twice" in proc.stdout  # the other file still processed
    assert "Traceback" not in proc.stderr


def test_thousand_nested_blocks_are_analysed(tmp_path, capsys):
    """1000 nested blocks raised RecursionError in the model (a traceback, exit 0)."""
    depth = 1000
    src = write(tmp_path / "blocks.c", "void f(int *x) { " + "{" * depth + "x[0]++;" + "}" * depth
                + " }\n")
    code, out, err = run_cli(["inspect", str(src)], capsys)
    assert code == 0, err
    assert "Traceback" not in err and "RecursionError" not in err


def test_recursion_in_libclangs_callbacks_is_the_one_diagnostic(tmp_path, capfd, monkeypatch):
    """A 40,000-term sum in a CUDA kernel exceeded the recursion limit inside libclang's
    ``get_children`` visitor (a ctypes callback): Python printed each RecursionError's traceback
    on stderr and the walk went on with children missing. Here the limit is lowered so a
    3,000-term sum meets it the same way: the file ends in the one ``nesting-too-deep`` error.
    (``inspect --access``: plain ``inspect`` builds no kernel bodies, so it never meets the sum.)"""
    from s2s import deep_stack

    monkeypatch.setattr(deep_stack, "RECURSION_LIMIT", 2500)
    src = write(tmp_path / "sum.cu", "__global__ void k(float *x, float *y) { y[threadIdx.x] = "
                + "+".join(["x[threadIdx.x]"] * 3000) + "; }\n")
    for command in (["inspect", "--access"], ["fuse", "--diff"]):
        code = main([*command, str(src)])
        out, err = capfd.readouterr()
        assert code == 1, err
        assert "[nesting-too-deep]" in err, err[-2000:]
        assert "Traceback" not in err and "Exception ignored" not in err, err[-2000:]


def test_inspect_json_of_deep_nesting_stays_readable(tmp_path, capsys):
    """1,200 nested ``else if`` made a model whose JSON nested deeper than Python's json reads
    (fuzz seed 78224577: 2,500 levels, 129 MB): the deepest parts are left out, with a warning."""
    import json

    chain = "".join(f"if (x == {i}) y = {i}; else " for i in range(1200)) + "y = -1;"
    src = write(tmp_path / "chain.c", "int f(int x) { int y; " + chain + " return y; }\n")
    code, out, err = run_cli(["inspect", "--format", "json", str(src)], capsys)
    assert code == 0, err
    document = json.loads(out)
    assert "[json-depth]" in err and "Traceback" not in err
    assert document["files"][0]["model"]["functions"][0]["name"] == "f"
    assert '"Omitted"' in out


# --- 6. special files and size --------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_fifo_and_devices_are_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "pipe.c")
    write(tmp_path / "ok.c", KERNEL)
    proc = s2s("inspect", "pipe.c", "/dev/zero", "ok.c", cwd=tmp_path, timeout=60)
    assert proc.returncode == 1
    assert "not a regular file (a FIFO): pipe.c [not-a-regular-file]" in proc.stderr
    assert "not a regular file (a character device): /dev/zero" in proc.stderr
    assert "twice" in proc.stdout


def test_size_limit(tmp_path, capsys, monkeypatch):
    from s2s.frontend.core import parse

    monkeypatch.setattr(parse, "MAX_SOURCE_BYTES", 1000)
    src = write(tmp_path / "big.c", KERNEL * 100)
    code, _, err = run_cli(["inspect", str(src)], capsys)
    assert code == 1
    assert "more than the 1,000 bytes s2s reads" in err and "[file-too-large]" in err


# --- 3. -o DIR never overwrites silently ------------------------------------------------------

def test_output_dir_same_base_name_is_a_usage_error(tmp_path, capsys, banner, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    a = write(tmp_path / "a" / "k.c", KERNEL)
    b = write(tmp_path / "b" / "k.c", KERNEL)
    code, _, err = run_cli(["fuse", "-o", "out", str(a), str(b)], capsys)
    assert code == 2
    assert "would both be written to out/k.c" in err and "[usage]" in err
    assert not (work / "out").exists()  # nothing written


def test_output_dir_onto_the_inputs_is_a_usage_error(tmp_path, capsys, banner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = write(tmp_path / "k.c", KERNEL)
    code, _, err = run_cli(["fuse", "-o", ".", "k.c"], capsys)
    assert code == 2 and "would overwrite the input" in err
    assert src.read_text() == KERNEL
    (tmp_path / "out").mkdir()
    os.link(src, tmp_path / "out" / "k.c")  # the copy's name is a hard link to the input
    code, _, err = run_cli(["fuse", "-o", "out", "k.c"], capsys)
    assert code == 2 and "would overwrite the input" in err
    assert src.read_text() == KERNEL


def test_output_dir_that_is_a_file_is_a_usage_error(tmp_path, capsys, banner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "k.c", KERNEL)
    write(tmp_path / "out", "not a directory\n")
    code, _, err = run_cli(["fuse", "-o", "out", "k.c"], capsys)
    assert code == 2 and "exists and is not a directory" in err and "Traceback" not in err


# --- 4. write errors fail one file, the others go on ---------------------------------------

def test_write_error_fails_only_that_file(tmp_path, capsys, banner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a.c", KERNEL)
    write(tmp_path / "sub" / "b.c", KERNEL)
    write(tmp_path / "c.c", KERNEL)
    write(tmp_path / "out" / "sub", "a file where the copy's directory should be\n")
    code, _, err = run_cli(["fuse", "-o", "out", "a.c", "sub/b.c", "c.c"], capsys)
    assert code == 1
    assert "cannot write" in err and "[write-failed]" in err and "Traceback" not in err
    assert (tmp_path / "out" / "a.c").read_text() == BANNER + KERNEL
    assert (tmp_path / "out" / "c.c").read_text() == BANNER + KERNEL


def test_disk_full_in_place_fails_that_file_and_leaves_it_whole(tmp_path, capsys, banner,
                                                                monkeypatch):
    a = write(tmp_path / "a.c", KERNEL)
    b = write(tmp_path / "b.c", KERNEL)
    real_fsync = os.fsync
    calls = []

    def full_once(fd):
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full_once)
    code, _, err = run_cli(["fuse", "--in-place", str(a), str(b)], capsys)
    assert code == 1
    assert "No space left on device" in err and "a.c is left as it was" in err
    assert a.read_text() == KERNEL
    assert b.read_text() == BANNER + KERNEL
    assert not list(tmp_path.glob(".s2s-*"))


# --- 5. --in-place through links, hard links and read-only files ---------------------------

def test_in_place_writes_through_a_symlink(tmp_path, capsys, banner):
    target = write(tmp_path / "real" / "k.c", KERNEL)
    link = tmp_path / "link.c"
    link.symlink_to(target)
    code, _, err = run_cli(["fuse", "--in-place", "--backup", ".orig", str(link)], capsys)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == BANNER + KERNEL
    assert (tmp_path / "real" / "k.c.orig").read_text() == KERNEL  # beside the target
    assert not (tmp_path / "link.c.orig").exists()


def test_in_place_refuses_hard_links_unless_forced(tmp_path, capsys, banner):
    src = write(tmp_path / "k.c", KERNEL)
    other = tmp_path / "other.c"
    os.link(src, other)
    code, _, err = run_cli(["fuse", "--in-place", str(src)], capsys)
    assert code == 1 and "has 2 hard links" in err and "[in-place-refused]" in err
    assert src.read_text() == KERNEL and other.read_text() == KERNEL
    code, _, err = run_cli(["fuse", "--in-place", "--force", str(src)], capsys)
    assert code == 0, err
    assert src.read_text() == BANNER + KERNEL and other.read_text() == KERNEL


def test_in_place_refuses_read_only_files_unless_forced(tmp_path, capsys, banner):
    src = write(tmp_path / "k.c", KERNEL)
    os.chmod(src, 0o444)
    code, _, err = run_cli(["fuse", "--in-place", str(src)], capsys)
    assert code == 1 and "is read-only" in err
    assert src.read_text() == KERNEL
    code, _, err = run_cli(["fuse", "--in-place", "--force", str(src)], capsys)
    assert code == 0, err
    assert src.read_text() == BANNER + KERNEL
    assert os.stat(src).st_mode & 0o777 == 0o444


def test_force_needs_in_place(tmp_path, capsys, banner):
    src = write(tmp_path / "k.c", KERNEL)
    code, _, err = run_cli(["fuse", "--force", str(src)], capsys)
    assert code == 2 and "--force only makes sense with --in-place" in err


# --- 7. CRLF files get CRLF lines ----------------------------------------------------------

def test_lines_inserted_into_a_crlf_file_use_crlf(tmp_path, capsys):
    text = (ROOT / "samples/openmp/matmul/matmul.c").read_bytes()
    assert b"\r" not in text
    src = write(tmp_path / "matmul.c", text.replace(b"\n", b"\r\n"))
    code, _, err = run_cli(["omp", "--in-place", str(src)], capsys)
    assert code == 0, err
    after = src.read_bytes()
    assert b"#pragma omp target" in after and after != text.replace(b"\n", b"\r\n")
    assert after.count(b"\n") == after.count(b"\r\n")  # no bare LF
    code, _, _ = run_cli(["omp", "--check", str(src)], capsys)
    assert code == 0  # idempotent


# --- 8. signals and odd names ----------------------------------------------------------------

SLOW_WRITE = textwrap.dedent("""\
    import os, sys, time
    from s2s.cli.main import main
    from s2s.driver import PassOutput
    from s2s.edits import Edit
    from s2s.transform import registry
    registry.PASSES["fuse"] = lambda loaded: PassOutput(edits=(Edit(loaded.path, 0, 0, "// x\\n"),))
    real_fsync = os.fsync
    def slow_fsync(fd):
        print("writing", flush=True)
        time.sleep(60)
        real_fsync(fd)
    os.fsync = slow_fsync
    sys.exit(main(["fuse", "--in-place", sys.argv[1]]))
    """)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_sigterm_during_in_place_write_leaves_no_temp_file(tmp_path, signum):
    src = write(tmp_path / "k.c", KERNEL)
    script = write(tmp_path / "slow.py", SLOW_WRITE)
    # SIGINT as in a terminal (a shell's background job starts with it ignored)
    proc = subprocess.Popen([sys.executable, str(script), str(src)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline().strip() == "writing"
        assert list(tmp_path.glob(".s2s-*.tmp"))  # the write is under way
        proc.send_signal(signum)
        code = proc.wait(timeout=20)
    finally:
        proc.kill()
    assert code == 128 + signum
    assert ("interrupted" if signum == signal.SIGINT else "stopped by signal") in proc.stderr.read()
    assert not list(tmp_path.glob(".s2s-*"))
    assert src.read_text() == KERNEL


@pytest.mark.parametrize("name", ["tab\there.c", "new\nline.c", 'quote"back\\slash.c'])
def test_diff_of_odd_file_names_applies(tmp_path, capsys, banner, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / name, KERNEL)
    code, out, err = run_cli(["fuse", name], capsys)
    assert code == 0, err
    header = out.splitlines()[:2]
    assert header[0].startswith('--- "a/') and header[1].startswith('+++ "b/')
    (tmp_path / "p.diff").write_text(out)
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
        subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True)
        assert (tmp_path / name).read_text() == BANNER + KERNEL
        (tmp_path / name).write_text(KERNEL)
    if shutil.which("patch"):
        subprocess.run(["patch", "-s", "-p1", "-i", "p.diff"], cwd=tmp_path, check=True)
        assert (tmp_path / name).read_text() == BANNER + KERNEL



@pytest.mark.parametrize("command", ["inspect", "omp", "mgpu", "report"])
def test_a_file_name_that_is_not_utf8_is_a_clean_error(tmp_path, capsys, command):
    """Issue 32: a non-UTF-8 file name was an internal error in every subcommand (libclang's
    bindings encode names as UTF-8); now it is the file's own error, with its reason."""
    name = os.fsdecode(bytes(tmp_path) + b"/bad\xff.c")
    write(Path(name), "int main(void) { return 0; }\n")
    argv = [command, name] + (["-o", str(tmp_path / "r.html")] if command == "report" else [])
    code, _out, err = run_cli(argv, capsys)
    assert "[file-name-encoding]" in err and "bad\\xff.c" in err
    assert "[internal]" not in err and "Traceback" not in err
    assert code == 1


def test_an_invalid_utf8_byte_on_a_pragma_line_is_kept(tmp_path, capsys):
    """Issue 32: a byte that is not UTF-8 in a comment on a '#pragma omp' line ended in an
    internal error when the clause was rewritten; the line's bytes are now kept as they are."""
    path = write(tmp_path / "prag.c", b"void f(double *a, int n) {\n"
                 b"#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) /* \xff */\n"
                 b"  for (int i = 0; i < n; i++) a[i] = 1;\n}\n")
    code, out, err = run_cli(["omp", "--in-place", str(path)], capsys)
    assert code == 0 and "[internal]" not in err, err
    assert b"/* \xff */" in path.read_bytes()
