"""``s2s fuse`` through host wrapper functions (issue 29, item 4 (b)).

``static void step(const float *u, float *v, float r, int n) { diffuse<<<g, B>>>(u, v, r, n);
after_kernel("diffuse"); }`` called as ``step(d_u, d_v, 0.2f, n);`` in a time loop: the call is
the launch at the call site, across the wrapper's parameters. A *launch wrapper* is a host
function of this file returning ``void`` whose body is nothing but launch statements and
launch-error checks (``cudaGetLastError``, an error-check helper such as ``after_kernel``),
after declarations of scalar or ``dim3`` locals with a value (``dim3 grid(iDivUp(n, B)),
block(B);``: each mention of one becomes its value where the call is inlined), with no branch
and no reference parameter. Its call, a statement of its own in a block, *is* its body with
each parameter replaced by the call's argument.

The pass inlines every such call in a copy of the text (the launches of the copy are plain
launches of the caller, each parameter's mentions bound to the call's argument texts), runs
the fuse planner on the copy, and keeps the inlined text only at the calls whose launches the
planner fused: there the call statement is replaced by the wrapper's statements with the
fused launch; every other call stays as written. Binding is textual and exact where the
wrapper's parameter has the kernel parameter's type (a launch argument converts to the kernel
parameter either way) or is integral and used in the launch configuration with a plain
variable or integer literal; other wrappers are not followed, with the reason.

The same model serves ``s2s transfers`` for *copy wrappers* (statements that each make one
``cudaMemcpy``/``cudaMemset``, :mod:`s2s.transform.transfers_through`); a call is followed
only when the wrapper is defined before it, the caller declares none of the other variables
the wrapper names, and no argument has a side effect (each is copied once per mention).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from s2s.analysis.fuse.graph import (
    ERROR_CHECK,
    HARMLESS,
    REPORTING,
    SYNC,
    error_check_helpers,
    harmless_calls,
    pure_helpers,
    reporters,
)
from s2s.edits import Edit, EditSet

#: an argument written as is where a parameter is named (else in parentheses)
_SIMPLE = re.compile(r"[A-Za-z_]\w*|\d+[uUlL]*|\d*\.\d*(?:[eE][-+]?\d+)?[fF]?|\"[^\"]*\"")
#: an argument with a side effect (``i++``, ``x = y``): not copied into the statements
_EFFECT = re.compile(r"\+\+|--|(?<![=!<>])=(?!=)")
_INTEGER = re.compile(r"[A-Za-z_]\w*|\d+[uUlL]*")
#: an integral parameter type (bound to a converted argument where inlined)
INTEGRAL = re.compile(r"(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|long long|short|"
                       r"size_t|unsigned|int64_t|int32_t|uint32_t|uint64_t|uint|ulong|ushort)")


@dataclass(frozen=True)
class Wrapper:
    """A launch wrapper: its parameters and, per body statement, its text with the byte
    offsets (in that text) of each mention of a parameter and how it is bound."""

    name: str
    params: tuple[str, ...]
    #: per statement: (text, ((start, end, param index, as launch argument), ...))
    statements: tuple[tuple[str, tuple[tuple[int, int, int, bool], ...]], ...]
    launches: int
    #: the other variables its statements name (globals), with their declarations' offsets:
    #: a caller that declares one of these names would capture the inlined mention
    others: frozenset = frozenset()
    #: where it is defined in the file that calls it (-1: in a project header, included first)
    defined_at: int = -1
    #: names declared inside its statements (a checking macro's own local): a call whose
    #: arguments name one of these is not followed (the name would be captured)
    scoped: frozenset = frozenset()


@dataclass(frozen=True)
class CallSite:
    """A statement that is one call of a launch wrapper, and its inlined text."""

    wrapper: str
    start: int                  # the statement's first byte (the callee's name)
    end: int                    # after its ';'
    text: str                   # the wrapper's statements, bound to the call's arguments
    line: int
    caller: str = ""


@dataclass(frozen=True)
class Work:
    """What a wrapper's statement does for its caller: a launch or a runtime copy."""

    name: str                   # the kernel, or the runtime function
    args: tuple                 # its arguments (model Expr)
    span: object
    #: the kernel's parameter types (a launch), else None
    param_types: tuple | None = None
    problem: str = ""
    #: the launch's explicit stream (model Expr), None for the default stream or a copy
    stream: object = None


