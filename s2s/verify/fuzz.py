"""Mutation fuzzing of every ``s2s`` subcommand on damaged copies of the bundled samples.

One seed is one reproducible case: ``random.Random(seed)`` picks a sample file and one to three
mutations (deleted and duplicated tokens, unbalanced brackets, random bytes, deep nesting, huge
lines, truncation, swapped lines, CR/CRLF line ends, non-UTF-8 bytes, NUL bytes, preprocessor
damage, damaged ``#pragma omp`` lines in OpenMP files and damaged ``<<<...>>>`` launches in CUDA
files) or changes that mostly keep the program valid, so the analyses and rewrites run on it
(statements deleted, duplicated, swapped, moved, wrapped in ``if``/``for``/``do``, a ``goto``;
operators, numbers and nearby array or index names swapped; ``#pragma omp`` map types, clauses,
sections and directives changed, ``target update``/``target data``/unpaired ``enter data``
inserted; CUDA copy kinds and arguments, launch configurations, duplicated or dropped calls,
``__syncthreads``, early returns, pointer aliases), then every subcommand runs on the mutant:

* ``inspect`` (sometimes ``--format json``, sometimes ``--access``), and ``omp``,
  ``transfers``, ``fuse``, ``mgpu`` with ``--diff``;
* ``--check`` of one rewriting subcommand (its exit status must agree with the diff);
* ``--in-place`` of one rewriting subcommand on a copy of the sample's files (only that copy may
  change, it must equal the diff applied to the mutant, and a second run must change nothing),
  sometimes with ``--backup`` and with ``-o DIR`` alongside;
* ``verify`` on a small fraction of the cases (it builds and runs programs).

and the invariants are checked (:func:`check_run` and friends): no Python traceback in any
output, exit status 0 or 1 (2 only with a usage diagnostic), no internal-error or edit-conflict
diagnostic, input files unchanged (hashed before and after every run), no ``.s2s-*.tmp``
leftovers, every stderr line that names a location of the form
``file:line:col: error|warning|note: message [id]`` with a line inside the file, JSON output
that parses, diffs that apply to the mutant exactly.

Runs are in-process (``s2s.cli.main.main(argv)`` with ``sys.stdout``/``sys.stderr`` and file
descriptors 1 and 2 captured) inside worker processes (``python -m s2s.verify.fuzz worker``),
so a segfault of libclang kills only the worker (reported as ``crash`` with the step it was
in) and a case over its limit is reported as ``hang`` (the worker's process group is
killed): a limit of CPU seconds of the worker and its children, or no progress at all,
never wall time alone (a loaded machine slows bounded work; ``_Watchdog``). A fraction of the cases (``subprocess_rate``, or ``force_subprocess``) runs every
step as a real ``python -m s2s`` process instead, as users run it.

:func:`known_defect` names the failures of the defects that are being fixed elsewhere (deep
parenthesis nesting crashing libclang, deeply nested blocks raising RecursionError); every
other failure is new. :func:`minimise` shrinks a failing mutant (delta debugging over lines,
then tokens, then bytes) while the same failure signature persists.

Standard library only (and s2s itself, in the workers).
"""

from __future__ import annotations

import base64
import contextlib
import fnmatch
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import tomllib

from s2s import runtime_files

#: the checkout the fuzzer mutates samples of (a tool of the source tree: the wheel carries no
#: samples); the runtime's headers come from the imported package like everywhere else
REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLES_ROOT = REPO_ROOT / "samples"
RUNTIME_INCLUDE = Path(runtime_files.RUNTIME_INCLUDE)

REWRITE_COMMANDS = ("omp", "transfers", "fuse", "mgpu")
COMMANDS = ("inspect", *REWRITE_COMMANDS)
SOURCE_SUFFIXES = (".c", ".cu", ".cpp", ".cc", ".cxx")
HEADER_SUFFIXES = (".h", ".cuh", ".hpp")

#: Defaults of one fuzzing run (the CI test and the benchmark script use these unless told).
DEFAULT_CASE_TIMEOUT = 180.0  # CPU seconds (_Watchdog); `fuse` alone takes 10 s on horner.cu
DEFAULT_VERIFY_RATE = 0.02
DEFAULT_SUBPROCESS_RATE = 0.03
DEFAULT_TOOLKIT_RATE = 0.08  # cases parsed against the real CUDA toolkit instead of the shim
DEFAULT_NVCC_RATE = 0.01  # cases where `fuse` may run nvcc --resource-usage

#: Fresh seeds start here (the fixed CI seeds and the documented runs lie below it).
FRESH_SEED_BASE = 1_000_000
#: Fresh ranges are spread over this many seeds, so two commits rarely share one.
FRESH_SEED_SPAN = 100_000_000


def commit_seed_start(revision: str | None = None) -> tuple[int, str]:
    """The first seed of the fresh range for the checked-out commit, and the commit it came
    from. Why: fixed seeds only ever re-check the cases they found; a range derived from the
    commit hash (``git rev-parse HEAD``) is new with each commit and yet reproducible from the
    commit alone. ``revision`` stands in for HEAD's hash; without a git checkout (an installed
    wheel) the range starts at FRESH_SEED_BASE and the commit reads 'unknown'."""
    if revision is None:
        try:
            proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, timeout=30,
                                  capture_output=True, text=True)
            revision = proc.stdout.strip() if proc.returncode == 0 else ""
        except (OSError, subprocess.TimeoutExpired):
            revision = ""
    if not re.fullmatch(r"[0-9a-f]{7,64}", revision or ""):
        return FRESH_SEED_BASE, "unknown"
    return FRESH_SEED_BASE + int(revision[:12], 16) % FRESH_SEED_SPAN, revision


# --------------------------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SampleFile:
    """One source file of a sample, with the files that travel with it."""

    path: Path  # the file to mutate
    directory: Path  # its sample directory (every source and header there is copied along)
    language: str  # "cuda" or "openmp"
    program: tuple[str, ...]  # file names that form its program (for verify)

    @property
    def name(self) -> str:
        return f"{self.directory.parent.name}/{self.directory.name}/{self.path.name}"


def corpus(root: Path = SAMPLES_ROOT) -> list[SampleFile]:
    """Every source file of ``root/cuda/*`` and ``root/openmp/*`` (headers too), sorted."""
    files = []
    for language in ("cuda", "openmp"):
        for directory in sorted(p for p in (root / language).iterdir() if p.is_dir()):
            sources = _sample_sources(directory)
            for path in sorted(directory.iterdir()):
                if path.suffix not in SOURCE_SUFFIXES + HEADER_SUFFIXES or not path.is_file():
                    continue
                program = sources if path.name in sources else (path.name,)
                if path.suffix in HEADER_SUFFIXES:
                    program = sources or (path.name,)
                files.append(SampleFile(path, directory, language, tuple(program)))
    return files


def _sample_sources(directory: Path) -> tuple[str, ...]:
    toml = directory / "sample.toml"
    if toml.is_file():
        with open(toml, "rb") as handle:
            meta = tomllib.load(handle)
        return tuple(meta.get("sources", ()))
    return ()


def _companions(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir()
                  if p.is_file() and p.suffix in SOURCE_SUFFIXES + HEADER_SUFFIXES)


# --------------------------------------------------------------------------------------------
# Mutations
# --------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[A-Za-z_][A-Za-z0-9_]*'
    rb'|\d[\w.]*|<<<|>>>|<<=|>>=|->|\+\+|--|&&|\|\||::|\#\#|[<>=!+\-*/%&|^]=|<<|>>|\S', re.S)
_BRACKETS = b"{}()[]"


@dataclass
class Mutant:
    """The bytes of a mutated file and what was done to them."""

    data: bytes
    steps: list[str] = field(default_factory=list)
    #: deepest nesting inserted, per kind (for known-defect bookkeeping)
    nesting: dict[str, int] = field(default_factory=dict)


def _tokens(data: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(data)]


def _statement_points(data: bytes) -> list[int]:
    """Offsets just after a ';', '{' or '}' inside braces (a new statement fits there)."""
    depth, points = 0, []
    for start, end in _tokens(data):
        token = data[start:end]
        if token == b"{":
            depth += 1
            points.append(end)
        elif token == b"}":
            depth = max(depth - 1, 0)
            if depth:
                points.append(end)
        elif token == b";" and depth:
            points.append(end)
    return points


