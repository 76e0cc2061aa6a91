"""Allocation helpers followed to their calls, for ``s2s transfers`` (issue 29).

``static float *device_alloc(int n) { float *p = 0; if (cudaMalloc((void **)&p, n *
sizeof(float)) != cudaSuccess) { fprintf(stderr, ...); exit(1); } return p; }``, in the file
or a project header, called as ``float *d_u = device_alloc(n), *d_v = device_alloc(n);`` or
``d = device_alloc(n);``: the call *is* the helper's body at the call site, its local pointer
named as the variable the call initialises or assigns and its parameters bound to the call's
arguments. :mod:`s2s.transform.transfers_through` inlines those calls (with the copy
wrappers') in a copy of the file, so the pools take the buffers in; where the plan changes
an inlined allocation (pooled), the call is replaced by the helper's statements rewritten,
else it stays as written.

A helper is a non-template free function returning a pointer whose body is: the declaration
of one local pointer (``T *p = 0;`` or without a value), statements that make exactly one
``cudaMalloc(&p, ...)`` and check errors (calls of the error-check helpers, reporting,
``exit``; the local mentioned only as that ``&p`` or in a null test), and ``return p;``. No
``return``, ``goto`` or declaration before the last statement: each statement means the
same in the caller. An integral parameter is bound as a cast of the argument to its type
(``int n`` given a ``size_t``: ``((int)(count))``, the conversion the call made), a pointer
parameter (a label for the message) as the argument's text. A call is followed only when the
helper is defined before it, its arguments have no side effects (each is copied once per
mention) and the caller declares none of the other variables the helper names.

A statement that is a call of a checking macro (``CHECK(cudaMalloc((void **)&p, n *
sizeof(float)));``) is taken when the macro expands the argument once as written (not
stringized or pasted: ``VarUse.spelled``, where libclang says each mention is written): the
inlined statement is the macro call with the mentions replaced in its argument text, which
the preprocessor expands at the call site as it did in the helper. The macro's own locals
(``cudaError_t e``) are scoped to it; a call whose arguments name one is not followed. A
macro that returns or jumps out of the helper is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from s2s.analysis.fuse.graph import ERROR_CHECK, REPORTING, SYNC, error_check_helpers
from s2s.transform.fuse_wrappers import (
    INTEGRAL,
    CallSite,
    bound_text,
    checking_macro,
    has_effect,
    parenthesized,
    scoped_names,
    statement_end,
    statement_indent,
    unshadowed,
)

#: a helper's other statements may call these (and the file's error-check helpers)
_CHECKS = ERROR_CHECK | SYNC | REPORTING | {"cudaMalloc"}
_LITERAL = re.compile(r"\d+[uUlL]*")
_JUMPS = frozenset({"return", "goto", "label", "break", "continue", "decl"})
#: the index a mention of the helper's local pointer has among the bindings
LOCAL = -1


@dataclass(frozen=True)
class AllocHelper:
    """An allocation helper: its parameters and, per statement between the local's
    declaration and the return, its text with the mentions to bind (offsets in that text,
    the parameter's index or :data:`LOCAL`) and its indentation."""

    name: str
    params: tuple[str, ...]
    param_types: tuple[str, ...]
    statements: tuple[tuple[str, tuple[tuple[int, int, int], ...], str], ...]
    others: frozenset = frozenset()
    defined_at: int = -1
    #: the helper's definition (for messages)
    span: object = None
    #: names declared inside its statements (a checking macro's own local): a call whose
    #: arguments or variable name one of these is not followed (the name would be captured)
    scoped: frozenset = frozenset()


def alloc_helpers(units: list[tuple[object, bytes]], caller_path: str
                  ) -> tuple[dict[str, AllocHelper], dict[str, tuple[str, object]]]:
    """The allocation helpers of ``units`` (models with their texts), and for the other
    functions that return a pointer and call ``cudaMalloc`` why they are not followed."""
    helpers, refused = {}, {}
    for unit, text in units:
        for function in unit.functions:
            allocs = [c for c in unit.in_function("api_calls", function.name) if c.name == "cudaMalloc"]
            if function.body is None or not allocs or not function.return_type.strip().endswith("*"):
                continue
            helper, why = _helper_of(unit, text, function, allocs, caller_path)
            if helper is not None:
                helpers[function.name] = helper
            else:
                refused[function.name] = (why, function.span)
    return helpers, refused


def _helper_of(unit, text: bytes, function, allocs, caller_path: str) -> tuple[AllocHelper | None, str]:
    if function.is_template or function.member_of is not None:
        return None, "it is a template or a member function"
    body = function.body.children
    if len(allocs) != 1 or len(body) < 3 or body[0].kind != "decl" or body[-1].kind != "return":
        return None, ("its body is more than a pointer's declaration, one cudaMalloc with its "
                      "checks and the pointer's return")
    uses = unit.in_function("var_uses", function.name)
    declared = [u for u in uses if body[0].span.start <= u.span.start < body[0].span.end
                and u.role in ("declare", "null-init", "init")]
    if len(declared) != 1 or declared[0].role == "init" or not declared[0].pointer:
        return None, "its first statement does not declare one pointer without a value"
    local = declared[0]
    returned = [u for u in uses if body[-1].span.start <= u.span.start < body[-1].span.end]
    said = re.sub(r"\s+", " ", body[-1].span.text(text).strip().rstrip(";").strip())
    if [u.decl for u in returned] != [local.decl] or said != f"return {local.name}":
        return None, f"it does not return '{local.name}' as it is"
    checks = error_check_helpers(unit)
    params = {p.name: i for i, p in enumerate(function.params)}
    scoped = scoped_names(uses, body[1:-1])
    statements = []
    for stmt in body[1:-1]:
        if not checking_macro(stmt) and any(s.kind in _JUMPS for s in stmt.walk()):
            return None, f"its statement at line {stmt.span.line} returns, jumps or declares"
        called = {c.name for s in stmt.walk() for c in s.calls}
        if not called <= _CHECKS | checks:
            return None, f"its statement at line {stmt.span.line} calls more than cudaMalloc and checks"
        mine = [u for u in uses if stmt.span.start <= u.span.start < stmt.span.end]
        bound, why = _bindings(function, mine, local, params, stmt.span.start)
        if why:
            return None, why
        statements.append((stmt.span.text(text), bound, stmt.span.indent))
    if not any(local.decl == u.decl and u.role == "address" and u.call == "cudaMalloc" and u.position == 0
               for u in uses):
        return None, f"its cudaMalloc does not allocate '{local.name}'"
    others = frozenset((u.name, u.decl) for u in uses if u.name not in params and
                       u.decl != local.decl and (u.name, u.decl) not in scoped)
    here = function.span.start if function.span.file == caller_path else -1
    return AllocHelper(function.name, tuple(params), tuple(p.type for p in function.params),
                       tuple(statements), others, here, function.span,
                       frozenset(name for name, _decl in scoped)), ""


def _dedented(text: str, indent: str) -> str:
    """A statement's text with its continuation lines' indentation made relative (the
    caller's indentation is put before them where it is inlined)."""
    return "\n".join([line[len(indent):] if line.startswith(indent) else line
                      for line in text.split("\n")])


def _bindings(function, uses, local, params: dict[str, int], start: int) -> tuple[tuple, str]:
    bound = []
    for use in uses:
        mine = use.decl == local.decl or use.name in params
        if mine and use.span.template is not None:
            return (), f"'{use.name}' is mentioned in a template instantiation"
        if mine and use.span.macro is not None and use.spelled is None:
            return (), (f"'{use.name}' is mentioned in an argument of macro '{use.span.macro}' "
                        "that the macro does not forward as written (used more than once, "
                        "stringized or pasted), or in the macro's own text")
        at = use.spelled or (use.span.start, use.span.end)
        if use.decl == local.decl:
            if use.role not in ("address", "null-test") or \
                    use.role == "address" and (use.call, use.position) != ("cudaMalloc", 0):
                return (), f"'{local.name}' is used as more than cudaMalloc's target"
            bound.append((at[0] - start, at[1] - start, LOCAL))
        elif use.name in params:
            param = function.params[params[use.name]]
            if not param.is_pointer and not INTEGRAL.fullmatch(param.type.strip()):
                return (), f"parameter '{param.name}' ({param.type}) is neither integral nor a pointer"
            if use.role not in ("read", "argument"):
                return (), f"parameter '{param.name}' is changed"
            bound.append((at[0] - start, at[1] - start, params[use.name]))
    return tuple(sorted(bound)), ""


def alloc_sites(unit, source: bytes, helpers: dict[str, AllocHelper]) -> list[CallSite]:
    """Every declaration whose initialised declarators are each one call of an allocation
    helper, and every statement ``d = helper(...);``, with their inlined texts."""
    sites = []
    for function in unit.functions:
        if function.body is None or function.name in helpers:
            continue
        uses = unit.in_function("var_uses", function.name)
        for block in function.body.walk():
            for stmt in block.children if block.kind == "block" else ():
                site = _site(source, stmt, uses, helpers)
                if site is not None and all(unshadowed(unit, function, helpers[n], site)
                                            for n in {c.name for c in stmt.calls}):
                    sites.append(CallSite(site.wrapper, site.start, site.end, site.text, site.line,
                                          function.name))
    return sorted(sites, key=lambda s: s.start)


def _site(source: bytes, stmt, uses, helpers) -> CallSite | None:
    calls = stmt.calls
    if stmt.kind not in ("decl", "expr") or stmt.span.macro is not None or not calls or \
            any(c.name not in helpers or c.span.macro is not None for c in calls):
        return None
    inside = [u for u in uses if stmt.span.start <= u.span.start < stmt.span.end]
    role = "init" if stmt.kind == "decl" else "assign"
    targets = [u for u in inside if u.role == role and not any(
        c.span.start <= u.span.start < c.span.end for c in calls)]
    if len(targets) != len(calls) or stmt.kind == "expr" and len(calls) != 1 or \
            not all(t.pointer for t in targets):    # (``auto d = helper(n)`` would become an int)
        return None
    for target, call in zip(targets, calls, strict=True):
        between = source[target.span.end:call.span.start]
        after = source[call.span.end:call.span.end + 64].lstrip(b" \t")
        if between.strip() != b"=" or after[:1] not in (b",", b";") or \
                len(call.args) != len(helpers[call.name].params):
            return None
        if stmt.kind == "expr" and source[stmt.span.start:target.span.start].strip():
            return None
        if any(has_effect(a.text.strip()) for a in call.args):
            return None
        named = {target.name} | {u.name for u in inside if call.span.start <= u.span.start < call.span.end}
        if named & helpers[call.name].scoped:
            return None
    end, indent = statement_end(source, stmt), statement_indent(source, stmt)
    if end is None or indent is None:
        return None
    # the helper's local starts null (or undefined): so does the variable it is named as,
    # also where ``d = helper(n);`` assigns one that held another value
    parts = [_declaration(source, stmt, calls)] if stmt.kind == "decl" else [f"{targets[0].name} = 0;"]
    for target, call in zip(targets, calls, strict=True):
        value = helper_value(target.name, [a.text.strip() for a in call.args],
                             helpers[call.name].param_types)
        parts += [_dedented(bound_text(text, bound, value, (";", "}")), own)
                  .replace("\n", "\n" + indent) for text, bound, own in helpers[call.name].statements]
    return CallSite(calls[0].name, stmt.span.start, end, ("\n" + indent).join(parts), stmt.span.line)


def _declaration(source: bytes, stmt, calls) -> str:
    """The declaration with each helper call replaced by a null pointer (the helper's local
    starts null or undefined; the inlined ``cudaMalloc`` gives it its value)."""
    out, pos = [], stmt.span.start
    for call in calls:
        out += [source[pos:call.span.start].decode("utf-8", "surrogateescape"), "0"]
        pos = call.span.end
    out.append(source[pos:stmt.span.end].decode("utf-8", "surrogateescape"))
    text = "".join(out).rstrip()
    return text if text.endswith(";") else text + ";"


def helper_value(target: str, args: list[str], param_types: tuple[str, ...]):
    """What a mention bound to ``index`` becomes where an allocation helper is inlined
    (:func:`s2s.transform.fuse_wrappers.bound_text`): its local (:data:`LOCAL`) the caller's
    variable ``target``, a parameter the call's argument converted to ``param_types``'s."""
    return lambda index: target if index == LOCAL else _argument(args[index], param_types[index])


def _argument(arg: str, param_type: str) -> str:
    """An argument where the helper names its parameter: converted as the call converted it."""
    if "*" in param_type:
        return parenthesized(arg)
    if _LITERAL.fullmatch(arg):
        return arg
    bare = re.sub(r"\bconst\s+", "", param_type).strip()
    return f"(({bare}){arg})" if re.fullmatch(r"[A-Za-z_]\w*", arg) else f"(({bare})({arg}))"
