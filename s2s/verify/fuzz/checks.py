"""The invariants checked after every run: no traceback, sane exit codes, located
diagnostics, JSON that parses, diffs that apply."""

from __future__ import annotations

import fnmatch
import re
import signal
from collections.abc import Sequence
from dataclasses import dataclass

from s2s.verify.fuzz.cases import RunOutput

# --------------------------------------------------------------------------------------------
# Invariants
# --------------------------------------------------------------------------------------------


@dataclass
class Failure:
    kind: str  # traceback, exception, exit-code, crash, hang, internal-error, ...
    step: str  # e.g. "omp --diff"
    detail: str
    known: str | None = None  # the known defect it is, if any

    def signature(self) -> str:
        """Kind, subcommand and a normalized detail: failures with one cause share it."""
        command = self.step.split()[0] if self.step else "?"
        detail = re.sub(r"/[^\s:'\"]+", "PATH", self.detail)
        detail = re.sub(r"\d+", "N", detail)[:120]
        return f"{self.kind} | {command} | {detail}"


HEADLINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note): "
                      r"(?P<msg>.*) \[(?P<id>[^\]\s]+)\]$")
#: a line that names a location: PATH:LINE: or PATH:LINE:COL: (PATH without blanks)
NAMES_LOCATION = re.compile(r"^[^\s:][^\s]*?:\d+:(?:\d+:)?(?:\s|$)")
CARET = re.compile(r"^[ \t]*\^$")
TRACEBACK = "Traceback (most recent call last)"
PY_WARNING = re.compile(r"\.py:\d+: \w*Warning: ")
EXIT_2_IDS = ("usage",)


def check_run(run: RunOutput, step: str, sources: dict[str, bytes],
              allowed_exit_2: Sequence[str] = EXIT_2_IDS) -> list[Failure]:
    """The invariants of one run's exit status and outputs (``sources``: path -> bytes)."""
    failures = []
    text = run.stdout + "\n" + run.stderr
    if run.timed_out:
        failures.append(Failure("hang", step, f"no exit after {run.seconds:.0f} s"))
    elif run.returncode < 0 or run.returncode in (134, 139):
        failures.append(Failure("crash", step, f"exit status {run.returncode} "
                                f"({signal_name(run.returncode)}); {tail(run.stderr)}"))
    if run.exception is not None:
        failures.append(Failure("exception", step, last_line(run.exception)))
    elif TRACEBACK in text:
        tb = text[text.index(TRACEBACK):]
        failures.append(Failure("traceback", step, _exception_line(tb)))
    ids = [m.group("id") for m in map(HEADLINE.match, run.stderr.split("\n")) if m]
    ids += re.findall(r"^(?:error|warning|note): .* \[([A-Za-z0-9_.*+-]+)\]$", run.stderr, re.M)
    for line in run.stderr.split("\n"):
        if "[internal]" in line:
            failures.append(Failure("internal-error", step, strip_location(line)))
            break
    for line in run.stderr.split("\n"):
        if "[edit-conflict]" in line:
            failures.append(Failure("edit-conflict", step, strip_location(line)))
            break
    if not run.timed_out and run.returncode >= 0:
        if run.returncode > 2:
            failures.append(Failure("exit-code", step, f"exit status {run.returncode}"))
        elif run.returncode == 2 and run.exception is None and not any(
                i == "internal" or any(fnmatch.fnmatchcase(i, p) for p in allowed_exit_2)
                for i in ids):
            failures.append(Failure("exit-code", step, "exit status 2 without a usage "
                                    f"diagnostic; {tail(run.stderr)}"))
    failures += check_diagnostics(run.stderr, step, sources)
    match = PY_WARNING.search(text)
    if match:
        line = text[text.rfind("\n", 0, match.start()) + 1:].split("\n", 1)[0]
        failures.append(Failure("python-warning", step, line.strip()[:200]))
    return failures


