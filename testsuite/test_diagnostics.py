"""Diagnostics: the printer's format, carets, silencing and counts; the input checks and libclang
diagnostics of the front end (s2s/diagnostics.py, s2s/frontend/core/parse.py)."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from s2s.diagnostics import (
    MAX_SHOWN_LINE,
    Diagnostic,
    DiagnosticPrinter,
    EditConflict,
    InputError,
    InternalError,
    Location,
    Severity,
    UsageError,
    silenced_from_env,
)


def printer(**kw) -> DiagnosticPrinter:
    return DiagnosticPrinter(stream=io.StringIO(), **kw)


def excerpt(tmp_path, line: bytes, column: int, before: bytes = b"") -> tuple[str, str]:
    """The shown source line and caret line for ``column`` of ``line`` (after ``before``)."""
    path = tmp_path / "src.cu"
    path.write_bytes(before + line + b"\nnext line\n")
    lineno = before.count(b"\n") + 1
    text = printer().render(Diagnostic.warning("msg", "some-id", Location(str(path), lineno, column)))
    headline, shown, caret = text.rstrip("\n").split("\n")
    assert headline == f"{path}:{lineno}:{column}: warning: msg [some-id]"
    return shown, caret


def caret_index(caret: str) -> int:
    assert caret.endswith("^") and set(caret[:-1]) <= {" ", "\t"}
    return len(caret) - 1


def test_headline_format(tmp_path):
    diag = Diagnostic.error("undeclared identifier 'n'", "clang-error", Location("a/b.cu", 12, 7))
    assert diag.headline() == "a/b.cu:12:7: error: undeclared identifier 'n' [clang-error]"
    assert Diagnostic.warning("w", "x").headline() == "warning: w [x]"
    assert Diagnostic.note("n").headline() == "note: n [note]"
    assert diag.to_json() == {"severity": "error", "message": "undeclared identifier 'n'",
                              "id": "clang-error", "file": "a/b.cu", "line": 12, "column": 7}


def test_caret_plain(tmp_path):
    shown, caret = excerpt(tmp_path, b"int x = y + 1;", 9, before=b"// one\r\n// two\n")
    assert shown == "int x = y + 1;"
    assert caret == " " * 8 + "^"


def test_caret_keeps_tabs(tmp_path):
    shown, caret = excerpt(tmp_path, b"\t\tfoo(\tbar);", 8)
    assert shown == "\t\tfoo(\tbar);"
    assert caret == "\t\t    \t^"
    assert shown[caret_index(caret)] == "b"


def test_caret_after_multibyte_utf8(tmp_path):
    line = "/* é€ */ x = 1;".encode()
    shown, caret = excerpt(tmp_path, line, line.index(b"x") + 1)
    assert shown == "/* é€ */ x = 1;"
    assert shown[caret_index(caret)] == "x"


def test_caret_after_invalid_utf8_and_crlf(tmp_path):
    line = b"\xff\xfe \xc3( y\r"
    shown, caret = excerpt(tmp_path, line, line.index(b"y") + 1)
    assert not shown.endswith("\r")
    assert shown[caret_index(caret)] == "y"


def test_control_characters_shown_as_question_marks(tmp_path):
    shown, caret = excerpt(tmp_path, b"a\x1bb\x0cc z", 7)
    assert shown == "a?b?c z" and shown[caret_index(caret)] == "z"


@pytest.mark.parametrize("at", [0, 10, 50_000, 99_990, 99_999])
def test_long_line_is_truncated_around_caret(tmp_path, at):
    line = bytearray(b"abcdefghij" * 10_000)
    line[at] = ord("@")
    shown, caret = excerpt(tmp_path, bytes(line), at + 1)
    assert len(shown) <= MAX_SHOWN_LINE + 10
    assert shown[caret_index(caret)] == "@"


def test_caret_past_end_of_line(tmp_path):
    shown, caret = excerpt(tmp_path, b"  int x = 1", 12)
    assert caret_index(caret) == 11


CHUNKS = [b"a", b"int", b" ", b"\t", "é".encode(), "€".encode(), "😀".encode(), b"\xff", b"\xc3",
          b"\xe2\x82", b"\x1b", b"\r"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=st.lists(st.sampled_from(CHUNKS), max_size=12).map(b"".join),
       pad=st.sampled_from([0, 0, 150, 400]),
       suffix=st.lists(st.sampled_from(CHUNKS), max_size=12).map(b"".join))
def test_caret_points_at_the_column(tmp_path, prefix, pad, suffix):
    """Whatever precedes the column (tabs, UTF-8, invalid bytes, long runs), the caret is under it."""
    line = b"x" * pad + prefix + b"@" + suffix
    if line.endswith(b"\r"):
        line += b";"
    shown, caret = excerpt(tmp_path, line, pad + len(prefix) + 1)
    at = caret_index(caret)
    assert shown[at] == "@"
    assert len(shown) <= MAX_SHOWN_LINE
    assert all((c == "\t") == (s == "\t") for c, s in zip(caret[:at], shown, strict=False))


def test_no_excerpt_without_source(tmp_path):
    p = printer()
    missing = Diagnostic.error("m", "e", Location(str(tmp_path / "gone.cu"), 1, 1))
    assert p.render(missing) == f"{tmp_path / 'gone.cu'}:1:1: error: m [e]\n"
    (tmp_path / "short.cu").write_bytes(b"one\n")
    beyond = Diagnostic.error("m", "e", Location(str(tmp_path / "short.cu"), 9, 1))
    assert p.render(beyond).count("\n") == 1
    assert printer(show_source=False).render(
        Diagnostic.error("m", "e", Location(str(tmp_path / "short.cu"), 1, 1))).count("\n") == 1


def test_notes_rendered_after(tmp_path):
    (tmp_path / "k.cu").write_bytes(b"a;\nb;\n")
    where = str(tmp_path / "k.cu")
    note = Diagnostic.note("declared here", at=Location(where, 2, 1))
    diag = Diagnostic(Severity.ERROR, "bad", "x", Location(where, 1, 1), (note,))
    lines = printer().render(diag).splitlines()
    assert lines == [f"{where}:1:1: error: bad [x]", "a;", "^", f"{where}:2:1: note: declared here [note]",
                     "b;", "^"]


def test_source_is_read_once(tmp_path):
    path = tmp_path / "k.cu"
    path.write_bytes(b"old;\n")
    p = printer()
    p.render(Diagnostic.error("m", "e", Location(str(path), 1, 1)))
    path.write_bytes(b"new;\n")
    assert "old;" in p.render(Diagnostic.error("m", "e", Location(str(path), 1, 1)))


def test_silencing_hides_warnings_never_errors():
    p = printer(silenced=("clang-*", "macro-expansion"))
    assert p.emit(Diagnostic.warning("w", "clang-unused-variable")) is False
    assert p.emit(Diagnostic.warning("w", "macro-expansion")) is False
    assert p.emit(Diagnostic.error("e", "clang-error")) is True
    assert p.emit(Diagnostic.error("e", "macro-expansion")) is True
    assert p.emit(Diagnostic.warning("w", "template-body")) is True
    out = p.stream.getvalue()
    assert "clang-unused-variable" not in out and out.count("[macro-expansion]") == 1
    assert p.counts == {"error": 2, "warning": 1, "note": 0}
    assert p.summary() == "2 errors, 1 warning"


def test_silence_hint_once_per_id():
    p = printer()
    for ident in ("a-id", "b-id", "a-id", "a-id"):
        p.emit(Diagnostic.warning("w", ident))
    p.emit(Diagnostic.error("e", "err-id"))
    out = p.stream.getvalue()
    assert out.count("silence this warning with --silence a-id") == 1
    assert out.count("silence this warning with --silence b-id") == 1
    assert "--silence err-id" not in out
    assert re.search(r"\[a-id\]\nnote: silence this warning with --silence a-id\n", out)


def test_summary_counts():
    p = printer()
    assert p.summary() == ""
    p.emit(Diagnostic.warning("w", "x"))
    assert p.summary() == "1 warning"
    p.emit(Diagnostic.error("e", "y"))
    p.emit(Diagnostic.note("n"))
    assert p.summary() == "1 error, 1 warning"
    assert p.counts["note"] == 1


def test_silenced_from_env(monkeypatch):
    monkeypatch.setenv("S2S_SILENCE", " clang-*, ,macro-expansion ")
    assert silenced_from_env() == ("clang-*", "macro-expansion")
    monkeypatch.delenv("S2S_SILENCE")
    assert silenced_from_env() == ()


def test_error_classes_carry_diagnostics():
    err = EditConflict("overlap", Location("f.cu", 3, 4))
    assert err.diagnostic.id == "edit-conflict" and err.exit_code == 2
    assert InputError("x", id="binary-file").diagnostic.id == "binary-file"
    assert UsageError("u").exit_code == 2 and InternalError("i").exit_code == 2
    assert InputError("x").exit_code == 1 and str(InputError("msg")) == "msg"


# --- front end input checks and libclang diagnostics -------------------------------------------


@pytest.fixture(scope="module")
def parse():
    pytest.importorskip("clang.cindex")
    from s2s.frontend.core import parse

    return parse


def where(diag: Diagnostic) -> tuple[int, int]:
    return diag.location.line, diag.location.column


def test_read_source_binary_file(tmp_path, parse):
    path = tmp_path / "blob.cu"
    path.write_bytes(b"int a;\r\nint \0b;\n")
    with pytest.raises(InputError) as info:
        parse.read_source(str(path))
    diag = info.value.diagnostic
    assert diag.id == "binary-file" and diag.location.file == str(path)
    assert where(diag) == (2, 5)


def test_read_source_missing(tmp_path, parse):
    with pytest.raises(InputError) as info:
        parse.read_source(str(tmp_path / "nothere.cu"))
    assert info.value.diagnostic.id == "no-such-file"
    with pytest.raises(InputError) as info:
        parse.read_source(str(tmp_path))
    assert info.value.diagnostic.id == "no-such-file"


@pytest.mark.parametrize("data", [b"", b"  \n\t\r\n"])
def test_input_warning_empty(parse, data):
    (diag,) = parse.input_warnings("e.c", data)
    assert diag.id == "empty-file" and diag.severity is Severity.WARNING and where(diag) == (1, 1)


def test_input_warning_invalid_utf8(parse):
    (diag,) = parse.input_warnings("u.c", b"int a;\r\n// caf\xc3\xa9 \xff\n")  # valid é, then 0xff
    assert diag.id == "invalid-utf8" and where(diag) == (2, 10)
    assert parse.input_warnings("ok.c", "int é;\n".encode()) == []


def test_parse_syntax_error(tmp_path, parse):
    path = tmp_path / "syn.c"
    path.write_bytes(b"int main(void) {\n  int x = 1\n  return x;\n}\n")
    parsed = parse.parse_file(str(path))
    errors = [d for d in parsed.diagnostics if d.is_error]
    assert parsed.has_errors and errors[0].id == "clang-error"
    assert errors[0].location.file == str(path) and where(errors[0]) == (2, 12)
    text = printer().render(errors[0])
    assert text.splitlines()[1:] == ["  int x = 1", " " * 11 + "^"]


def test_parse_missing_include(tmp_path, parse):
    path = tmp_path / "inc.c"
    path.write_bytes(b"// top\n#include <stdio.h>\n#include \"nothere.h\"\nint main(void) { return 0; }\n")
    parsed = parse.parse_file(str(path))
    errors = [d for d in parsed.diagnostics if d.is_error]
    assert errors and "nothere.h" in errors[0].message
    assert errors[0].location.file == str(path) and where(errors[0]) == (3, 10)


def test_parse_file_rejects_binary(tmp_path, parse):
    path = tmp_path / "blob.c"
    path.write_bytes(b"\0\0\0")
    with pytest.raises(InputError) as info:
        parse.parse_file(str(path))
    assert info.value.diagnostic.id == "binary-file" and where(info.value.diagnostic) == (1, 1)


def _left(name: str, line: int, ident: str = "omp-left-unmapped") -> Diagnostic:
    return Diagnostic.warning(f"this target region still uses '{name}' without a mapping "
                              f"(see line {line + 1})", ident, Location("prog.c", line, 3))


def test_near_duplicates_are_shown_once_with_their_places():
    p = printer()
    batch = [_left(f"p{k}", 10 + 3 * k) for k in range(15)]
    batch.insert(3, _left("q", 99, "omp-not-mapped"))          # another id: its own line
    batch.insert(5, Diagnostic.error("no such 'x'", "parse-error", Location("prog.c", 7, 1)))
    batch.append(Diagnostic.error("no such 'y'", "parse-error", Location("prog.c", 8, 1)))
    assert p.emit_all(batch) == 4
    out = p.stream.getvalue()
    assert out.count("[omp-left-unmapped]") == 1 and out.count("[omp-not-mapped]") == 1
    assert out.count("[parse-error]") == 2                      # errors are never collapsed
    assert out.startswith("prog.c:10:3: warning: this target region still uses 'p0'")
    lines = ", ".join(str(13 + 3 * k) for k in range(12))
    assert f"note: (and 14 more like this at lines {lines}, ...)\n" in out
    assert out.index("(and 14 more") < out.index("--silence omp-left-unmapped")
    assert p.counts["warning"] == 16 and p.counts["error"] == 2  # each one counted


def test_different_messages_of_one_id_are_not_collapsed():
    p = printer()
    p.emit_all([Diagnostic.warning("kernel 'a' is left alone: it has a barrier", "fuse-skip"),
                Diagnostic.warning("kernel 'b' is left alone: it reads shared memory",
                                   "fuse-skip")])
    assert p.stream.getvalue().count("[fuse-skip]") == 2


def test_exact_repeats_in_a_batch_are_counted_not_listed():
    p = printer()
    one = _left("p", 4)
    other = Diagnostic.warning(one.message, one.id, Location("other.c", 9, 1))
    p.emit_all([one, one, other, one])
    out = p.stream.getvalue()
    assert "(and 1 more like this at other.c:9)" in out
    assert "repeated 2 more times" in p.repeat_notes()


def test_near_duplicates_collapsed_in_text_kept_in_json(tmp_path, capsys):
    """A program with 15 target regions on pointers s2s cannot follow (nor bound the range
    their kernels touch): 15 warnings of one
    kind, one shown in text, all 15 in the JSON document."""
    import json

    from s2s.cli.main import main

    body = ["double *get(int k);", "void work(int n) {"]
    for k in range(15):
        body += [f"  double *p{k} = get({k});",
                 "  #pragma omp target teams distribute parallel for",
                 f"  for (int i = 0; i < n; i++) p{k}[(i * 7) % n] += {k};"]
    src = tmp_path / "many.c"
    src.write_text("\n".join(body + ["}"]) + "\n")
    assert main(["omp", str(src)]) == 0
    err = capsys.readouterr().err
    assert err.count("[omp-left-unmapped]") == 1
    assert re.search(r"note: \(and 14 more like this at lines 7, 10, 13, .*, \.\.\.\)", err)
    assert main(["omp", "--format", "json", str(src)]) == 0
    document = json.loads(capsys.readouterr().out)
    ids = [d["id"] for f in document["files"] for d in f["diagnostics"]]
    assert ids.count("omp-left-unmapped") == 15


def test_the_source_line_is_read_again_only_from_a_bounded_regular_file(tmp_path, monkeypatch):
    """docs/security.md: a message's source line comes from a regular file of at most
    MAX_EXCERPT_FILE_BYTES (64 MiB), opened without blocking: a FIFO or a larger file gives the
    headline alone, never a hang or a huge read."""
    import os

    from s2s import diagnostics

    monkeypatch.setattr(diagnostics, "MAX_EXCERPT_FILE_BYTES", 100)
    small, large, fifo = tmp_path / "small.cu", tmp_path / "large.cu", tmp_path / "fifo.cu"
    small.write_bytes(b"int x;\n")
    large.write_bytes(b"int y;\n" + b"//" * 60 + b"\n")
    os.mkfifo(fifo)
    for path, lines in ((small, 3), (large, 1), (fifo, 1)):
        shown = printer().render(Diagnostic.error("m", "e", Location(str(path), 1, 1)))
        assert shown.count("\n") == lines, (path, shown)
