"""Launches written through a function-like macro, for verify's host shim.

``#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)`` (or a macro that also checks the
error after the launch) is how many programs launch their kernels. The front end gives such a
launch the macro call's extent and the kernel, configuration and arguments from the
expansion; the ``<<<`` itself is in the macro's body, or in the call's arguments
(``CHECK(k<<<g, b>>>(x))``). The host shim replaces ``k<<<g, b, s>>>(`` by a call of its
launcher; for a macro it does so in the text that holds the ``<<<`` (the body once for all its
uses: a body's parameter ``k`` names the kernel as ``#k``), so the original builds and runs
as nvcc would compile it. A launch the shim cannot place this way is refused with the reason.
"""

from __future__ import annotations

import re

from s2s.analysis.mgpu.sites import LaunchTokens, launch_tokens, macro_body

_PARAMS = re.compile(rb"[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z_0-9]*\(([^)]*)\)")


def macro_launch_edit(text: bytes, masked: bytes, span, kernel: str, foreign: bool,
                      templated: bool) -> tuple[tuple[int, int, str] | None, str | None]:
    """(offset, length, replacement) of the shim's launcher call for the launch of ``kernel``
    behind macro ``span.macro``, or the reason it cannot be given."""
    found, problem = launch_tokens(masked, span, kernel)
    if problem:
        return None, problem
    if len(found) != 1:
        return None, (f"the text of macro '{span.macro}' holds {len(found)} launches "
                      "(the host shim rewrites a macro of one launch)")
    tokens = found[0]
    in_body = not span.start <= tokens.open < span.end
    if in_body and (foreign or templated):
        return None, (f"the kernel launched in the body of macro '{span.macro}' is a template or "
                      "another file's kernel (its name cannot be written once for every use)")
    name = _kernel_name(masked, span.macro, tokens, kernel, in_body)
    config = _split_top(text[tokens.open + tokens.open_len:tokens.close].decode("utf-8", "surrogateescape"))
    if len(config) < 2:
        return None, f"the launch configuration in macro '{span.macro}' has no block size"
    shared = config[2].strip() if len(config) > 2 and config[2].strip() else "0"
    after = tokens.close + tokens.close_len
    while masked[after:after + 1] in (b" ", b"\t", b"\\", b"\n", b"\r"):
        after += 1
    if masked[after:after + 1] != b"(":
        return None, f"no argument list after the launch in macro '{span.macro}'"
    inside = masked[after + 1:masked.find(b")", after)].strip()
    separator = ", ##" if inside == b"__VA_ARGS__" else (", " if inside else "")
    head = (f"s2s_shim::launcher<decltype({tokens.kernel_text})>::launch({name}, "
            f"dim3({config[0].strip()}), dim3({config[1].strip()}), (size_t)({shared}){separator}")
    return (tokens.kernel_start, after + 1 - tokens.kernel_start, head), None


def _kernel_name(masked: bytes, macro: str, tokens: LaunchTokens, kernel: str,
                 in_body: bool) -> str:
    """The launcher's kernel name: ``#k`` where the body's kernel is the macro's parameter."""
    if in_body:
        body = macro_body(masked, macro)
        line_start = masked.rfind(b"\n", 0, body[0]) + 1 if body else 0
        params = _PARAMS.match(masked, line_start)
        names = [p.strip() for p in params.group(1).decode().split(",")] if params else []
        if tokens.kernel_text in names:
            return f"#{tokens.kernel_text}"
    return f"\"{kernel}\""


def _split_top(config: str) -> list[str]:
    """``g, b, s`` split at the commas outside parentheses, brackets and braces."""
    parts, depth, current = [], 0, []
    for ch in config:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts
