"""The three printers of one edit set: in place, unified diff, and check.

All three start from the same (path, original bytes, new bytes) triples produced by applying
an :class:`~s2s.edits.EditSet`, so what ``--diff`` shows is exactly what ``--in-place`` writes
and what ``--check`` reports.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass

from s2s import user_files
from s2s.diagnostics import InputError, UsageError
from s2s.edits import Edit, beside_name
from s2s.user_files import file_kind


@dataclass(frozen=True)
class FileChange:
    """The original and rewritten bytes of one file, and the edits that made one of the other
    (what ``--format json``/``sarif`` and ``s2s report`` print: the same edit set as the diff)."""

    path: str
    before: bytes
    after: bytes
    edits: tuple[Edit, ...] = ()
    #: the file does not exist yet: a pass generates it (``before`` is empty; the diff comes
    #: from /dev/null, and writing it refuses a file that appeared meanwhile)
    created: bool = False

    @property
    def changed(self) -> bool:
        return self.before != self.after


def write_in_place(change: FileChange, backup_suffix: str | None = None,
                   force: bool = False) -> None:
    """Replace ``change.path`` atomically: temp file in the same directory, fsync, rename.

    A symbolic link is followed: its target is rewritten (and the backup lands beside the
    target), the link stays a link. The file's permission bits are kept. With
    ``backup_suffix`` the original is first written to ``target + backup_suffix``. The
    user's file is never left half-written: on any error the temp file is removed and the
    original stays untouched. Raises InputError for a read-only file or one with several
    hard links (a rename would give this name a new file and leave the others with the old
    text), unless ``force``. Just before the rename the file must still be what was read
    (size, modification time, SHA-256): a line saved into it while s2s ran is never lost
    (``[file-changed]``).
    """
    if not change.changed:
        return
    target = os.path.realpath(change.path)
    info = _stat(change.path)
    if not force:
        refusal = in_place_refusal(change.path, info)
        if refusal:
            raise InputError(refusal, id="in-place-refused")
    mode = stat.S_IMODE(info.st_mode)
    if backup_suffix:
        write_output(target + backup_suffix, change.before, mode, follow_link=False)
    write_output(target, change.after, mode,
                 unchanged=lambda: user_files.check_unchanged(change.path, target, change.before))


def write_generated(change: FileChange, target: str | None = None) -> None:
    """Write a file a pass generates beside its source (mgpu's kernel table): at its place
    (``--in-place``; unchanged: nothing to write) or at ``target`` (``-o DIR``, always, as the
    copies are). In place, the file must still be what the pass read just before the rename:
    absent for a file it creates (one that appeared meanwhile may be the user's), the same
    bytes for a table it rewrites (``[file-changed]``)."""
    if target is not None:
        write_output(target, change.after, make_parents=True)
        return
    if not change.changed:
        return

    def unchanged() -> None:
        if not change.created:
            user_files.check_unchanged(change.path, change.path, change.before)
        elif os.path.lexists(change.path):
            raise InputError(f"{change.path} appeared while s2s was running; not overwritten, "
                             "as it may be yours: run s2s again", id="file-changed")

    write_output(change.path, change.after, unchanged=unchanged)


def write_rewritten(change: FileChange, generated: tuple[FileChange, ...], target: str) -> None:
    """``change``'s rewritten text at ``target`` and the files generated with it (mgpu's
    kernel table) beside it under their own names, which the text includes: what a build of
    the rewrite in another folder needs (the benchmarks, the tests)."""
    write_output(target, change.after, make_parents=True)
    for each in generated:
        write_output(os.path.join(os.path.dirname(target), beside_name(each.path, change.path)),
                     each.after, make_parents=True)


def in_place_refusal(path: str, info: os.stat_result | None = None) -> str | None:
    """Why ``--in-place`` leaves ``path`` alone without ``--force`` (None: it may write)."""
    info = info or _stat(path)
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) \
            or not os.access(path, os.W_OK):
        return (f"{path} is read-only; not rewritten (--force rewrites it and keeps its "
                "permissions)")
    if info.st_nlink > 1:
        return (f"{path} has {info.st_nlink} hard links; rewriting it would give this name a new "
                "file and leave the other names with the old text (-o DIR writes a copy; "
                "--force replaces this name only)")
    return None


def _stat(path: str) -> os.stat_result:
    try:
        return os.stat(path)
    except OSError as exc:
        raise InputError(f"cannot stat {path}: {exc.strerror}") from exc


def output_copies(paths: list[str], output_dir: str, root: str | None = None) -> dict[str, str]:
    """Where ``-o DIR`` writes each input: DIR/<path relative to ``root``> (the current
    directory), DIR/<base name> for inputs outside it.

    Raises UsageError, before anything is written, when DIR is not a directory, when two
    inputs would land on one copy, or when a copy would overwrite an input.
    """
    if os.path.exists(output_dir) and not os.path.isdir(output_dir):
        raise UsageError(f"-o {output_dir}: exists and is not a directory")
    root = root or os.getcwd()
    inputs = {os.path.realpath(p) for p in paths}
    targets: dict[str, str] = {}
    owner: dict[str, str] = {}
    for path in paths:
        rel = os.path.relpath(os.path.abspath(path), root)
        if rel.startswith(".."):
            rel = os.path.basename(path)
        target = os.path.join(output_dir, rel)
        real = os.path.realpath(target)
        if real in inputs or (os.path.exists(target) and _same_as_any(target, paths)):
            raise UsageError(f"-o {output_dir}: the copy of {path} would overwrite the input "
                             f"{target}; give another directory (or --in-place)")
        first = owner.setdefault(real, path)
        if os.path.realpath(first) != os.path.realpath(path):
            raise UsageError(f"-o {output_dir}: {first} and {path} would both be written to "
                             f"{target}; run s2s from a directory that holds both")
        targets[path] = target
    return targets


def _same_as_any(target: str, paths: list[str]) -> bool:
    """``target`` is one of ``paths`` through a hard link."""
    for path in paths:
        try:
            if os.path.samefile(target, path):
                return True
        except OSError:
            continue
    return False


class _PendingWrites:
    """Temp files being written right now, so a signal can remove them before the process ends.

    The rewriting runs on a worker thread (:mod:`s2s.deep_stack`) while signal handlers run on
    the main thread: ``atomic_write``'s own cleanup never runs when SIGTERM ends the process,
    so the handler calls :meth:`discard`, which also refuses every later write.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._paths: set[str] = set()
        self._closed = False

    def create(self, directory: str) -> tuple[int, str]:
        with self._lock:
            if self._closed:
                raise InterruptedError("s2s is being stopped: no more files are written")
            fd, tmp = tempfile.mkstemp(prefix=".s2s-", suffix=".tmp", dir=directory)
            self._paths.add(tmp)
            return fd, tmp

    def done(self, tmp: str) -> None:
        with self._lock:
            self._paths.discard(tmp)

    def reopen(self) -> None:
        """Allow writes again (a new run in the same process, as the tests make)."""
        with self._lock:
            self._closed = False

    def discard(self) -> None:
        with self._lock:
            self._closed = True
            for tmp in self._paths:
                _unlink_quietly(tmp)
            self._paths.clear()


PENDING = _PendingWrites()


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_output(path: str, data: bytes, mode: int | None = None, *,
                 make_parents: bool = False, follow_link: bool = True,
                 unchanged: Callable[[], None] | None = None) -> None:
    """The one writer of every file s2s writes for the user: ``--in-place`` and its backup,
    the copies of ``-o DIR``, ``report -o FILE``, the wrapper's dependency files.

    Only regular files are replaced: a device node (``-o /dev/null`` as root would turn it
    into a file), a FIFO or a directory is refused with ``[output-not-regular]``; a symbolic
    link is written through (its target rewritten, the link kept), as ``--in-place`` does.
    A name s2s makes up itself (a backup: ``follow_link=False``) is never followed: a link
    there is refused, or a planted ``k.c.orig -> ~/.bashrc`` would be overwritten.
    ``mode`` defaults to the existing file's permission bits, else 0644. ``unchanged`` runs
    just before the rename and raises to keep the file as it is. Every OSError (unwritable
    folder, full disk) becomes ``[write-failed]`` naming the file; the temp file is removed.
    """
    if not follow_link and os.path.islink(path):
        raise InputError(f"cannot write {path}: it is a symbolic link, not followed for a file "
                         "s2s names itself", id="output-not-regular")
    target = output_target(path)
    try:
        if make_parents:
            os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        if mode is None:
            mode = stat.S_IMODE(os.stat(target).st_mode) if os.path.exists(target) else 0o644
        atomic_write(target, data, mode, unchanged)
    except OSError as error:
        raise InputError(f"cannot write {path}: {error.strerror or error}",
                         id="write-failed") from error


def output_target(path: str) -> str:
    """The file ``path`` names for writing (a link's target); InputError when that is not a
    regular file or a name not taken yet."""
    target = os.path.realpath(path) if os.path.islink(path) else path
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return target
    except OSError as error:
        raise InputError(f"cannot write {path}: {error.strerror or error}",
                         id="write-failed") from error
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"cannot write {path}: it is a directory", id="output-not-regular")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"cannot write {path}: not a regular file ({file_kind(info.st_mode)}); "
                         "s2s replaces regular files only", id="output-not-regular")
    return target