def check_diagnostics(stderr: str, step: str, sources: dict[str, bytes]) -> list[Failure]:
    """Every line naming a location is a well-formed headline with a line in its file."""
    failures = []
    lines = stderr.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        match = HEADLINE.match(line)
        if match:
            failures += _check_location(match, step, sources)
            # the printer follows a located headline with the source line and a caret
            if i + 2 < len(lines) and CARET.match(lines[i + 2]):
                i += 3
                continue
        elif NAMES_LOCATION.match(line) or any(re.match(re.escape(p) + r":\d", line)
                                                for p in sources):
            failures.append(Failure("diagnostic-format", step, f"malformed: {line[:200]!r}"))
        i += 1
    return failures[:3]


def _check_location(match: re.Match, step: str, sources: dict[str, bytes]) -> list[Failure]:
    data = sources.get(match.group("file"))
    line, col = int(match.group("line")), int(match.group("col"))
    if data is None or b"#line" in data or b"# line" in data:
        return []
    count = max(data.count(b"\n"), len(re.findall(rb"\r\n|\r|\n", data))) + 1
    if not 1 <= line <= count or col < 1:
        return [Failure("bad-location", step, f"{match.group('file')}:{line}:{col} is outside "
                        f"the file ({count} lines): {match.group('msg')[:100]} "
                        f"[{match.group('id')}]")]
    return []


def signal_name(code: int) -> str:
    number = -code if code < 0 else code - 128
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def tail(text: str, n: int = 200) -> str:
    text = text.strip().replace("\n", " | ")
    return text[-n:]


def last_line(text: str) -> str:
    lines = [line for line in text.strip().split("\n") if line.strip()]
    return lines[-1][:300] if lines else ""


def _exception_line(tb: str) -> str:
    for line in tb.split("\n")[1:]:
        if line and not line.startswith(" "):
            return line[:300]
    return last_line(tb)


def strip_location(line: str) -> str:
    match = HEADLINE.match(line)
    if match:
        return f"{match.group('sev')}: {match.group('msg')} [{match.group('id')}]"[:300]
    return line[:300]


def apply_unified_diff(original: bytes, diff: str) -> bytes | None:
    """Apply the first file's part of a diff of ``s2s --diff`` to ``original``; None if it
    does not apply. (mgpu's diff goes on with its generated kernel table, a new file: each
    hunk ends where its line counts say, and the next file's headers end the first file.)"""
    from s2s.output import diff_bytes, diff_lines

    if not diff:
        return original
    old = diff_lines(original)
    text_lines = diff_bytes(diff).decode("utf-8", errors="surrogateescape").split("\n")
    if text_lines and text_lines[-1] == "":
        text_lines.pop()
    if len(text_lines) < 3 or not text_lines[0].startswith("--- ") \
            or not text_lines[1].startswith("+++ "):
        return None
    out: list[str] = []
    position = 0  # index into old
    hunk = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
    i = 2
    while i < len(text_lines):
        if text_lines[i].startswith("--- ") and i + 1 < len(text_lines) \
                and text_lines[i + 1].startswith("+++ "):
            break                                   # the next file's part
        head = hunk.match(text_lines[i])
        if not head:
            return None
        start = int(head.group(1)) - (0 if head.group(2) == "0" else 1)
        if start < position:
            return None
        out.extend(old[position:start])
        position = start
        i += 1
        left = int(head.group(2) or 1) + int(head.group(4) or 1)   # old and new lines
        while i < len(text_lines) and left > 0 and not text_lines[i].startswith("@@"):
            line = text_lines[i]
            left -= 2 if line[:1] == " " else 1
            marker, body = line[:1], line[1:]
            no_newline = i + 1 < len(text_lines) and text_lines[i + 1].startswith("\\ ")
            full = body if no_newline else body + "\n"
            if marker in (" ", "-"):
                if position >= len(old) or old[position] != full:
                    return None
                position += 1
                if marker == " ":
                    out.append(full)
            elif marker == "+":
                out.append(full)
            else:
                return None
            i += 2 if no_newline else 1
    out.extend(old[position:])
    return "".join(out).encode("utf-8", errors="surrogateescape")