def launch_wrappers(unit, source: bytes, helpers: tuple = (), caller: str | None = None
                    ) -> tuple[dict[str, Wrapper], dict[str, str]]:
    """The launch wrappers of ``unit`` (the file, or a project header with device code), and
    for each other function with launches why it is not one; ``helpers``: models of the
    project headers with host helpers (an error-check helper such as ``after_kernel``
    defined there); ``caller``: the file whose calls are followed (default: ``unit``'s)."""
    checks = error_check_helpers(unit).union(*(error_check_helpers(h) for h in helpers),
                                             reporters(unit), *(reporters(h) for h in helpers))
    harmless = harmless_calls(unit).union(*(pure_helpers(h) for h in helpers))
    wrappers, refused = {}, {}
    for function in unit.functions:
        launches = unit.in_function("launches", function.name)
        if function.body is None or not launches or function.span.file != unit.path:
            continue
        works = [_launch_work(unit, launch) for launch in launches]
        wrapper, why = wrapper_of(unit, source, function, works, checks, caller or unit.path,
                                  harmless)
        if wrapper is not None:
            wrappers[function.name] = wrapper
        elif why and _called(unit, function.name):
            refused[function.name] = why
    return wrappers, refused


def _called(unit, name: str) -> bool:
    return any(c.name == name for f in unit.functions if f.name != name for c in f.calls)


def _launch_work(unit, launch) -> Work:
    kernel = unit.kernel(launch.kernel)
    problem = ""
    if launch.span.macro is not None or launch.span.template is not None:
        problem = f"its launch at line {launch.span.line} is in a macro or a template"
    types = None if kernel is None else tuple(p.type for p in kernel.params)
    return Work(launch.kernel, launch.args, launch.span, types, problem, launch.stream)


def wrapper_of(unit, source: bytes, function, works: list[Work], checks, caller_path: str,
               harmless: frozenset[str] = HARMLESS) -> tuple[Wrapper | None, str]:
    """``function`` as a wrapper of ``works`` (its launches or copies), or why it is not one:
    a void function whose body's statements each do one of them or check errors, after
    declarations of locals it passes (:func:`_local_values`); ``caller_path``: the file whose
    calls of it are followed; ``harmless``: calls that touch no device data (``iDivUp``)."""
    if function.is_template or function.member_of is not None:
        return None, "it is a template or a member function"
    if function.return_type.strip() != "void":
        return None, f"it returns '{function.return_type}'"
    if any("&" in p.type for p in function.params):
        return None, "a parameter is a reference"
    names = tuple(p.name for p in function.params)
    if len(set(names)) != len(names) or not all(names):
        return None, "a parameter has no name"
    body_start = function.body.span.start
    uses = [u for u in unit.in_function("var_uses", function.name) if u.name in names
            and u.decl < body_start]
    statements, count, values = [], 0, {}
    for stmt in function.body.children:
        inside = [w for w in works if stmt.span.start <= w.span.start < stmt.span.end]
        called = {c.name for c in stmt.calls}
        more = f"its statement at line {stmt.span.line} is more than a {_what(works)} or a check"
        if stmt.kind == "decl" and not inside:      # dim3 grid(n / B), block(B); int b = ...;
            why = _local_values(unit, source, function, stmt, uses, values, harmless)
            if why:
                return None, why
            continue
        checked = _what(works) == "copy" and checking_macro(stmt)
        if stmt.kind != "expr" and not checked or len(inside) > 1:
            return None, more
        if inside and inside[0].problem:
            return None, inside[0].problem
        reporting = ERROR_CHECK | SYNC | REPORTING | checks if checked else frozenset()
        if inside and called - {inside[0].name} - harmless - reporting:
            return None, more
        if checked and _local_mentions(unit, function, stmt.span, values):
            return None, f"its statement at line {stmt.span.line} names a local in a macro call"
        if not inside and not (called and called <= ERROR_CHECK | SYNC | REPORTING | checks):
            return None, more
        count += bool(inside)
        mine = [u for u in uses if stmt.span.start <= u.span.start < stmt.span.end]
        bound, why = _bindings(function, inside[0] if inside else None, mine, stmt,
                               _what(works))
        if why:
            return None, why
        text = source[stmt.span.start:stmt.span.end].decode("utf-8", "surrogateescape")
        statements.append(_substituted(text, bound, _local_mentions(unit, function, stmt.span,
                                                                      values), values))
    if not count:
        return None, ""
    locals_ = {decl for decl in values}
    every = unit.in_function("var_uses", function.name)
    # (the locals of its own declarations become their values where it is inlined: no name)
    scoped = scoped_names(every, [s for s in function.body.children if s.kind != "decl"])
    others = frozenset((u.name, u.decl) for u in every
                       if u.name not in names and u.decl not in locals_ and (u.name, u.decl) not in scoped)
    here = function.span.start if function.span.file == caller_path else -1
    return Wrapper(function.name, names, tuple(statements), count, others, here,
                   frozenset(name for name, _decl in scoped)), ""


