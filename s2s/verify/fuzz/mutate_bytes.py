"""Mutations that damage a file's bytes: tokens, brackets, bytes, nesting, lines,
line ends, encodings and preprocessor lines (any language)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

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


def token_spans(data: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(data)]


def _statement_points(data: bytes) -> list[int]:
    """Offsets just after a ';', '{' or '}' inside braces (a new statement fits there)."""
    depth, points = 0, []
    for start, end in token_spans(data):
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


def split_lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def m_delete_tokens(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    tokens = token_spans(data)
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
    tokens = token_spans(data)
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
    tokens = token_spans(data)
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
            tokens = token_spans(data)
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
        lines = split_lines(data)
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
        for line in split_lines(data):
            if line.lstrip().startswith(b"#") or (out and out[-1].endswith(b"\\")):
                out.append(b"\n" + line + b"\n")
                continue
            comment = line.find(b"//")
            if comment >= 0 and b"*/" not in line and b'"' not in line:
                line = line[:comment] + b"/*" + line[comment + 2:] + b"*/"
            out.append(line + b" ")
        return b"".join(out)
    if kind == "whitespace":
        tokens = token_spans(data)
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
        tokens = token_spans(data)
        if tokens:
            at = rng.choice(tokens)[1]
            m.steps.append(f"truncate after token at {at}")
            return data[:at]
    if mode == "lines":
        lines = split_lines(data)
        keep = rng.randrange(len(lines))
        m.steps.append(f"truncate to {keep} lines")
        return b"\n".join(lines[:keep])
    at = rng.randrange(len(data))
    m.steps.append(f"truncate at byte {at}")
    return data[:at]


def m_swap_lines(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    lines = split_lines(data)
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
    tokens = token_spans(data)
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
    lines = split_lines(data)
    for _ in range(rng.randint(1, 2)):
        text = rng.choice(_PREPROCESSOR)
        at = rng.randrange(len(lines) + 1)
        lines.insert(at, text)
        m.steps.append(f"line {at + 1}: {text.decode(errors='replace')}")
    return b"\n".join(lines)