def _insert_statement(rng: random.Random, data: bytes, text: bytes) -> bytes:
    points = _statement_points(data)
    at = rng.choice(points) if points else len(data)
    return data[:at] + b"\n" + text + b"\n" + data[at:]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def m_delete_tokens(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    tokens = _tokens(data)
    if not tokens:
        return data
    if rng.random() < 0.3:  # a contiguous run
        first = rng.randrange(len(tokens))
        last = min(len(tokens) - 1, first + rng.randint(1, 30))
        m.steps.append(f"delete tokens {first}..{last}")
        return data[:tokens[first][0]] + data[tokens[last][1]:]
    k = rng.randint(1, 8)
    chosen = sorted(rng.sample(range(len(tokens)), min(k, len(tokens))), reverse=True)
    m.steps.append(f"delete {len(chosen)} tokens")
    for index in chosen:
        start, end = tokens[index]
        data = data[:start] + data[end:]
    return data


def m_duplicate_tokens(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    tokens = _tokens(data)
    if not tokens:
        return data
    k = rng.randint(1, 8)
    edits = []
    for _ in range(k):
        start, end = rng.choice(tokens)
        where = end if rng.random() < 0.6 else rng.choice(tokens)[rng.randrange(2)]
        edits.append((where, b" " + data[start:end] + b" "))
    m.steps.append(f"duplicate {k} tokens")
    for where, text in sorted(edits, reverse=True):
        data = data[:where] + text + data[where:]
    return data


def m_unbalance(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    tokens = _tokens(data)
    brackets = [t for t in tokens if data[t[0]:t[1]] in (b"{", b"}", b"(", b")", b"[", b"]",
                                                         b"<<<", b">>>")]
    for _ in range(rng.randint(1, 3)):
        if brackets and rng.random() < 0.5:
            start, end = brackets.pop(rng.randrange(len(brackets)))
            m.steps.append(f"delete {data[start:end].decode()} at {start}")
            data = data[:start] + b" " * (end - start) + data[end:]  # offsets of others stay
        else:
            char = bytes([rng.choice(_BRACKETS)])
            where = rng.choice(tokens)[0] if tokens else 0
            m.steps.append(f"insert {char.decode()} at {where}")
            data = data[:where] + char + data[where:]
            tokens = _tokens(data)
            brackets = [t for t in tokens if data[t[0]:t[1]] in (b"{", b"}", b"(", b")")]
    return data


def m_random_bytes(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    mode = rng.choice(["insert-run", "overwrite", "scatter", "ascii"])
    n = rng.randint(1, 24)
    if mode == "ascii":
        junk = bytes(rng.randrange(32, 127) for _ in range(n))
    else:
        junk = bytes(rng.randrange(256) for _ in range(n))
    m.steps.append(f"random bytes ({mode}, {n})")
    if not data:
        return junk
    if mode in ("insert-run", "ascii"):
        at = rng.randrange(len(data) + 1)
        return data[:at] + junk + data[at:]
    out = bytearray(data)
    for byte in junk:
        at = rng.randrange(len(out))
        if mode == "overwrite":
            out[at] = byte
        else:
            out.insert(at, byte)
    return bytes(out)


#: depth ranges of deep nesting: shallow, deep, deeper than Python's recursion limit, past
#: the depth where libclang is known to crash on parentheses
_DEPTHS = ((2, 30, 30), (30, 300, 30), (300, 1000, 20), (1000, 1300, 10), (1300, 4000, 10))


def _depth(rng: random.Random) -> int:
    ranges = [r[:2] for r in _DEPTHS]
    weights = [r[2] for r in _DEPTHS]
    low, high = rng.choices(ranges, weights)[0]
    return rng.randint(low, high)


def m_deep_nesting(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    kind = rng.choice(["parens", "blocks", "ifs", "else-if", "while", "unary", "casts",
                       "ternary", "binary", "comma", "subscripts", "init-braces", "macro",
                       "preprocessor"])
    n = _depth(rng)
    m.steps.append(f"nest {kind} x{n}")
    m.nesting[kind] = max(m.nesting.get(kind, 0), n)
    if kind == "preprocessor":
        text = b"#if 1\n" * n + b"int s2s_fz_pp;\n" + b"#endif\n" * n
        lines = _lines(data)
        at = rng.randrange(len(lines) + 1)
        return b"\n".join(lines[:at] + [text] + lines[at:])
    body = {
        "parens": lambda: b"int s2s_fz = " + b"(" * n + b"1" + b")" * n + b";",
        "blocks": lambda: b"{" * n + b" ; " + b"}" * n,
        "ifs": lambda: b"if (1) " * n + b";",
        "else-if": lambda: b"if (0) ; else " * n + b";",
        "while": lambda: b"while (0) " * n + b";",
        "unary": lambda: b"int s2s_fz = " + b"- " * n + b"1;",
        "casts": lambda: b"int s2s_fz = " + b"(int)" * n + b"1;",
        "ternary": lambda: b"int s2s_fz = " + b"1 ? " * n + b"0" + b" : 0" * n + b";",
        "binary": lambda: b"int s2s_fz = 1" + b" + 1" * n + b";",
        "comma": lambda: b"int s2s_fz = (1" + b", 1" * n + b");",
        "subscripts": lambda: (b"int s2s_fa[1] = {0}; int s2s_fz = " + b"s2s_fa[" * n + b"0"
                               + b"]" * n + b";"),
        "init-braces": lambda: b"int s2s_fz = " + b"{" * n + b"0" + b"}" * n + b";",
        "macro": lambda: (b"\n#define S2S_FZ(x) (x)\nint s2s_fz = " + b"S2S_FZ(" * n + b"1"
                          + b")" * n + b";"),
    }[kind]()
    return _insert_statement(rng, data, body)


def m_huge_line(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    kind = rng.choice(["comment", "line-comment", "string", "identifier", "whitespace",
                       "number", "join"])
    n = rng.choice([4_000, 20_000, 60_000, 120_000])
    m.steps.append(f"huge line {kind} ({n})")
    if kind == "join":  # the whole file on as few lines as the preprocessor allows
        out = []
        for line in _lines(data):
            if line.lstrip().startswith(b"#") or (out and out[-1].endswith(b"\\")):
                out.append(b"\n" + line + b"\n")
                continue
            comment = line.find(b"//")
            if comment >= 0 and b"*/" not in line and b'"' not in line:
                line = line[:comment] + b"/*" + line[comment + 2:] + b"*/"
            out.append(line + b" ")
        return b"".join(out)
    if kind == "whitespace":
        tokens = _tokens(data)
        at = rng.choice(tokens)[0] if tokens else 0
        return data[:at] + rng.choice([b" ", b"\t"]) * n + data[at:]
    text = {
        "comment": lambda: b"/* " + b"x" * n + b" */",
        "line-comment": lambda: b"// " + b"y" * n,
        "string": lambda: b'const char *s2s_fs = "' + b"z" * n + b'";',
        "identifier": lambda: b"int s2s_" + b"i" * n + b" = 0;",
        "number": lambda: b"double s2s_fn = " + b"9" * n + b".0;",
    }[kind]()
    return _insert_statement(rng, data, text)


def m_truncate(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    if not data:
        return data
    mode = rng.choice(["byte", "byte", "token", "lines", "empty"] if rng.random() < 0.05
                      else ["byte", "byte", "token", "lines"])
    if mode == "empty":
        m.steps.append("truncate to nothing")
        return b""
    if mode == "token":
        tokens = _tokens(data)
        if tokens:
            at = rng.choice(tokens)[1]
            m.steps.append(f"truncate after token at {at}")
            return data[:at]
    if mode == "lines":
        lines = _lines(data)
        keep = rng.randrange(len(lines))
        m.steps.append(f"truncate to {keep} lines")
        return b"\n".join(lines[:keep])
    at = rng.randrange(len(data))
    m.steps.append(f"truncate at byte {at}")
    return data[:at]


def m_swap_lines(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    lines = _lines(data)
    if len(lines) < 2:
        return data
    mode = rng.choice(["swap", "swap", "move", "reverse-block", "shuffle-block"])
    if mode == "swap":
        k = rng.randint(1, 3)
        for _ in range(k):
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        m.steps.append(f"swap {k} line pairs")
    elif mode == "move":
        line = lines.pop(rng.randrange(len(lines)))
        lines.insert(rng.randrange(len(lines) + 1), line)
        m.steps.append("move a line")
    else:
        i = rng.randrange(len(lines))
        j = min(len(lines), i + rng.randint(2, 12))
        block = lines[i:j]
        if mode == "reverse-block":
            block.reverse()
        else:
            rng.shuffle(block)
        lines[i:j] = block
        m.steps.append(f"{mode} lines {i + 1}..{j}")
    return b"\n".join(lines)


def m_line_ends(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    mode = rng.choice(["crlf", "crlf", "mixed", "cr", "lone-cr", "no-final-newline"])
    m.steps.append(f"line ends {mode}")
    if mode == "crlf":
        return data.replace(b"\n", b"\r\n")
    if mode == "cr":
        return data.replace(b"\n", b"\r")
    if mode == "no-final-newline":
        return data.rstrip(b"\n")
    if mode == "mixed":
        parts = data.split(b"\n")
        return b"".join(p + (rng.choice([b"\r\n", b"\n", b"\n\r"]) if i < len(parts) - 1 else b"")
                        for i, p in enumerate(parts))
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        out.insert(rng.randrange(len(out) + 1), 0x0D)
    return bytes(out)


_BAD_UTF8 = (b"\xff", b"\xfe", b"\x80", b"\xc0\xaf", b"\xe2\x82", b"\xed\xa0\x80", b"\xf8\x88",
             b"\xe9", b"\xff\xfe", b"\xef\xbb\xbf")
_GOOD_UTF8 = ("é", "ß", "Ω", "中文", "😀", "\u200b", "\u2028", "\u00a0", "\u0301")


def m_encoding(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    mode = rng.choice(["bad-bytes", "bad-in-comment", "bad-in-string", "bad-identifier", "bom",
                       "utf8-identifier", "utf8-comment", "latin1-file"])
    m.steps.append(f"encoding {mode}")
    if mode == "bom":
        return rng.choice([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"]) + data
    if mode == "latin1-file":
        return data.replace(b"e", b"\xe9", rng.randint(1, 20))
    bad = rng.choice(_BAD_UTF8)
    good = rng.choice(_GOOD_UTF8).encode()
    if mode == "bad-bytes":
        out = data
        for _ in range(rng.randint(1, 5)):
            at = rng.randrange(len(out) + 1)
            out = out[:at] + rng.choice(_BAD_UTF8) + out[at:]
        return out
    text = {
        "bad-in-comment": b"/* " + bad + b" */",
        "bad-in-string": b'const char *s2s_fb = "' + bad + b'";',
        "bad-identifier": b"int s2s_f" + bad + b"x = 1;",
        "utf8-identifier": b"int s2s_f" + good + b" = 1;",
        "utf8-comment": b"// " + good * rng.randint(1, 50),
    }[mode]
    return _insert_statement(rng, data, text)


def m_nul_bytes(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    mode = rng.choice(["scatter", "token", "end", "line"])
    m.steps.append(f"NUL bytes ({mode})")
    if mode == "end":
        return data + b"\0" * rng.randint(1, 4)
    tokens = _tokens(data)
    if mode == "token" and tokens:
        start, end = rng.choice(tokens)
        return data[:start] + b"\0" * (end - start) + data[end:]
    if mode == "line":
        return _insert_statement(rng, data, b"int s2s_fz\0 = 0;\0")
    out = bytearray(data)
    for _ in range(rng.randint(1, 5)):
        out.insert(rng.randrange(len(out) + 1), 0)
    return bytes(out)


_PREPROCESSOR = (b"#if 0", b"#endif", b"#else", b"#ifdef S2S_FZ", b"#include \"s2s_missing.h\"",
                 b"#include <s2s_missing>", b"#line 99999 \"other.c\"", b"#line 1", b"#line 0",
                 b"#line 4294967295", b"#error s2s fuzz", b"#warning s2s fuzz",
                 b"#define float double", b"#define main s2s_main", b"#undef NULL",
                 b"#pragma once", b"#pragma omp", b"#pragma", b"#", b"#define S2S_FZ(",
                 b"#define for(x) x", b"#define __global__", b"#if", b"#elif 1",
                 b"#define N", b"_Pragma(\"omp target\")", b"??=define S2S_TRI 1",
                 b"#include __FILE__")


def m_preprocessor(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    lines = _lines(data)
    for _ in range(rng.randint(1, 2)):
        text = rng.choice(_PREPROCESSOR)
        at = rng.randrange(len(lines) + 1)
        lines.insert(at, text)
        m.steps.append(f"line {at + 1}: {text.decode(errors='replace')}")
    return b"\n".join(lines)


_PRAGMA = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+omp\b(?:[^\n]*\\\r?\n)*[^\n]*", re.M)
_CLAUSE = re.compile(rb"\b\w+\s*\((?:[^()]|\([^()]*\))*\)")


def m_pragma(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """Damage one or two ``#pragma omp`` directives (OpenMP files)."""
    pragmas = list(_PRAGMA.finditer(data))
    if not pragmas:
        return m_preprocessor(rng, data, m)
    for _ in range(rng.randint(1, 2)):
        pragmas = list(_PRAGMA.finditer(data))
        if not pragmas:
            break
        match = rng.choice(pragmas)
        start, end = match.span()
        text = match.group()
        clauses = list(_CLAUSE.finditer(text))
        op = rng.choice(["drop-clause", "dup-clause", "bad-map-type", "unclose", "garbage",
                         "split", "drop-omp", "rename", "empty-clause", "section", "move",
                         "duplicate", "dangling", "map-self", "unknown-var", "to-pragma-op"])
        m.steps.append(f"pragma at {start}: {op}")
        if op == "drop-clause" and clauses:
            c = rng.choice(clauses)
            text = text[:c.start()] + text[c.end():]
        elif op == "dup-clause" and clauses:
            c = rng.choice(clauses)
            text = text + b" " + c.group()
        elif op == "bad-map-type":
            new = rng.choice([b"tofrom", b"to", b"from", b"alloc", b"release", b"delete",
                              b"always, to", b"frmo", b"", b"present, alloc", b"to:from"])
            text = re.sub(rb"map\s*\(\s*[\w ,]*:", b"map(" + new + b":", text, count=1)
        elif op == "unclose":
            at = text.rfind(b")")
            if at >= 0:
                text = text[:at] + text[at + 1:]
        elif op == "garbage":
            text = text + b" " + rng.choice([b"map(", b")", b"((", b"nowait nowait", b"if(",
                                             b"collapse(0)", b"collapse(-1)", b"depend(in:",
                                             b"reduction(+:", b"num_teams()", b"\\"])
        elif op == "split":
            cut = rng.randrange(len(text) + 1)
            text = text[:cut] + rng.choice([b" \\\n", b" \\\r\n", b"\\\n", b" \\ \n"]) + text[cut:]
        elif op == "drop-omp":
            text = text.replace(b"omp", b"", 1)
        elif op == "rename":
            text = re.sub(rb"\b(target|data|teams|distribute|parallel|for|update|enter|exit)\b",
                          lambda w: rng.choice([b"targte", b"", w.group() + w.group(), b"simd",
                                                b"end", b"declare"]), text, count=1)
        elif op == "empty-clause":
            text = re.sub(rb"\(([^()]*)\)", b"()", text, count=1)
        elif op == "section":
            new = rng.choice([b"[0:]", b"[:]", b"[-1:n]", b"[0:n:2]", b"[n]", b"[0:0]",
                              b"[][]", b"[0:n][0:m]", b"[", b"[0:99999999999999999999]"])
            text = re.sub(rb"\[[^\]]*\]", new, text, count=1)
        elif op == "map-self":
            text = text + b" map(tofrom: " + text.split()[-1] + b")"
        elif op == "unknown-var":
            text = text + b" map(to: s2s_nowhere[0:10])"
        elif op == "to-pragma-op":
            inner = text.split(b"pragma", 1)[1].replace(b"\\\n", b" ").replace(b'"', b'\\"')
            text = b'_Pragma("' + inner.strip() + b'")'
        elif op in ("move", "duplicate", "dangling"):
            lines = _lines(data[:start] + data[end:] if op == "move" else data)
            where = rng.randrange(len(lines) + 1)
            if op == "dangling":  # a directive right before a closing brace or at the end
                closers = [i for i, line in enumerate(lines) if line.strip() == b"}"]
                where = rng.choice(closers) if closers else len(lines)
            lines.insert(where, text)
            data = b"\n".join(lines)
            continue
        data = data[:start] + text + data[end:]
    return data


_LAUNCH = re.compile(rb"<<<(.*?)>>>", re.S)


def m_launch(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """Damage one ``<<<...>>>`` kernel launch (CUDA files)."""
    launches = list(_LAUNCH.finditer(data))
    if not launches:
        return m_delete_tokens(rng, data, m)
    match = rng.choice(launches)
    op = rng.choice(["empty", "one", "five", "garbage", "split", "unclose", "drop-args",
                     "nested", "template", "twice"])
    m.steps.append(f"launch at {match.start()}: {op}")
    config = match.group(1)
    new = {
        "empty": lambda: b"<<<>>>",
        "one": lambda: b"<<<" + config.split(b",")[0] + b">>>",
        "five": lambda: b"<<<" + config + b", 0, 0, 0>>>",
        "garbage": lambda: b"<<<" + config + b" ;{ >>>",
        "split": lambda: b"<< <" + config + b">> >",
        "unclose": lambda: b"<<<" + config,
        "drop-args": lambda: b"<<<" + config + b">>>;",
        "nested": lambda: b"<<<" + config + b">>>(0)<<<1, 1>>>",
        "template": lambda: b"<float><<<" + config + b">>>",
        "twice": lambda: b"<<<" + config + b">>><<<" + config + b">>>",
    }[op]()
    end = match.end()
    if op == "drop-args":  # also remove the argument list
        close = data.find(b")", end)
        end = close + 1 if close >= 0 else end
    return data[:match.start()] + new + data[end:]


_KEYWORDS = frozenset((
    "auto break case char const continue default do double else enum extern float for goto if "
    "inline int long register restrict return short signed sizeof static struct switch typedef "
    "union unsigned void volatile while bool true false class new delete template typename this "
    "namespace using operator public private protected virtual size_t dim3 nullptr NULL "
    "__global__ __device__ __host__ __shared__ __restrict__ threadIdx blockIdx blockDim gridDim "
    "pragma omp include define printf malloc free main").split())
_DECL_START = re.compile(rb"^\s*(?:const\s+|static\s+|unsigned\s+|struct\s+)*(?:int|float|double|"
                         rb"char|long|short|size_t|bool|auto|dim3|void|cudaError_t|cudaStream_t|"
                         rb"cudaEvent_t|[A-Z]\w*)\b[\s*&]*\w")


def _balanced(line: bytes) -> bool:
    depth = 0
    for start, end in _tokens(line):
        token = line[start:end]
        if token in (b"(", b"[", b"{"):
            depth += 1
        elif token in (b")", b"]", b"}"):
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _statement_lines(lines: list[bytes], declarations: bool = True) -> list[int]:
    """Lines holding one whole statement (``...;`` with balanced brackets, no directive)."""
    out = []
    for i, line in enumerate(lines):
        text = line.strip()
        if not text.endswith(b";") or text.startswith((b"#", b"//", b"/*", b"}", b"*")):
            continue
        if text.startswith((b"for", b"while", b"if", b"else", b"do", b"typedef", b"extern",
                            b"return")) or b"//" in text:
            continue
        if not declarations and _DECL_START.match(line):
            continue
        if _balanced(line):
            out.append(i)
    return out


def _indent(line: bytes) -> bytes:
    return line[:len(line) - len(line.lstrip())]


def m_statements(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """Statement-level changes that mostly keep the file compiling (they reach the analyses)."""
    lines = _lines(data)
    op = rng.choice(["delete", "duplicate", "swap", "wrap-if", "wrap-if0", "wrap-loop",
                     "wrap-do", "wrap-block", "goto", "move", "else"])
    candidates = _statement_lines(lines, declarations=op in ("delete", "swap", "move"))
    if not candidates:
        return m_delete_tokens(rng, data, m)
    i = rng.choice(candidates)
    line = lines[i]
    pad = _indent(line)
    m.steps.append(f"{op} line {i + 1}")
    if op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, line)
    elif op == "swap":
        near = [j for j in candidates if j != i and abs(j - i) <= 6]
        if near:
            j = rng.choice(near)
            lines[i], lines[j] = lines[j], lines[i]
    elif op == "move":
        near = [j for j in candidates if j != i and abs(j - i) <= 25]
        if near:
            lines.insert(rng.choice(near), lines.pop(i))
    elif op == "goto":
        lines[i] = line + b" goto s2s_fz_" + str(i).encode() + b"; s2s_fz_" + \
            str(i).encode() + b": ;"
    else:
        head, tail = {
            "wrap-if": (b"if (sizeof(int) == 4) {", b"}"),
            "wrap-if0": (b"if (0) {", b"}"),
            "wrap-loop": (b"for (int s2s_r = 0; s2s_r < 2; ++s2s_r) {", b"}"),
            "wrap-do": (b"do {", b"} while (0);"),
            "wrap-block": (b"{", b"}"),
            "else": (b"if (sizeof(int) != 4) { ; } else {", b"}"),
        }[op]
        lines[i] = pad + head + b" " + line.strip() + b" " + tail
    return b"\n".join(lines)


_OPERATOR_SWAPS = {
    b"+": (b"-",), b"-": (b"+",), b"/": (b"*",), b"%": (b"/",),
    b"<": (b"<=", b">", b"!="), b"<=": (b"<", b">="), b">": (b">=", b"<"), b">=": (b">",),
    b"==": (b"!=",), b"!=": (b"==", b"<"), b"&&": (b"||",), b"||": (b"&&",),
    b"++": (b"--",), b"--": (b"++",), b"+=": (b"-=", b"="), b"-=": (b"+=",), b"*=": (b"+=",),
}
_CONSTANTS = (b"0", b"1", b"2", b"3", b"-1", b"7", b"64", b"1024", b"65536", b"2147483647",
              b"4294967296", b"(1 << 20)", b"0x7fffffff")
def m_operators(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """Swap operators, numbers, and array or index names used nearby (often still valid)."""
    tokens = _tokens(data)
    spans: dict[str, list[tuple[int, int]]] = {"operator": [], "number": [], "array": [],
                                               "index": []}
    directive_lines = {i for i, line in enumerate(_lines(data))
                       if line.lstrip().startswith(b"#") and b"pragma" not in line}
    line_of = _line_index(data)
    text = [data[a:b] for a, b in tokens]
    scope: dict[int, int] = {}  # token start -> number of the top-level block holding it
    depth, block = 0, -1
    for k, (start, end) in enumerate(tokens):
        token = text[k]
        if token == b"{":
            depth += 1
            block += depth == 1
        elif token == b"}":
            depth = max(depth - 1, 0)
        scope[start] = block if depth else -1
        if line_of(start) in directive_lines:
            continue
        nxt = text[k + 1] if k + 1 < len(text) else b""
        prev = text[k - 1] if k else b""
        if token in _OPERATOR_SWAPS:
            spans["operator"].append((start, end))
        elif re.fullmatch(rb"\d+[uUlL]*", token):
            spans["number"].append((start, end))
        elif re.fullmatch(rb"[A-Za-z_]\w*", token) and token.decode() not in _KEYWORDS:
            if nxt == b"[":
                spans["array"].append((start, end))
            elif prev in (b"[", b"<", b"<=", b"+", b"-") or nxt in (b"]", b"<", b"<="):
                spans["index"].append((start, end))
    edits = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice([k for k, v in spans.items() if v] or ["operator"])
        if not spans.get(kind):
            break
        start, end = rng.choice(spans[kind])
        token = data[start:end]
        if kind == "operator":
            new = rng.choice(_OPERATOR_SWAPS[token])
        elif kind == "number":
            new = rng.choice(_CONSTANTS)
        else:
            near = sorted({data[a:b] for a, b in spans[kind]
                           if scope[a] == scope[start] >= 0} - {token})
            new = rng.choice(near) if near else token
        edits.append((start, end, new))
        m.steps.append(f"{token.decode(errors='replace')} -> {new.decode()} at {start}")
    for start, end, new in sorted(set(edits), reverse=True):
        data = data[:start] + new + data[end:]
    return data


def _line_index(data: bytes) -> Callable[[int], int]:
    import bisect

    starts = [0] + [i + 1 for i, c in enumerate(data) if c == 0x0A]
    return lambda offset: bisect.bisect_right(starts, offset) - 1


_MAP_TYPE = re.compile(rb"(map\s*\(\s*(?:always\s*,\s*)?)(tofrom|to|from|alloc)\s*:")
_MAP_CLAUSE = re.compile(rb"\s*\bmap\s*\((?:[^()]|\([^()]*\))*\)")
_ZERO_SECTION = re.compile(rb"\[(\s*0\s*):([^\]]+)\]")
_KERNEL_WORDS = re.compile(rb"target teams distribute parallel for simd|target teams distribute "
                           rb"parallel for|target parallel for|target teams loop")
_MAP_ITEM = re.compile(rb"\b(map|to|from)\s*\(([^():]*:)?\s*(\w+)\s*\[")


def m_pragma_valid(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """Changes of ``#pragma omp`` lines that keep them valid OpenMP (OpenMP files)."""
    pragmas = list(_PRAGMA.finditer(data))
    arrays = sorted({g.group(3) for p in pragmas for g in _MAP_ITEM.finditer(p.group())})
    lines = _lines(data)
    op = rng.choice(["map-type", "drop-map", "add-clause", "section", "directive",
                     "insert-update", "insert-data", "unpaired-enter", "if-clause"])
    if not pragmas or (not arrays and op in ("insert-update", "insert-data", "unpaired-enter")):
        return m_statements(rng, data, m)
    m.steps.append(op)
    if op in ("insert-update", "insert-data", "unpaired-enter"):
        array = rng.choice(arrays)
        section = rng.choice([b"[0:1]", b"[0:2]", b"[1:1]", b"[:1]"])
        candidates = _statement_lines(lines, declarations=False)
        if not candidates:
            return data
        i = rng.choice(candidates)
        pad = _indent(lines[i])
        if op == "insert-update":
            clause = rng.choice([b"from", b"to"])
            lines.insert(i + 1, pad + b"#pragma omp target update " + clause + b"(" + array
                         + section + b")")
        elif op == "unpaired-enter":
            lines.insert(i, pad + b"#pragma omp target enter data map(to: " + array + section
                         + b")")
        else:
            lines[i] = (pad + b"#pragma omp target data map(tofrom: " + array + section
                        + b")\n" + pad + b"{ " + lines[i].strip() + b" }")
        m.steps[-1] += f" {array.decode()}{section.decode()} at line {i + 1}"
        return b"\n".join(lines)
    applies = {"map-type": _MAP_TYPE, "drop-map": _MAP_CLAUSE, "section": _ZERO_SECTION,
               "directive": _KERNEL_WORDS, "add-clause": re.compile(rb"target(?! update)"),
               "if-clause": re.compile(rb"target(?! (?:update|data|enter|exit))")}[op]
    fitting = [p for p in pragmas if applies.search(p.group())]
    if not fitting:
        fitting, op = pragmas, "add-clause"
        m.steps[-1] = op
    match = rng.choice(fitting)
    start, end = match.span()
    text = match.group()
    if op == "map-type":
        text = _MAP_TYPE.sub(lambda g: g.group(1) + rng.choice(
            [t for t in (b"to", b"from", b"tofrom", b"alloc") if t != g.group(2)]) + b":",
            text, count=1)
    elif op == "drop-map":
        text = _MAP_CLAUSE.sub(b"", text, count=1)
    elif op == "add-clause":
        text = text + b" " + rng.choice([b"nowait", b"num_teams(4)", b"thread_limit(64)",
                                         b"collapse(1)", b"if(1)", b"if(target: 0)"])
    elif op == "if-clause":
        text = text + rng.choice([b" if(0)", b" if(1)", b" device(0)"])
    elif op == "section":
        text = _ZERO_SECTION.sub(lambda g: rng.choice(
            [b"[0:(" + g.group(2) + b")/2]", b"[1:(" + g.group(2) + b")-1]", b"[0:1]",
             b"[:" + g.group(2) + b"]", b"[" + g.group(2) + b"-1:1]"]), text, count=1)
    elif op == "directive":
        text = _KERNEL_WORDS.sub(lambda g: rng.choice(
            [w for w in (b"target parallel for", b"target teams distribute parallel for",
                         b"target teams loop", b"target teams distribute parallel for simd")
             if w != g.group()]), text, count=1)
    m.steps[-1] += f" at {start}"
    return data[:start] + text + data[end:]


_MEMCPY_KIND = re.compile(rb"cudaMemcpy(HostToDevice|DeviceToHost|DeviceToDevice|Default)\b")
_MALLOC_TARGET = re.compile(rb"cudaMalloc\s*\(\s*(?:\(\s*void\s*\*\*\s*\)\s*)?&\s*(\w+)")


def m_cuda_valid(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """CUDA host-code and kernel changes that mostly keep the file compiling (CUDA files)."""
    lines = _lines(data)
    op = rng.choice(["memcpy-kind", "memcpy-swap", "launch-config", "dup-launch", "drop-call",
                     "sync", "syncthreads", "early-return", "alias", "dup-memcpy"])
    m.steps.append(op)
    if op == "memcpy-kind":
        kinds = list(_MEMCPY_KIND.finditer(data))
        if kinds:
            k = rng.choice(kinds)
            new = rng.choice([b"HostToDevice", b"DeviceToHost", b"DeviceToDevice", b"Default"])
            return data[:k.start(1)] + new + data[k.end(1):]
    elif op == "memcpy-swap":
        calls = list(re.finditer(rb"cudaMemcpy\s*\(\s*([^,()]+),\s*([^,()]+),", data))
        if calls:
            c = rng.choice(calls)
            return data[:c.start(1)] + c.group(2) + b", " + c.group(1) + data[c.end(2):]
    elif op == "launch-config":
        launches = list(_LAUNCH.finditer(data))
        if launches:
            launch = rng.choice(launches)
            parts = launch.group(1).split(b",")
            new = rng.choice([b"1, 1", b"1, 32", b"dim3(2, 2), dim3(8, 8)",
                              parts[0] + b", " + (parts[1] if len(parts) > 1 else b"1") + b", 256",
                              launch.group(1) + (b", 0, 0" if len(parts) < 3 else b""),
                              b"(" + parts[0] + b") * 2, " + (parts[1] if len(parts) > 1
                                                              else b"1")])
            return data[:launch.start(1)] + new + data[launch.end(1):]
    elif op in ("dup-launch", "dup-memcpy", "drop-call"):
        pattern = {b"dup-launch": rb"<<<", b"dup-memcpy": rb"cudaMemcpy\w*\s*\(",
                   b"drop-call": rb"cuda(?:Memcpy|Free|Malloc|DeviceSynchronize)\w*\s*\("}[
            op.encode()]
        found = [i for i, line in enumerate(lines) if re.search(pattern, line)
                 and line.rstrip().endswith(b";") and _balanced(line)]
        if found:
            i = rng.choice(found)
            if op == "drop-call":
                del lines[i]
            else:
                lines.insert(i, lines[i])
            m.steps[-1] += f" line {i + 1}"
            return b"\n".join(lines)
    elif op in ("syncthreads", "early-return"):
        kernels = [k.end() for k in re.finditer(rb"__global__[^{;]*\{", data)]
        if kernels:
            at = rng.choice(kernels)
            text = b" __syncthreads(); " if op == "syncthreads" else \
                b" if (threadIdx.x == 7) return; "
            return data[:at] + text + data[at:]
    elif op == "alias":
        targets = list(_MALLOC_TARGET.finditer(data))
        if targets:
            t = rng.choice(targets)
            eol = data.find(b"\n", t.end())
            eol = len(data) if eol < 0 else eol
            name = t.group(1)
            return (data[:eol] + b"\n{ __typeof__(" + name + b") s2s_alias = " + name + b"; "
                    + name + b" = s2s_alias; }" + data[eol:])
    elif op == "sync":
        candidates = _statement_lines(lines, declarations=False)
        if candidates:
            i = rng.choice(candidates)
            lines.insert(i + 1, _indent(lines[i]) + b"cudaDeviceSynchronize();")
            return b"\n".join(lines)
    return m_statements(rng, data, m)


#: name -> (mutator, languages it applies to, weight)
MUTATORS: dict[str, tuple[Callable[[random.Random, bytes, Mutant], bytes], tuple[str, ...],
                          int]] = {
    "delete-tokens": (m_delete_tokens, ("cuda", "openmp"), 10),
    "duplicate-tokens": (m_duplicate_tokens, ("cuda", "openmp"), 8),
    "unbalance": (m_unbalance, ("cuda", "openmp"), 8),
    "random-bytes": (m_random_bytes, ("cuda", "openmp"), 6),
    "deep-nesting": (m_deep_nesting, ("cuda", "openmp"), 8),
    "huge-line": (m_huge_line, ("cuda", "openmp"), 5),
    "truncate": (m_truncate, ("cuda", "openmp"), 6),
    "swap-lines": (m_swap_lines, ("cuda", "openmp"), 8),
    "line-ends": (m_line_ends, ("cuda", "openmp"), 6),
    "encoding": (m_encoding, ("cuda", "openmp"), 6),
    "nul-bytes": (m_nul_bytes, ("cuda", "openmp"), 5),
    "preprocessor": (m_preprocessor, ("cuda", "openmp"), 5),
    "pragma": (m_pragma, ("openmp",), 10),
    "launch": (m_launch, ("cuda",), 5),
    # changes that mostly keep the program valid, so the analyses and rewrites run on them
    "statements": (m_statements, ("cuda", "openmp"), 22),
    "operators": (m_operators, ("cuda", "openmp"), 18),
    "pragma-valid": (m_pragma_valid, ("openmp",), 26),
    "cuda-valid": (m_cuda_valid, ("cuda",), 26),
}


def mutate(rng: random.Random, sample: SampleFile, data: bytes) -> Mutant:
    """One to three mutations of ``data`` (2% of the cases: none, the sample as it is)."""
    mutant = Mutant(data)
    if rng.random() < 0.02:
        mutant.steps.append("unmutated")
        return mutant
    names = [n for n, (_f, langs, _w) in MUTATORS.items() if sample.language in langs]
    weights = [MUTATORS[n][2] for n in names]
    count = rng.choices([1, 2, 3], [60, 30, 10])[0]
    for name in rng.choices(names, weights, k=count):
        before = len(mutant.steps)
        mutant.data = MUTATORS[name][0](rng, mutant.data, mutant)
        if len(mutant.steps) == before:
            mutant.steps.append("no change")
        mutant.steps[before:] = [f"{name}: {step}" for step in mutant.steps[before:]]
    return mutant


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------


@dataclass
class Case:
    seed: int
    sample: SampleFile
    mutant: Mutant
    cuda_path: str  # "shim" or "auto"
    inspect_flags: tuple[str, ...]
    explain: tuple[str, ...]  # rewrite commands run with --explain
    check_command: str
    inplace_command: str
    backup: bool
    output_dir: bool
    verify: bool
    subprocess: bool
    nvcc: bool
    flags: tuple[str, ...] = ()  # parse options for every run (--cuda-side, -x)

    def describe(self) -> str:
        return f"seed {self.seed}: {self.sample.name}: " + "; ".join(self.mutant.steps)


@dataclass(frozen=True)
class CaseOptions:
    """Rates of the optional parts of a case, and cases forced to them."""

    verify_rate: float = DEFAULT_VERIFY_RATE
    subprocess_rate: float = DEFAULT_SUBPROCESS_RATE
    toolkit_rate: float = DEFAULT_TOOLKIT_RATE
    nvcc_rate: float = DEFAULT_NVCC_RATE
    force_verify: frozenset[int] = frozenset()
    force_subprocess: frozenset[int] = frozenset()


_CORPUS_CACHE: dict[Path, list[SampleFile]] = {}


def make_case(seed: int, options: CaseOptions = CaseOptions(),
              root: Path = SAMPLES_ROOT) -> Case:
    """The case of ``seed``: everything below comes from ``random.Random(seed)`` only."""
    files = _CORPUS_CACHE.get(root)
    if files is None:
        files = _CORPUS_CACHE[root] = corpus(root)
    rng = random.Random(seed)
    sample = rng.choice(files)
    mutant = mutate(rng, sample, sample.path.read_bytes())
    inspect_flags: tuple[str, ...] = ()
    if rng.random() < 0.3:
        inspect_flags += ("--format", "json")
    if rng.random() < 0.2:
        inspect_flags += ("--access",)
    explain = tuple(c for c in REWRITE_COMMANDS if rng.random() < 0.3)
    check_command = rng.choice(REWRITE_COMMANDS)
    inplace_command = rng.choice(REWRITE_COMMANDS)
    backup = rng.random() < 0.3
    output_dir = rng.random() < 0.2
    verify = rng.random() < options.verify_rate or seed in options.force_verify
    sub = rng.random() < options.subprocess_rate or seed in options.force_subprocess
    cuda_path = "auto" if rng.random() < options.toolkit_rate else "shim"
    nvcc = rng.random() < options.nvcc_rate
    flags: tuple[str, ...] = ()
    if sample.language == "cuda":
        side = rng.choices(["auto", "host", "device", "both"], [70, 10, 10, 10])[0]
        flags = ("--cuda-side", side) if side != "auto" else ()
    elif sample.path.suffix == ".c" and rng.random() < 0.05:
        flags = ("-x", "c++")
    return Case(seed, sample, mutant, cuda_path, inspect_flags, explain, check_command,
                inplace_command, backup, output_dir, verify, sub, nvcc, flags)


# --------------------------------------------------------------------------------------------
# Running s2s: in-process and as a subprocess
# --------------------------------------------------------------------------------------------


@dataclass
class RunOutput:
    argv: list[str]
    returncode: int  # negative: killed by that signal
    stdout: str
    stderr: str
    seconds: float
    exception: str | None = None  # an exception that escaped main() (in-process only)
    timed_out: bool = False


def run_inprocess(argv: list[str]) -> RunOutput:
    """``s2s.cli.main.main(argv)`` with Python-level and fd-level stdout/stderr captured."""
    from s2s.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    raw = tempfile.TemporaryFile()
    os.dup2(raw.fileno(), 1)
    os.dup2(raw.fileno(), 2)
    exception = None
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else (
                    0 if exit_.code is None else 1)
                if not isinstance(exit_.code, (int, type(None))):
                    err.write(str(exit_.code) + "\n")
            except BaseException:  # noqa: BLE001 - what escapes main is the finding
                code = 2
                exception = traceback.format_exc()
    finally:
        seconds = time.perf_counter() - start
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
    raw.seek(0)
    fd_text = raw.read().decode("utf-8", errors="replace")
    raw.close()
    if not isinstance(code, int):
        code = 2
    return RunOutput(argv, code, out.getvalue(), err.getvalue() + fd_text, seconds, exception)


def run_subprocess(argv: list[str], timeout: float, env: dict[str, str] | None = None
                   ) -> RunOutput:
    """``python -m s2s ARGV`` as a real process (segfaults show as a negative status)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "s2s", *argv], capture_output=True,
                              timeout=timeout, env=env, cwd=REPO_ROOT, start_new_session=True)
    except subprocess.TimeoutExpired as expired:
        return RunOutput(argv, -signal.SIGKILL, _text(expired.stdout), _text(expired.stderr),
                         time.perf_counter() - start, timed_out=True)
    return RunOutput(argv, proc.returncode, _text(proc.stdout), _text(proc.stderr),
                     time.perf_counter() - start)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")


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
_EXIT_2_IDS = ("usage",)


def check_run(run: RunOutput, step: str, sources: dict[str, bytes],
              allowed_exit_2: Sequence[str] = _EXIT_2_IDS) -> list[Failure]:
    """The invariants of one run's exit status and outputs (``sources``: path -> bytes)."""
    failures = []
    text = run.stdout + "\n" + run.stderr
    if run.timed_out:
        failures.append(Failure("hang", step, f"no exit after {run.seconds:.0f} s"))
    elif run.returncode < 0 or run.returncode in (134, 139):
        failures.append(Failure("crash", step, f"exit status {run.returncode} "
                                f"({_signal_name(run.returncode)}); {_tail(run.stderr)}"))
    if run.exception is not None:
        failures.append(Failure("exception", step, _last_line(run.exception)))
    elif TRACEBACK in text:
        tb = text[text.index(TRACEBACK):]
        failures.append(Failure("traceback", step, _exception_line(tb)))
    ids = [m.group("id") for m in map(HEADLINE.match, run.stderr.split("\n")) if m]
    ids += re.findall(r"^(?:error|warning|note): .* \[([A-Za-z0-9_.*+-]+)\]$", run.stderr, re.M)
    for line in run.stderr.split("\n"):
        if "[internal]" in line:
            failures.append(Failure("internal-error", step, _strip_location(line)))
            break
    for line in run.stderr.split("\n"):
        if "[edit-conflict]" in line:
            failures.append(Failure("edit-conflict", step, _strip_location(line)))
            break
    if not run.timed_out and run.returncode >= 0:
        if run.returncode > 2:
            failures.append(Failure("exit-code", step, f"exit status {run.returncode}"))
        elif run.returncode == 2 and run.exception is None and not any(
                i == "internal" or any(fnmatch.fnmatchcase(i, p) for p in allowed_exit_2)
                for i in ids):
            failures.append(Failure("exit-code", step, "exit status 2 without a usage "
                                    f"diagnostic; {_tail(run.stderr)}"))
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


def _signal_name(code: int) -> str:
    number = -code if code < 0 else code - 128
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _tail(text: str, n: int = 200) -> str:
    text = text.strip().replace("\n", " | ")
    return text[-n:]


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().split("\n") if line.strip()]
    return lines[-1][:300] if lines else ""


def _exception_line(tb: str) -> str:
    for line in tb.split("\n")[1:]:
        if line and not line.startswith(" "):
            return line[:300]
    return _last_line(tb)


def _strip_location(line: str) -> str:
    match = HEADLINE.match(line)
    if match:
        return f"{match.group('sev')}: {match.group('msg')} [{match.group('id')}]"[:300]
    return line[:300]


def apply_unified_diff(original: bytes, diff: str) -> bytes | None:
    """Apply a diff of ``s2s --diff`` (one file) to ``original``; None if it does not apply."""
    from s2s.output import _lines, diff_bytes

    if not diff:
        return original
    old = _lines(original)
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
        head = hunk.match(text_lines[i])
        if not head:
            return None
        start = int(head.group(1)) - (0 if head.group(2) == "0" else 1)
        if start < position:
            return None
        out.extend(old[position:start])
        position = start
        i += 1
        while i < len(text_lines) and not text_lines[i].startswith("@@"):
            line = text_lines[i]
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


# --------------------------------------------------------------------------------------------
# One case
# --------------------------------------------------------------------------------------------


@dataclass
class CaseResult:
    seed: int
    sample: str
    mutations: list[str]
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    runs: int = 0
    subprocess: bool = False
    verify: bool = False
    nesting: dict[str, int] = field(default_factory=dict)
    parsed: bool | None = None  # whether the mutant loaded without errors (inspect exit 0)
    notes: list[str] = field(default_factory=list)  # worth a look, not failures
    timings: list[tuple[str, float]] = field(default_factory=list)  # (step, seconds)

    @property
    def new_failures(self) -> list[Failure]:
        return [f for f in self.failures if f.known is None]

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> CaseResult:
        data = dict(data)
        data["failures"] = [Failure(**f) for f in data.get("failures", ())]
        return cls(**data)


def _hash_tree(root: Path, skip: Path | None = None) -> dict[str, str]:
    hashes = {}
    for path in sorted(root.rglob("*")):
        if skip is not None and (path == skip or skip in path.parents):
            continue
        if path.is_file():
            hashes[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


def _leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob(".s2s-*.tmp"))


class _Steps:
    """Runs steps of a case, checking the shared invariants after each one."""

    def __init__(self, case: Case, root: Path, runner: Callable[[list[str]], RunOutput],
                 on_step: Callable[[str], None], only: str | None):
        self.case, self.root, self.runner, self.on_step, self.only = case, root, runner, \
            on_step, only
        self.failures: list[Failure] = []
        self.runs = 0
        self.timings: list[tuple[str, float]] = []
        self.inputs = root / "in"
        self.copies = root / "copy"
        self.sources: dict[str, bytes] = {}

    def wanted(self, command: str) -> bool:
        return self.only is None or self.only == command

    def run(self, step: str, argv: list[str], watch_skip: Sequence[Path] = (),
            allowed_exit_2: Sequence[str] = _EXIT_2_IDS) -> RunOutput:
        self.on_step(step)
        before = _hash_tree(self.inputs)
        copies_before = _hash_tree(self.copies) if self.copies.exists() else {}
        run = self.runner(argv)
        self.runs += 1
        self.timings.append((step, round(run.seconds, 3)))
        self.failures += check_run(run, step, self.sources, allowed_exit_2)
        after = _hash_tree(self.inputs)
        if after != before:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            self.failures.append(Failure("input-changed", step, f"files changed: {changed}"))
        if self.copies.exists():
            skip = tuple(watch_skip) if watch_skip else ()
            copies_after = {k: v for k, v in _hash_tree(self.copies).items()
                            if self.copies / k not in skip}
            expected = {k: v for k, v in copies_before.items() if self.copies / k not in skip}
            if copies_after != expected:
                changed = sorted(k for k in set(expected) | set(copies_after)
                                 if expected.get(k) != copies_after.get(k))
                self.failures.append(Failure("input-changed", step,
                                             f"other files changed: {changed}"))
        left = _leftovers(self.root)
        if left:
            self.failures.append(Failure("tmp-leftover", step, f"left behind: {left}"))
            for name in left:
                (self.root / name).unlink(missing_ok=True)
        return run


def run_case(case: Case, root: Path, runner: Callable[[list[str]], RunOutput],
             on_step: Callable[[str], None] = lambda step: None, only: str | None = None,
             verify_timeout: float = 10.0) -> CaseResult:
    """Run ``case`` under ``root`` (an empty directory) and check every invariant."""
    start = time.perf_counter()
    result = CaseResult(case.seed, case.sample.name, list(case.mutant.steps),
                        subprocess=case.subprocess, verify=case.verify,
                        nesting=dict(case.mutant.nesting))
    steps = _Steps(case, root, runner, on_step, only)
    steps.inputs.mkdir(parents=True)
    for companion in _companions(case.sample.directory):
        shutil.copyfile(companion, steps.inputs / companion.name)
    target = steps.inputs / case.sample.path.name
    target.write_bytes(case.mutant.data)
    steps.sources = {str(steps.inputs / p.name): (steps.inputs / p.name).read_bytes()
                     for p in steps.inputs.iterdir()}
    common = (["--cuda-path", "shim"] if case.cuda_path == "shim" else []) + list(case.flags)
    diffs: dict[str, RunOutput] = {}

    if steps.wanted("inspect"):
        step = " ".join(["inspect", *case.inspect_flags])
        run = steps.run(step, ["inspect", str(target), *case.inspect_flags, *common])
        result.parsed = run.returncode == 0
        if "json" in case.inspect_flags and run.returncode in (0, 1):
            try:
                json.loads(run.stdout)
            except ValueError as error:
                steps.failures.append(Failure("bad-json", step, f"stdout is not JSON: {error}"))
            except RecursionError:
                result.notes.append("inspect --format json: nested deeper than Python's json "
                                    "module reads with its default recursion limit")
    for command in REWRITE_COMMANDS:
        if not steps.wanted(command):
            continue
        explain = ["--explain"] if command in case.explain else []
        diffs[command] = run = steps.run(f"{command} --diff",
                                         [command, "--diff", str(target), *explain, *common])
        if run.returncode == 0 or run.returncode == 1:
            applied = apply_unified_diff(case.mutant.data, run.stdout)
            if applied is None:
                steps.failures.append(Failure("bad-diff", f"{command} --diff",
                                              f"the diff does not apply: {run.stdout[:200]!r}"))
    if case.check_command in diffs:
        command = case.check_command
        run = steps.run(f"{command} --check", [command, "--check", str(target), *common])
        diff = diffs[command]
        expected = 1 if (diff.returncode == 1 or diff.stdout) else 0
        if run.returncode in (0, 1) and diff.returncode in (0, 1) \
                and run.returncode != expected:
            steps.failures.append(Failure("mode-mismatch", f"{command} --check",
                                          f"--check exits {run.returncode}, but --diff exited "
                                          f"{diff.returncode} with "
                                          f"{'a' if diff.stdout else 'no'} diff"))
    if case.inplace_command in diffs:
        _in_place(case, steps, diffs[case.inplace_command], common)
    if case.verify and only in (None, "verify"):
        program = [str(steps.inputs / name) for name in case.sample.program
                   if (steps.inputs / name).exists()] or [str(target)]
        run = steps.run("verify", ["verify", *program, "--timeout", str(verify_timeout),
                                   *common], allowed_exit_2=("usage", "verify-*", "toolchain"))
        # A mutant may read uninitialized memory, so a different behaviour is a lead to look
        # at, not a failure by itself.
        said = [line for line in run.stderr.split("\n") if line.endswith(
            ("[verify-output]", "[verify-unmapped]", "[verify-exit-status]"))]
        if said:
            result.notes.append("verify: the rewritten program behaves differently: "
                                + _strip_location(said[0]))
    result.failures = _dedup(steps.failures)
    for failure in result.failures:
        failure.known = known_defect(failure, case.mutant.nesting)
    result.runs = steps.runs
    result.timings = steps.timings
    result.seconds = time.perf_counter() - start
    return result


def _in_place(case: Case, steps: _Steps, diff: RunOutput, common: list[str]) -> None:
    command = case.inplace_command
    steps.copies.mkdir()
    for path in steps.inputs.iterdir():
        shutil.copyfile(path, steps.copies / path.name)
    copy = steps.copies / case.sample.path.name
    steps.sources.update({str(steps.copies / p.name): p.read_bytes()
                          for p in steps.copies.iterdir()})
    backup = ["--backup", ".orig"] if case.backup else []
    step = f"{command} --in-place"
    backup_path = Path(str(copy) + ".orig")
    run = steps.run(step, [command, "--in-place", str(copy), *backup, *common],
                    watch_skip=(copy, backup_path))
    after = copy.read_bytes()
    if run.returncode in (0, 1) and diff.returncode == run.returncode:
        expected = apply_unified_diff(case.mutant.data, diff.stdout)
        if expected is not None:  # mgpu writes the file's directory into the file
            expected = expected.replace(str(steps.inputs).encode(), str(steps.copies).encode())
        if expected is not None and after != expected:
            steps.failures.append(Failure("mode-mismatch", step, "the file written in place is "
                                          "not the mutant with the --diff output applied"))
    elif run.returncode in (0, 1) and diff.returncode in (0, 1):
        steps.failures.append(Failure("mode-mismatch", step, f"--in-place exits "
                                      f"{run.returncode}, --diff exited {diff.returncode}"))
    if case.backup:
        if after != case.mutant.data:
            if not backup_path.exists() or backup_path.read_bytes() != case.mutant.data:
                steps.failures.append(Failure("mode-mismatch", step, "--backup did not keep "
                                              "the original"))
        elif backup_path.exists():
            steps.failures.append(Failure("mode-mismatch", step, "--backup written for an "
                                          "unchanged file"))
        backup_path.unlink(missing_ok=True)
    if case.output_dir:
        out_dir = steps.root / "out"
        run_o = steps.run(f"{command} -o", [command, "-o", str(out_dir),
                                            str(steps.inputs / case.sample.path.name), *common])
        written = out_dir / case.sample.path.name
        if run_o.returncode == 0 and run.returncode == 0:
            in_place = after.replace(str(steps.copies).encode(), str(steps.inputs).encode())
            if not written.exists() or written.read_bytes() != in_place:
                steps.failures.append(Failure("mode-mismatch", f"{command} -o", "-o DIR wrote "
                                              "something else than --in-place"))
        shutil.rmtree(out_dir, ignore_errors=True)
    if after != case.mutant.data and run.returncode == 0:
        steps.sources[str(copy)] = after
        again = steps.run(f"{command} --in-place (second run)",
                          [command, "--in-place", str(copy), *common, "--",
                           f"-I{RUNTIME_INCLUDE}"], watch_skip=(copy,))
        if copy.read_bytes() != after:
            steps.failures.append(Failure("not-idempotent", f"{command} --in-place (second run)",
                                          "a second --in-place run changed the file again"))
        elif again.returncode != 0:
            steps.failures.append(Failure("rewrite-unparsable", f"{command} --in-place "
                                          "(second run)", "s2s fails on its own output: "
                                          + _tail(again.stderr)))


def _dedup(failures: list[Failure]) -> list[Failure]:
    seen, out = set(), []
    for failure in failures:
        key = (failure.kind, failure.step, failure.detail)
        if key not in seen:
            seen.add(key)
            out.append(failure)
    return out


# --------------------------------------------------------------------------------------------
# Known defects (being fixed elsewhere): only these may be marked as expected
# --------------------------------------------------------------------------------------------

#: depth of parentheses from which libclang is known to crash (issue 16)
KNOWN_PARENS_DEPTH = 1300
#: depth of nested blocks known to raise RecursionError (issue 16: 1000 nested blocks)
KNOWN_BLOCKS_DEPTH = 300


def known_defect(failure: Failure, nesting: dict[str, int]) -> str | None:
    """The name of the known defect ``failure`` is an instance of, or None."""
    parens = max(nesting.get("parens", 0), nesting.get("macro", 0))
    if failure.kind in ("crash", "hang") and parens > KNOWN_PARENS_DEPTH:
        return f"deep parentheses ({parens}) crash libclang"
    if "RecursionError" in failure.detail and nesting.get("blocks", 0) >= KNOWN_BLOCKS_DEPTH:
        return f"{nesting['blocks']} nested blocks raise RecursionError"
    return None


# --------------------------------------------------------------------------------------------
# Workers: cases in-process in child processes, with time limits and crash detection
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FuzzConfig:
    case_options: CaseOptions = CaseOptions()
    case_timeout: float = DEFAULT_CASE_TIMEOUT
    verify_timeout: float = 10.0
    keep: str | None = None  # keep every case's directory under here (else only failures')
    samples: str = str(SAMPLES_ROOT)

    def to_json(self) -> dict:
        data = asdict(self)
        data["case_options"]["force_verify"] = sorted(self.case_options.force_verify)
        data["case_options"]["force_subprocess"] = sorted(self.case_options.force_subprocess)
        return data

    @classmethod
    def from_json(cls, data: dict) -> FuzzConfig:
        co = dict(data["case_options"])
        co["force_verify"] = frozenset(co["force_verify"])
        co["force_subprocess"] = frozenset(co["force_subprocess"])
        return cls(CaseOptions(**co), data["case_timeout"], data["verify_timeout"],
                   data["keep"], data["samples"])


def _case_env(case: Case) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("S2S_SILENCE", None)
    env.pop("S2S_CUDA_PATH", None)
    env["S2S_FUSE_NVCC"] = "1" if case.nvcc else "0"
    return env


def execute(request: dict, config: FuzzConfig, on_step: Callable[[str], None]) -> CaseResult:
    """Run one request (``{"seed": N}``, optionally with ``data`` (base64) and ``only``)."""
    case = make_case(request["seed"], config.case_options, Path(config.samples))
    if "data" in request:
        case.mutant.data = base64.b64decode(request["data"])
    if "force" in request:  # minimisation: the same steps as the failing case
        for key, value in request["force"].items():
            setattr(case, key, value)
    env = _case_env(case)
    if case.subprocess or request.get("subprocess"):
        # wall limit far off: the watchdog judges the run by its CPU time (_Watchdog)
        runner = lambda argv: run_subprocess(  # noqa: E731
            argv, config.case_timeout * _Watchdog.WALL_FACTOR, env)
    else:
        os.environ.clear()
        os.environ.update(env)
        runner = run_inprocess
    root = Path(tempfile.mkdtemp(prefix=f"s2s-fuzz-{case.seed}-"))
    result = None
    try:
        result = run_case(case, root, runner, on_step, request.get("only"),
                          config.verify_timeout)
        return result
    finally:
        if config.keep and (result is None or result.failures or request.get("keep")):
            dest = Path(config.keep) / f"seed-{case.seed}"
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(root, dest, symlinks=True)
        shutil.rmtree(root, ignore_errors=True)


def worker_main(config_json: str) -> int:
    """``python -m s2s.verify.fuzz worker CONFIG``: one request per stdin line, JSON replies."""
    config = FuzzConfig.from_json(json.loads(config_json))
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # stray writes to fd 1 must not corrupt the protocol
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115

    def say(message: dict) -> None:
        proto.write(json.dumps(message) + "\n")
        proto.flush()

    import s2s.cli.main  # noqa: F401  (import once, before the first case is timed)

    say({"ready": True})
    for line in sys.stdin:
        request = json.loads(line)
        if "selftest" in request:  # the pool's own tests: crash, hang or crawl on purpose
            say({"step": f"selftest {request['selftest']}"})
            _selftest(request, say)
            continue
        try:
            result = execute(request, config, lambda step: say({"step": step}))
            say({"result": result.to_json()})
        except Exception:  # noqa: BLE001 - a bug of the fuzzer: report it, keep going
            say({"error": traceback.format_exc()})
    return 0


def _selftest(request: dict, say: Callable[[dict], None]) -> None:
    """The pool's own tests: ``segv`` crashes, ``hang`` waits forever (no CPU), ``spin`` works
    forever, ``crawl`` runs ``seconds`` of wall time on a sliver of CPU (a loaded machine) and
    then answers."""
    kind = request["selftest"]
    if kind == "segv":
        import ctypes

        ctypes.string_at(0)
    end = time.monotonic() + request.get("seconds", 3600.0)
    while time.monotonic() < end:
        if kind == "spin":
            continue
        busy = time.process_time() + 0.01
        while kind == "crawl" and time.process_time() < busy:
            pass
        time.sleep(0.2 if kind == "crawl" else 1.0)
    say({"result": CaseResult(-1, f"selftest {kind}", []).to_json()})


class _Worker:
    def __init__(self, config: FuzzConfig):
        self.config = config
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "s2s.verify.fuzz", "worker", json.dumps(config.to_json())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, cwd=REPO_ROOT,
            start_new_session=True, text=True, bufsize=1)
        self.ready = False

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()

    def stderr_tail(self) -> str:
        self.log.seek(0)
        return _tail(self.log.read().decode("utf-8", errors="replace"), 300)

    def request(self, request: dict, timeout: float) -> tuple[CaseResult | None, str, str]:
        """(result, last step, problem): problem is "", "hang", "crash" or "error:...";
        ``self.expired`` says why a hang was called (:class:`_Watchdog`)."""
        fired = threading.Event()
        self.expired = ""

        def expire(reason: str = "") -> None:
            self.expired = reason or f"the worker did not start in {max(timeout, 120.0):.0f} s"
            fired.set()
            self.kill()

        step = "start"
        if not self.ready:  # the worker imports s2s first: not part of the case's time
            timer = threading.Timer(max(timeout, 120.0), expire)
            timer.start()
            try:
                line = self.proc.stdout.readline()
            finally:
                timer.cancel()
            if not line:
                self.proc.wait()
                return None, step, "hang" if fired.is_set() else "crash"
            self.ready = True
        timer = _Watchdog(self.proc.pid, timeout, expire)
        timer.start()
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    break
                message = json.loads(line)
                if "step" in message:
                    step = message["step"]
                elif "result" in message:
                    return CaseResult.from_json(message["result"]), step, ""
                elif "error" in message:
                    return None, step, "error:" + message["error"]
        except (BrokenPipeError, OSError):
            pass
        finally:
            timer.cancel()
        self.proc.wait()
        return None, step, "hang" if fired.is_set() else "crash"


class _Watchdog(threading.Thread):
    """Calls ``expire(reason)`` when a case's worker hangs: a limit on the CPU time of the
    worker and its children, not on wall time. Why: on a machine loaded 20 times over, cases
    that do bounded work (``fuse`` on horner.cu: 50 s of CPU for its four runs) took more than
    their wall limit and were reported as hangs. A case is a hang when its process tree used
    more than ``limit`` CPU seconds (work without end), when it made no CPU progress for
    ``stall`` seconds after ``limit`` of wall time (a blocked wait: a FIFO, a lock), or after
    ``WALL_FACTOR`` times ``limit`` of wall time whatever the load."""

    WALL_FACTOR = 10.0
    POLL = 0.5

    def __init__(self, pid: int, limit: float, expire: Callable[[str], None]):
        super().__init__(daemon=True)
        self.pid, self.limit, self.expire = pid, limit, expire
        self.stall = max(2.0, min(30.0, limit / 4))
        self.done = threading.Event()

    def cancel(self) -> None:
        self.done.set()

    def run(self) -> None:
        start = time.monotonic()
        base = tree_cpu_seconds(self.pid)
        progress_at, last = start, 0.0
        while not self.done.wait(self.POLL):
            now = time.monotonic()
            used = tree_cpu_seconds(self.pid) - base
            if used > last + 0.05:
                progress_at, last = now, used
            wall = now - start
            if used > self.limit:
                reason = f"the case used more than {self.limit:.0f} s of CPU ({wall:.0f} s wall)"
            elif wall > self.limit and now - progress_at > self.stall:
                reason = (f"the case made no progress for {now - progress_at:.0f} s "
                          f"({wall:.0f} s wall, {used:.0f} s of CPU)")
            elif wall > self.limit * self.WALL_FACTOR:
                reason = f"the case did not finish in {wall:.0f} s wall ({used:.0f} s of CPU)"
            else:
                continue
            self.expire(reason)
            return


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) of ``pid``, its waited-for children and its live
    descendants, from /proc (0.0 where /proc cannot be read)."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    stats: dict[int, tuple[int, float]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0.0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # after the command's ")": state, ppid, ... utime (12th), stime, cutime, cstime
        stats[int(entry)] = (int(fields[1]), sum(int(v) for v in fields[11:15]) / ticks)
    children: dict[int, list[int]] = {}
    for child, (parent, _) in stats.items():
        children.setdefault(parent, []).append(child)
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        total += stats.get(current, (0, 0.0))[1]
        todo.extend(children.get(current, ()))
    return total


class Pool:
    """``jobs`` workers; ``run(requests)`` yields one CaseResult per request, as they finish."""

    def __init__(self, config: FuzzConfig = FuzzConfig(), jobs: int = 2):
        self.config = config
        self.jobs = max(1, jobs)

    def run(self, requests: Iterable[dict]) -> Iterator[CaseResult]:
        import queue

        todo: queue.Queue = queue.Queue()
        for request in requests:
            todo.put(request)
        done: queue.Queue = queue.Queue()

        def serve() -> None:
            worker = _Worker(self.config)
            try:
                while True:
                    try:
                        request = todo.get_nowait()
                    except queue.Empty:
                        return
                    timeout = request.get("timeout", self.config.case_timeout)
                    start = time.perf_counter()
                    result, step, problem = worker.request(request, timeout)
                    if result is None:
                        result = self._lost(request, step, problem, worker,
                                            time.perf_counter() - start)
                        worker.close()
                        worker = _Worker(self.config)
                    done.put(result)
            finally:
                worker.close()

        threads = [threading.Thread(target=serve, daemon=True) for _ in range(self.jobs)]
        total = todo.qsize()
        for thread in threads:
            thread.start()
        for _ in range(total):
            yield done.get()
        for thread in threads:
            thread.join()

    def _lost(self, request: dict, step: str, problem: str, worker: _Worker,
              seconds: float) -> CaseResult:
        """The result of a request whose worker died or ran out of time."""
        seed = request.get("seed", -1)
        try:
            case = make_case(seed, self.config.case_options, Path(self.config.samples)) \
                if "seed" in request else None
        except Exception:  # noqa: BLE001
            case = None
        result = CaseResult(seed, case.sample.name if case else "?",
                            list(case.mutant.steps) if case else [],
                            subprocess=bool(case and case.subprocess),
                            verify=bool(case and case.verify),
                            nesting=dict(case.mutant.nesting) if case else {})
        result.seconds = seconds
        if problem == "hang":
            failure = Failure("hang", step, worker.expired)
        elif problem.startswith("error:"):
            failure = Failure("fuzzer-error", step, _last_line(problem[6:]))
        else:
            code = worker.proc.returncode
            failure = Failure("crash", step, f"worker exit status {code} "
                              f"({_signal_name(code) if code else 'no reply'}); "
                              f"{worker.stderr_tail()}")
        failure.known = known_defect(failure, result.nesting)
        result.failures = [failure]
        return result


def fuzz(seeds: Iterable[int], config: FuzzConfig = FuzzConfig(), jobs: int = 2
         ) -> Iterator[CaseResult]:
    """Run the cases of ``seeds`` on ``jobs`` workers; results in completion order."""
    return Pool(config, jobs).run({"seed": seed} for seed in seeds)


# --------------------------------------------------------------------------------------------
# Minimisation
# --------------------------------------------------------------------------------------------


def _units(data: bytes, level: str) -> list[bytes]:
    if level == "lines":
        return data.split(b"\n")
    if level == "tokens":
        out, last = [], 0
        for _start, end in _tokens(data):
            out.append(data[last:end])
            last = end
        out.append(data[last:])
        return out
    return [bytes([b]) for b in data]


def _join(units: list[bytes], level: str) -> bytes:
    return b"\n".join(units) if level == "lines" else b"".join(units)


def minimise(seed: int, failure: Failure, config: FuzzConfig = FuzzConfig(),
             max_probes: int = 400, data: bytes | None = None,
             log: Callable[[str], None] = lambda text: None) -> bytes:
    """The smallest mutant found (delta debugging) on which ``failure``'s signature persists.

    Each probe reruns only the failing subcommand's steps of the case in a worker (so crashes
    and hangs are probes like the others).
    """
    case = make_case(seed, config.case_options, Path(config.samples))
    command = failure.step.split()[0] if failure.step else None
    only = command if command in COMMANDS + ("verify",) else None
    target = failure.signature()
    timeout = min(config.case_timeout, 60.0)
    force = {"check_command": case.check_command, "inplace_command": case.inplace_command}
    pool = Pool(config, jobs=1)
    worker = _Worker(config)
    probes = 0

    def fails(candidate: bytes) -> bool:
        nonlocal worker, probes
        probes += 1
        request = {"seed": seed, "data": base64.b64encode(candidate).decode(), "only": only,
                   "force": force}
        result, step, problem = worker.request(request, timeout)
        if result is None:
            result = pool._lost(request, step, problem, worker, 0.0)
            worker.close()
            worker = _Worker(config)
        return any(f.signature() == target for f in result.failures)

    current = case.mutant.data if data is None else data
    try:
        if not fails(current):
            log("the failure does not reproduce with only its subcommand")
            return current
        for level in ("lines", "tokens", "bytes"):
            units = _units(current, level)
            if level == "bytes" and len(units) > 400:
                continue
            n = 2
            while len(units) >= 2 and probes < max_probes:
                chunk = max(1, len(units) // n)
                reduced = False
                for start in range(0, len(units), chunk):
                    candidate_units = units[:start] + units[start + chunk:]
                    if probes >= max_probes:
                        break
                    if fails(_join(candidate_units, level)):
                        units = candidate_units
                        n = max(n - 1, 2)
                        reduced = True
                        log(f"{level}: {len(_join(units, level))} bytes")
                        break
                if not reduced:
                    if chunk == 1:
                        break
                    n = min(len(units), n * 2)
            current = _join(units, level)
    finally:
        worker.close()
    return current


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["worker"] and len(argv) == 2:
        return worker_main(argv[1])
    print("usage: python -m s2s.verify.fuzz worker CONFIG_JSON (see scripts/bench_fuzz.py)",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