def checking_macro(stmt) -> bool:
    """``stmt`` is a call of a macro (``CHECK(cudaMemcpy(d, h, n, k));``) that declares
    nothing outside itself and jumps nowhere out of it: copied with its argument text bound,
    it means at the call site what it meant in the wrapper."""
    return stmt.span.macro is not None and stmt.kind != "decl" and \
        not any(s.kind in ("return", "goto", "label") for s in stmt.walk())


def scoped_names(uses, statements) -> frozenset:
    """(name, declaration) of the variables declared inside ``statements`` (a checking
    macro's own local: ``cudaError_t e = (call);`` in its ``do { } while (0)``), scoped to
    their statement; an argument put into the statement must name none of them."""
    return frozenset((u.name, u.decl) for u in uses if u.role in ("declare", "null-init", "init")
                     and any(s.span.start <= u.span.start < s.span.end for s in statements))


def _local_values(unit, source: bytes, function, stmt, uses, values: dict,
                  harmless: frozenset[str]) -> str:
    """Record in ``values`` (declaration offset -> (text, bindings)) the value of each local
    that ``stmt`` declares (``dim3 grid((n + B - 1) / B), block(B);``, ``int blocks = ...;``):
    where the wrapper is inlined, each mention of the local becomes its value (a copy of the
    declaration in the caller would clash with a second call's, or with the caller's own
    names). Why not, when the statement declares something else (no value, a pointer, a
    call), or a local is changed after its declaration. "" when recorded."""
    why = f"its statement at line {stmt.span.line} declares a local that is not a scalar or dim3 " \
          "with a value of plain arithmetic"
    if any(c.name not in harmless for c in stmt.calls):
        return why
    decls = [d for d in unit.in_function("host_decls", function.name)
             if d.statement == stmt.span.start and d.init is not None and d.type]
    mine = [u for u in unit.in_function("var_uses", function.name)
            if stmt.span.start <= u.span.start < stmt.span.end]
    declared = {d.span.start for d in decls}
    inits = [d.init for d in decls]
    for use in mine:
        if use.decl == use.span.start and use.decl in declared:
            continue                                        # the declarator itself
        if not any(i.start <= use.span.start < i.end for i in inits):
            return why
    later = [u for u in unit.in_function("var_uses", function.name)
             if u.decl in declared and u.span.start >= stmt.span.end]
    if any(u.role not in ("read", "argument") for u in later):
        return f"a local declared at line {stmt.span.line} is changed after its declaration"
    params = [u for u in uses if stmt.span.start <= u.span.start < stmt.span.end]
    bound, why = _bindings(function, None, params, stmt, "launch or copy")
    if why:
        return why
    for decl in decls:
        start, end = decl.init.start, decl.init.end
        text = source[start:end].decode("utf-8", "surrogateescape")
        own = tuple((s - (start - stmt.span.start), e - (start - stmt.span.start), i, w)
                    for s, e, i, w in bound if start <= s + stmt.span.start < end)
        text, own = _substituted(text, own, _local_mentions(unit, function, decl.init, values),
                                 values)
        if decl.kind == "dim3" and start == decl.span.start:     # grid(a, b): the constructor
            shift, text = len("dim3") - len(decl.name), "dim3" + text[len(decl.name):]
        else:
            head = "dim3(" if decl.kind == "dim3" else f"(({decl.type})("
            shift, text = len(head), head + text + (")" if decl.kind == "dim3" else "))")
        values[decl.span.start] = (text, tuple((s + shift, e + shift, i, w)
                                               for s, e, i, w in own))
    return ""


