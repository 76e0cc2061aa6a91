"""#line directives: every unchanged line of a rewritten copy reports its original number."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from s2s.wrapper.linemap import add_line_directives, directive, directive_safe_lines, split_lines

_DIRECTIVE = re.compile(rb'^#line (\d+) "((?:[^"\\]|\\.)*)"\n$')


def presumed_lines(text: bytes) -> list[tuple[bytes, int]]:
    """(line, number the preprocessor gives it) for every line that is not a directive."""
    out, number = [], 1
    for line in split_lines(text):
        match = _DIRECTIVE.match(line)
        if match:
            number = int(match.group(1))
            continue
        out.append((line, number))
        number += 1
    return out


def numbers_of(text: bytes) -> dict[bytes, int]:
    return dict(presumed_lines(text))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["keep", "insert", "delete", "replace"]), min_size=1,
                max_size=40))
def test_unchanged_lines_keep_their_numbers(plan):
    original = [b"int v%d = %d;\n" % (i, i) for i in range(len(plan))]
    rewritten = []
    for i, (line, action) in enumerate(zip(original, plan, strict=True)):
        if action == "insert":
            rewritten += [b"#pragma omp new %d\n" % i, line]
        elif action == "keep":
            rewritten.append(line)
        elif action == "replace":
            rewritten.append(b"int v%d = -1;\n" % i)
    out = add_line_directives(b"".join(original), b"".join(rewritten), "src/a.c")
    numbers = numbers_of(out)
    for i, line in enumerate(original):
        if line in numbers:
            assert numbers[line] == i + 1, (line, out.decode())
    # An inserted line takes the number of the line it precedes, or of a deleted line just
    # or replaced just before (a diff cannot tell those apart from a replacement).
    for i, action in enumerate(plan):
        if action == "insert":
            first = i
            while first > 0 and plan[first - 1] in ("delete", "replace"):
                first -= 1
            assert first + 1 <= numbers[b"#pragma omp new %d\n" % i] <= i + 1


def test_no_directive_inside_comments_strings_or_continued_lines():
    original = (b"/* a comment\n"
                b"   that goes on */\n"
                b"#define F(x) \\\n"
                b"    (x + 1)\n"
                b'const char *s = R"(raw\n'
                b'text)";\n'
                b"int z;\n")
    lines = split_lines(original)
    assert directive_safe_lines(lines) == [True, False, True, False, True, False, True]
    # Delete the first line: the directive that restores numbering must wait for a safe line.
    rewritten = b"".join(lines[1:])
    out = add_line_directives(b"/* x */\n" + original, rewritten, "a.c")
    assert b'#line 2 "a.c"\n   that' not in out
    assert numbers_of(out)[b"int z;\n"] == 8


def test_names_are_escaped_and_a_bom_stays_first():
    assert directive(3, 'dir "q"\\x.c') == b'#line 3 "dir \\"q\\"\\\\x.c"\n'
    out = add_line_directives(b"\xef\xbb\xbfint a;\n", b"\xef\xbb\xbfint b;\nint a;\n", "a.c")
    assert out.startswith(b'\xef\xbb\xbf#line 1 "a.c"\n')


def test_last_line_without_newline():
    out = add_line_directives(b"int a;\nint b;", b"int x;\nint a;\nint b;", "a.c")
    assert numbers_of(out)[b"int b;\n"] == 2


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not found")
def test_a_compiler_reports_the_users_file_and_line(tmp_path):
    original = b"int f(void) {\n  int a = 1;\n  return a + undefined_name;\n}\n"
    rewritten = b"/* added */\n/* added */\nint f(void) {\n  int a = 1;\n" \
                b"  return a + undefined_name;\n}\n"
    copy = tmp_path / "copy.c"
    copy.write_bytes(add_line_directives(original, rewritten, "user/f.c"))
    proc = subprocess.run(["gcc", "-fsyntax-only", str(copy)], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "user/f.c:3:" in proc.stderr and "copy.c" not in proc.stderr.split("error")[0]