def atomic_write(path: str, data: bytes, mode: int,
                 unchanged: Callable[[], None] | None = None) -> None:
    """Write ``data`` to ``path`` through a temp file in the same directory, fsync, rename
    (call :func:`write_output`, which checks what ``path`` is, rather than this)."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = PENDING.create(directory)
    try:
        with os.fdopen(fd, "wb", buffering=0) as handle:
            _write_all(handle.fileno(), data)
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if unchanged is not None:
            unchanged()
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    finally:
        PENDING.done(tmp)
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until all of ``data`` is out (a short write is not an error; ENOSPC is)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def unified_diff(change: FileChange, root: str | None = None, context: int = 3) -> str:
    """A unified diff with ``a/`` and ``b/`` prefixes that ``git apply`` and ``patch -p1`` accept.

    Paths are shown relative to ``root`` (default: the current directory). Bytes that are not
    UTF-8 survive the round trip (surrogateescape), and a last line without a newline gets the
    ``\\ No newline at end of file`` marker.
    """
    if not change.changed:
        return ""
    rel = os.path.relpath(os.path.abspath(change.path), root or os.getcwd()).replace(os.sep, "/")
    old = diff_lines(change.before)
    new = diff_lines(change.after)
    # A name with a space ends with a tab, as git writes it, or `patch` stops at the space.
    end = "\t\n" if " " in rel else "\n"
    out = []
    # a file that does not exist yet comes from /dev/null (git apply and patch create it)
    names = "/dev/null" if change.created else quote_path(f"a/{rel}"), quote_path(f"b/{rel}")
    for i, line in enumerate(difflib.unified_diff(old, new, *names, n=context)):
        if i < 2:  # the two file headers (a removed "--x;" also starts with "---")
            out.append(line.rstrip("\n") + end)
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


_C_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r",
              34: '\\"', 92: "\\\\"}


def quote_path(path: str) -> str:
    """``path`` as git writes it in diff headers: unchanged when plain, else in double quotes
    with C escapes (``\\t``, ``\\n``, ``\\"``, ``\\\\``) and octal for control and non-ASCII
    bytes. ``git apply`` and GNU ``patch`` both read it back; a raw newline would end the
    header line."""
    raw = os.fsencode(path)
    if not any(b < 0x20 or b >= 0x7F or b in (34, 92) for b in raw):
        return path
    parts = []
    for b in raw:
        if b in _C_ESCAPES:
            parts.append(_C_ESCAPES[b])
        elif b < 0x20 or b >= 0x7F:
            parts.append(f"\\{b:03o}")
        else:
            parts.append(chr(b))
    return '"' + "".join(parts) + '"'


def diff_lines(data: bytes) -> list[str]:
    """Split on ``\\n`` only (str.splitlines would also split on \\r, \\f and others)."""
    text = data.decode("utf-8", errors="surrogateescape")
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


_DIFF_COLORS = (("+++", "\033[1m"), ("---", "\033[1m"), ("@@", "\033[36m"), ("+", "\033[32m"),
                ("-", "\033[31m"))


def colored_diff(diff: str) -> str:
    """A unified diff for a terminal: headers bold, hunks cyan, added lines green, removed red
    (as ``git diff --color``); the text between the escapes is the diff unchanged."""
    out = []
    for line in diff.splitlines(keepends=True):
        body = line.rstrip("\n")
        color = next((c for prefix, c in _DIFF_COLORS if body.startswith(prefix)), None)
        out.append(f"{color}{body}\033[0m{line[len(body):]}" if color else line)
    return "".join(out)


def diff_bytes(text: str) -> bytes:
    """Encode a diff produced by :func:`unified_diff` back to the file's original bytes."""
    return text.encode("utf-8", errors="surrogateescape")