def _local_mentions(unit, function, span, values: dict) -> tuple:
    """(start, end, declaration) of each mention of a recorded local inside ``span``, the
    offsets relative to the span's start."""
    return tuple((u.span.start - span.start, u.span.end - span.start, u.decl)
                 for u in unit.in_function("var_uses", function.name)
                 if u.decl in values and span.start <= u.span.start < span.end)


def _substituted(text: str, bound: tuple, mentions: tuple, values: dict) -> tuple[str, tuple]:
    """``text`` with each mention of a local replaced by the local's value, and the bindings
    of parameters (``bound``, and those of the values put in) moved to the new offsets."""
    if not mentions:
        return text, bound
    marks = sorted([(s, e, (i, w)) for s, e, i, w in bound] +
                   [(s, e, decl) for s, e, decl in mentions], key=lambda m: m[0])
    out, moved, pos = [], [], 0
    length = 0
    for start, end, what in marks:
        out.append(text[pos:start])
        length += start - pos
        if isinstance(what, tuple):
            moved.append((length, length + end - start, *what))
            piece = text[start:end]
        else:
            piece, inner = values[what]
            moved += [(length + s, length + e, i, w) for s, e, i, w in inner]
        out.append(piece)
        length += len(piece)
        pos = end
    out.append(text[pos:])
    return "".join(out), tuple(moved)


def _what(works: list[Work]) -> str:
    return "launch" if works and works[0].param_types is not None else "copy"


def _bindings(function, work: Work | None, uses, stmt, what: str) -> tuple[tuple, str]:
    """Where each parameter is mentioned in ``stmt`` (offsets in its text) and whether as a
    whole argument of the launch or copy (bound to any argument text) or elsewhere (integral
    parameters only, bound to a plain variable or integer literal)."""
    params = {p.name: (i, p) for i, p in enumerate(function.params)}
    bound = []
    for use in uses:
        if use.span.template is not None or use.span.macro is not None and use.spelled is None:
            return (), (f"parameter '{use.name}' is mentioned in a macro's argument that the "
                        "macro does not forward as written, or in a template instantiation")
        index, param = params[use.name]
        whole = work is not None and use.call == work.name and use.position is not None and \
            use.position < len(work.args) and use.role in ("argument", "address") and \
            _whole_argument(use, work.args[use.position])
        types = work.param_types if work is not None else None
        if whole and not param.is_pointer and types is not None and \
                use.position < len(types) and _bare(types[use.position]) != _bare(param.type):
            return (), (f"parameter '{param.name}' ({param.type}) is passed to the kernel's "
                        f"'{types[use.position]}' (a second conversion)")
        whole = whole or _stream_of(work, param, use)       # bound as a launch argument
        if not whole and not INTEGRAL.fullmatch(_bare(param.type)):
            return (), (f"parameter '{param.name}' ({param.type}) is used outside the "
                        f"{what}'s arguments and is not integral")
        at = use.spelled or (use.span.start, use.span.end)
        bound.append((at[0] - stmt.span.start, at[1] - stmt.span.start, index, whole))
    return tuple(sorted(bound)), ""


def _whole_argument(use, arg) -> bool:
    """The mention is the whole argument ``arg``: the same extent, or, inside a macro call
    (where every extent is the call's), the argument written as the bare name."""
    if use.spelled is not None:
        return use.role == "argument" and arg.text.strip() == use.name
    return (use.span.start, use.span.end) == (arg.span.start, arg.span.end)


def _stream_of(work: Work | None, param, use) -> bool:
    """Whether ``use`` is the whole stream of the wrapper's launch and ``param`` a
    ``cudaStream_t`` (``k<<<g, B, 0, stream>>>``): bound to the call's argument like a kernel
    argument (launches of one stream fuse on it, :mod:`s2s.analysis.fuse.graph`)."""
    stream = None if work is None else work.stream
    return stream is not None and _bare(param.type) == "cudaStream_t" and \
        (use.span.start, use.span.end) == (stream.span.start, stream.span.end)


def _bare(spelling: str) -> str:
    return re.sub(r"\s+", " ", spelling.replace("const ", "").strip())


