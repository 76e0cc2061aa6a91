"""Where the tokens of a kernel launch are, for the mgpu rewrite.

A launch ``k<<<grid, block, shared, stream>>>(args)`` is rewritten by three small edits:
``s2s_mgpu_launch(`` before the kernel name, ``, `` for ``<<<`` and ``)`` for ``>>>``; the
kernel name, the configuration and the arguments keep their text (nested parentheses,
casts, template arguments in them are untouched). The front end gives exact extents for a
launch written in the file. For a launch produced by a macro it gives the macro call's
extent, and the ``<<<`` is either in the call's arguments (``CHECK(k<<<g, b>>>(x))``) or in
the macro's body (``#define LAUNCH(k, n, ...) k<<<...>>>(__VA_ARGS__)``); this module finds
the tokens in whichever text holds them, on a copy of the source with comments and string
literals blanked, and says why when it cannot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from s2s.model import SourceSpan
from s2s.model.launch_syntax import OPEN, closing_bracket, mask  # noqa: F401 (sites.mask: kept for its importers)

_IDENT = re.compile(rb"[A-Za-z_][A-Za-z_0-9]*")


@dataclass(frozen=True)
class LaunchTokens:
    """Byte offsets of one launch's edit points."""

    kernel_start: int      # first byte of the kernel expression
    open: int              # the ``<<<``
    close: int             # the ``>>>``
    kernel_text: str       # the kernel expression as written (a macro parameter in a body)
    #: template arguments the compiler deduced, written out by the rewrite ('<float>')
    deduced: str = ""
    #: a call of a macro that is only the launch (``Launch.forwarded``): the call's text up to
    #: ``call_end`` is replaced by the launch with these texts (the header's ``#define`` stays)
    call_end: int = -1
    config_text: str = ""
    args_text: str = ""
    #: a call of a macro that does more than the launch (``Launch.macro_frame``): the macro's
    #: text before and after the launch, written around the rewritten launch at the call
    frame: tuple[str, str] = ("", "")
    #: the brackets' lengths as written (``<< <`` and ``>> >`` are nvcc's too: 4 bytes)
    open_len: int = 3
    close_len: int = 3


def forwarded_tokens(launch) -> LaunchTokens:
    """The edit points of a launch written as a call of a macro that is only the launch: the
    whole call, rewritten at the call site from the launch's texts (the macro may be defined in
    a header, which the rewrite does not edit)."""
    config = [launch.grid.text, launch.block.text]
    if launch.shared_bytes is not None or launch.stream is not None:
        config.append(launch.shared_bytes.text if launch.shared_bytes is not None else "0")
    if launch.stream is not None:
        config.append(launch.stream.text)
    kernel = launch.kernel + (f"<{launch.template_args}>" if launch.template_args else "")
    return LaunchTokens(launch.span.start, launch.span.start, launch.span.start, kernel,
                        call_end=launch.span.end, config_text=", ".join(config),
                        args_text=", ".join(a.text for a in launch.args))


def framed_tokens(launch) -> LaunchTokens:
    """The edit points of a launch in a macro that does more than the launch, defined where
    the rewrite cannot edit it (a project header): the whole call, replaced by the macro's text
    with the launch rewritten (``Launch.macro_frame``)."""
    return replace(forwarded_tokens(launch), frame=launch.macro_frame)


def tokens_in(masked: bytes, start: int, end: int) -> tuple[list[LaunchTokens], str | None]:
    """The launches whose ``<<<`` (or ``<< <``) lies in ``masked[start:end]``, or a reason
    why one cannot be rewritten."""
    found = []
    at = OPEN.search(masked, start, end)
    while at is not None:
        close = closing_bracket(masked, at.end(), end)
        if close is None:
            return [], "no '>>>' closing the launch configuration"
        kernel_start, problem = _kernel_start(masked, at.start())
        if problem:
            return [], problem
        text = masked[kernel_start:at.start()].decode("utf-8", "replace").strip()
        found.append(LaunchTokens(kernel_start, at.start(), close[0], text,
                                  open_len=at.end() - at.start(), close_len=close[1] - close[0]))
        at = OPEN.search(masked, close[1], end)
    return found, None


def _kernel_start(masked: bytes, at: int) -> tuple[int, str | None]:
    """Start of the kernel name before ``<<<`` (``k``, ``ns::k``), or why it is not a name."""
    pos = at
    while pos > 0 and masked[pos - 1:pos] in (b" ", b"\t", b"\n", b"\\", b"\r"):
        pos -= 1
    start = pos
    if masked[pos - 1:pos] == b">":                   # k<float, 256><<<: skip the arguments
        depth, start = 0, pos
        while start > 0:
            start -= 1
            depth += {b">": 1, b"<": -1}.get(masked[start:start + 1], 0)
            if depth == 0:
                break
        if depth:
            return pos, "unbalanced template arguments before '<<<'"
    while True:
        j = start
        while j > 0 and (masked[j - 1:j].isalnum() or masked[j - 1:j] == b"_"):
            j -= 1
        if j == start or not _IDENT.fullmatch(masked[j:start]):
            return pos, "the launched kernel is not a plain name (a function pointer or an expression)"
        start = j
        if masked[start - 2:start] == b"::":
            start -= 2
            continue
        return start, None


def macro_body(masked: bytes, name: str) -> tuple[int, int] | None:
    """Byte range of the replacement text of ``#define name(...)`` in the file (continuation
    lines included); None if the file does not define it (exactly once)."""
    pattern = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+" + re.escape(name.encode()) + rb"\b", re.M)
    hits = list(pattern.finditer(masked))
    if len(hits) != 1:
        return None
    start = hits[0].end()
    if masked[start:start + 1] == b"(":
        close = masked.find(b")", start)
        if close < 0:
            return None
        start = close + 1
    end = start
    while True:
        line_end = masked.find(b"\n", end)
        if line_end < 0:
            return start, len(masked)
        if masked[end:line_end].rstrip(b" \t\r").endswith(b"\\"):
            end = line_end + 1
            continue
        return start, line_end


def launch_tokens(masked: bytes, span: SourceSpan, kernel: str, template: bool = False
                  ) -> tuple[list[LaunchTokens], str | None]:
    """Edit points of the launch of ``kernel`` whose front-end extent is ``span``.

    Returns the launches of the text that holds the ``<<<`` (all of a macro body's launches,
    since editing the body rewrites them all) or the reason none can be rewritten."""
    if span.macro is None:
        found, problem = tokens_in(masked, span.start, span.end)
        if problem or len(found) != 1:
            return [], problem or "the launch's '<<<' was not found where the parser put it"
        written = found[0].kernel_text.replace(" ", "")
        if ("<" in written) != template:
            return [], "the template arguments before '<<<' are not where the parser put them"
        if written.split("<")[0].split("::")[-1] != kernel:
            return [], f"the text before '<<<' is {found[0].kernel_text!r}, not the kernel name"
        return found, None
    found, problem = tokens_in(masked, span.start, span.end)
    if problem:
        return [], f"in the arguments of macro '{span.macro}': {problem}"
    if found:
        return found, None
    body = macro_body(masked, span.macro)
    if body is None:
        return [], (f"the launch comes from the body of macro '{span.macro}', which is not "
                    "defined (once) in this file")
    found, problem = tokens_in(masked, *body)
    if problem or not found:
        return [], (f"in the body of macro '{span.macro}': "
                    f"{problem or 'no <<< (the launch comes from a nested macro)'}")
    return found, None
