"""The frame around a launch written in a macro that does more than the launch.

``#define LAUNCH_CHECK(k, g, b, ...) do { k<<<g, b>>>(__VA_ARGS__); check(#k); } while (0)``
in a project header: the passes cannot edit the ``#define`` (other files use it, and the
launch's texts are the macro's parameters), but a call ``LAUNCH_CHECK(scale, blocks, 128, d,
n);`` may be replaced by the body's text with the call's arguments in place of the parameters
(what the preprocessor makes of it) around a rewritten launch:
``do { <launch>; check("scale"); } while (0)``. That is only sound when the body's launch
names nothing but the macro's parameters (its kernel, each configuration argument, its
arguments or ``__VA_ARGS__``): then the launch's texts in the model are the call's argument
texts, written by the user, and the rest of the body keeps its meaning at the call site
(other macros it calls stay macro calls there, ``__LINE__`` is the call's line either way).
"""

from __future__ import annotations

import re

from s2s.frontend.cuda.text import (
    IDENT_AT_END,
    MacroCall,
    Macros,
    blank_literals,
    group_end,
    split_top,
    substitute_parameters,
)


def launch_frame(macros: Macros, call: MacroCall | None, macro: str
                 ) -> tuple[tuple[str, str] | None, str]:
    """(text before the launch, text after it) of ``call``'s expansion, or None and why the
    call cannot be replaced by that text around a rewritten launch."""
    if call is None or call.name != macro:
        return None, f"the launch is in an argument of another macro than '{macro}'"
    definition = macros.definition_of(call)
    if definition is None:
        return None, f"the definition of '{macro}' is not in this file or a project header"
    params, body = definition
    if params is None:
        return None, f"'{macro}' is an object-like macro"
    if "##" in body:
        return None, f"the body of '{macro}' pastes tokens (##)"
    blank = blank_literals(body)
    opens = [m.start() for m in re.finditer(r"<<<", blank)]
    if len(opens) != 1:
        return None, f"the body of '{macro}' holds {len(opens)} launches (not one)"
    extent, why = _launch_extent(body, blank, opens[0], params)
    if extent is None:
        return None, f"in the body of '{macro}': {why}"
    text = macros.text(call.start, call.end)
    open_ = text.find("(", len(call.name))
    if open_ < 0:
        return None, f"the call of '{macro}' has no arguments"
    close = group_end(blank_literals(text), open_)
    args = [text[s:e] for s, e in split_top(blank_literals(text), open_ + 1, close - 1)]
    start, end = extent
    before = substitute_parameters(body[:start], params, args)
    after = substitute_parameters(body[end:], params, args)
    return (_squeezed(before), _squeezed(after)), ""


def _launch_extent(body: str, blank: str, at: int, params: list[str]
                   ) -> tuple[tuple[int, int] | None, str]:
    """Where the body's one launch starts and ends, when it names only parameters."""
    names = {p.removesuffix("...") for p in params if p != "..."}
    if params and params[-1].endswith("..."):
        names.add("__VA_ARGS__")
    kernel = IDENT_AT_END.search(blank, 0, at)
    if kernel is None or blank[kernel.end():at].strip():
        return None, "the kernel before '<<<' is not a plain name"
    if kernel.group(1) not in names:
        return None, f"the kernel '{kernel.group(1)}' is not one of the macro's parameters"
    close = blank.find(">>>", at + 3)
    if close < 0:
        return None, "no '>>>' closes the launch configuration"
    pieces = [body[s:e].strip() for s, e in split_top(blank, at + 3, close)]
    open_ = close + 3
    while open_ < len(blank) and blank[open_].isspace():
        open_ += 1
    if open_ >= len(blank) or blank[open_] != "(":
        return None, "no argument list follows '>>>'"
    end = group_end(blank, open_)
    pieces += [body[s:e].strip() for s, e in split_top(blank, open_ + 1, end - 1)]
    other = [p for p in pieces if p not in names]
    if other:
        return None, (f"the launch uses '{other[0]}', which is not one of the macro's "
                      "parameters (its text at the call site is not the user's)")
    return (kernel.start(1), end), ""


def _squeezed(text: str) -> str:
    """Runs of blanks (the body's continuation lines joined) as one space, outside literals."""
    pieces = _LITERAL.split(text)
    return "".join(piece if i % 2 else re.sub(r"\s{2,}", " ", piece)
                   for i, piece in enumerate(pieces))


_LITERAL = re.compile(r'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')')