def call_sites(unit, source: bytes, wrappers: dict[str, Wrapper]) -> list[CallSite]:
    """Every statement of a block that is exactly one call of a launch wrapper."""
    sites = []
    for function in unit.functions:
        if function.body is None or function.name in wrappers:
            continue
        for block in function.body.walk():
            if block.kind != "block":
                continue
            for stmt in block.children:
                site = _site(source, stmt, wrappers, unit.in_function("var_uses", function.name))
                if site is not None and unshadowed(unit, function, wrappers[site.wrapper], site):
                    sites.append(replace(site, caller=function.name))
    return sorted(sites, key=lambda s: s.start)


def _site(source: bytes, stmt, wrappers: dict[str, Wrapper], uses) -> CallSite | None:
    if stmt.kind != "expr" or len(stmt.calls) != 1 or stmt.calls[0].name not in wrappers:
        return None
    call, wrapper = stmt.calls[0], wrappers[stmt.calls[0].name]
    if (call.span.start, call.span.macro) != (stmt.span.start, None) or \
            len(call.args) != len(wrapper.params):
        return None
    end, indent = statement_end(source, stmt), statement_indent(source, stmt)
    if end is None or indent is None or any(a.span.macro is not None for a in call.args):
        return None
    texts = [a.text.strip() for a in call.args]
    if any(has_effect(text) for text in texts) or wrapper.scoped and \
            wrapper.scoped & {u.name for u in uses if call.span.start <= u.span.start < call.span.end}:
        return None
    for _text, bound in wrapper.statements:
        for _s, _e, index, as_argument in bound:
            if not as_argument and not _INTEGER.fullmatch(texts[index]):
                return None
    parts = [bound_text(text, bound, lambda index: parenthesized(texts[index]))
             for text, bound in wrapper.statements]
    return CallSite(wrapper.name, stmt.span.start, end, ("\n" + indent).join(parts),
                    stmt.span.line)


def statement_end(source: bytes, stmt) -> int | None:
    """The offset after the ``;`` that ends ``stmt`` (its extent may stop before it, with
    blanks between), or None where something else follows."""
    end = stmt.span.end
    while end < len(source) and source[end:end + 1] in (b" ", b"\t"):
        end += 1
    if source[end:end + 1] == b";":
        return end + 1
    return end if source[end - 1:end] == b";" else None


def statement_indent(source: bytes, stmt) -> str | None:
    """The blanks before ``stmt`` on its line (the inlined statements' indentation), or None
    where other text precedes it there."""
    line_start = source.rfind(b"\n", 0, stmt.span.start) + 1
    indent = source[line_start:stmt.span.start].decode("utf-8", "surrogateescape")
    return None if indent.strip() else indent


def has_effect(argument: str) -> bool:
    """An argument with a side effect (``i++``, ``x = y``): it is not copied into inlined
    statements, where it would be evaluated once per mention, or never."""
    return _EFFECT.search(argument) is not None


def parenthesized(argument: str) -> str:
    """An argument as it is put where a parameter is named: as is when it is one token,
    else in parentheses (``n + 1`` for ``n`` in ``n * 4``)."""
    return argument if _SIMPLE.fullmatch(argument) else f"({argument})"


def unshadowed(unit, caller, wrapper: Wrapper, site: CallSite) -> bool:
    """The wrapper is defined before the call (its macros and names are those of the call
    site too), and the caller declares none of the other variables the wrapper names."""
    if wrapper.defined_at > site.start:
        return False
    mine = {name: decl for name, decl in wrapper.others}
    return not any(use.name in mine and use.decl != mine[use.name]
                   for use in unit.in_function("var_uses", caller.name))


def bound_text(text: str, bound, value, endings: tuple[str, ...] = (";",)) -> str:
    """An inlined statement: ``text`` (a wrapper's or helper's statement) with each bound
    mention (``(start, end, index, ...)``, offsets in ``text``, sorted) replaced by
    ``value(index)``, the caller's text for that parameter converted as the call converts it
    (a launch wrapper's argument as written, in parentheses unless one token; an allocation
    helper's integral argument cast to the parameter's type, its local named as the
    caller's variable), and a ``;`` added unless it ends with one of ``endings`` (an
    expression statement's extent may stop before its ``;``; a helper's ``if`` ends with
    ``}``)."""
    out, pos = [], 0
    for start, end, index, *_how in bound:
        out.append(text[pos:start] + value(index))
        pos = end
    out.append(text[pos:])
    statement = "".join(out).rstrip()
    return statement if statement.endswith(endings) else statement + ";"


def inlined(source: bytes, sites: list[CallSite]) -> bytes:
    """``source`` with every call site replaced by its inlined text."""
    out, pos = [], 0
    for site in sites:
        out += [source[pos:site.start], site.text.encode("utf-8", "surrogateescape")]
        pos = site.end
    out.append(source[pos:])
    return b"".join(out)


def edits_back(path: str, source: bytes, sites: list[CallSite], edits) -> tuple[list[Edit],
                                                                                  list[CallSite]]:
    """The edits of a rewrite of the inlined text as edits of ``source``, and the call sites
    they fuse: a call whose inlined text an edit touches is replaced by that text rewritten
    (with the blanks around it an edit also takes); the other calls stay as written; an edit
    outside every inlined text moves back by the length the inlining added before it. Empty
    when an edit spans two calls (they are then not followed)."""
    regions = inlined_regions(sites)
    touched: dict[int, list] = {}
    out = []
    for edit in sorted(edits, key=lambda e: (e.offset, e.length)):
        hits = [i for i, (s, e, _site) in enumerate(regions)
                if edit.offset < e and edit.offset + edit.length > s or
                (edit.length == 0 and s < edit.offset < e)]
        if len(hits) > 1:
            return [], []
        if hits:
            touched.setdefault(hits[0], []).append(edit)
            continue
        out.append(Edit(path, _back(edit.offset, regions), edit.length, edit.text))
    fused = []
    inline_text = inlined(source, sites)
    for index, mine in sorted(touched.items()):
        s, e, site = regions[index]
        start = min([s] + [x.offset for x in mine])
        end = max([e] + [x.offset + x.length for x in mine])
        if any(a < end and b > start for k, (a, b, _o) in enumerate(regions) if k != index):
            return [], []
        local = EditSet(Edit(path, x.offset - start, x.length, x.text) for x in mine)
        text = local.apply(path, inline_text[start:end])
        first = site.start - (s - start)
        last = site.end + (end - e)
        out.append(Edit(path, first, last - first, text.decode("utf-8", "surrogateescape")))
        fused.append(site)
    return out, fused


def inlined_regions(sites: list[CallSite]) -> list[tuple[int, int, CallSite]]:
    """(start, end, site) of each call's inlined text in the inlined source."""
    regions, shift = [], 0
    for site in sites:
        start = site.start + shift
        length = len(site.text.encode("utf-8", "surrogateescape"))
        regions.append((start, start + length, site))
        shift += length - (site.end - site.start)
    return regions


#: a line number a diagnostic names ("at line 61", "(line 59)", "line 3, 5"): the planner's
#: messages name lines of the file they planned, here the inlined copy
_LINES_NAMED = re.compile(r"\b(lines? )(\d+(?:, \d+)*)")


def lines_as_written(message: str, source: bytes, sites: list[CallSite]) -> str:
    """``message``, said about the file with ``sites`` inlined, with each line number it names
    turned into the line of ``source`` as written: a line of an inlined call's text is the
    call's line, any other line moves back by the lines the inlining added before it (a note
    otherwise sends the user to line 61 of a 45-line file)."""
    if not sites or "line" not in message:
        return message
    copy = inlined(source, sites)
    regions = inlined_regions(sites)
    starts = [0] + [i + 1 for i, byte in enumerate(copy) if byte == 0x0A]

    def written(line: int) -> int:
        if not 1 <= line <= len(starts):
            return line
        offset = starts[line - 1]
        for start, end, site in regions:
            if start <= offset < end:
                return site.line
        return source.count(b"\n", 0, _back(offset, regions)) + 1

    def mapped(match: re.Match) -> str:
        numbers = ", ".join(str(written(int(n))) for n in match.group(2).split(", "))
        return match.group(1) + numbers
    return _LINES_NAMED.sub(mapped, message)


def _back(offset: int, regions) -> int:
    """An offset of the inlined text outside every inlined region, in the original."""
    shift = 0
    for start, end, site in regions:
        if offset < end:
            break
        shift += (end - start) - (site.end - site.start)
    return offset - shift
