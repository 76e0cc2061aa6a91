"""Template kernels launched inside function templates (issue 18, item 2).

``template <class T> void run(T *x, int n) { scale<<<g, b>>>(x, T(2), n); }`` launches a kernel
whose instantiation depends on ``run``'s own template arguments, which libclang leaves
unresolved inside the template (the call is dependent). Two facts from the AST settle it:

* the launch's kernel arguments in terms of the caller's template parameters: written out
  (``scale<T>``), or deduced here by matching the kernel's parameter types (``T *``, ``T``,
  ``int``) against the types libclang gives the argument expressions (``T *``, ``T``, ``int``);
* the instantiations of the caller the file makes: every call that resolves to a
  specialization of it (``run(g, n)`` with ``g`` a ``double *``: libclang's specialization
  arguments give ``double``; ``run<float>(f, n)``).

Substituting each instantiation of the caller into the first gives the kernel instantiations
the launch runs (``scale<double>``, ``scale<float>``). When either fact is missing (a caller
instantiated only from other templates or files, a parameter type this does not match), the
launch keeps no instances and ``s2s mgpu`` refuses it as before, naming the reason.
"""

from __future__ import annotations

import re

from s2s.frontend.core.toolchain import configure_libclang
from s2s.frontend.cuda.text import kind_of

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|\S")
TEMPLATE_PARAMS = ("TEMPLATE_TYPE_PARAMETER", "TEMPLATE_NON_TYPE_PARAMETER")


def template_params(function) -> list[str]:
    """The template parameter names of a function template cursor, in order."""
    return [c.spelling for c in function.get_children() if kind_of(c) in TEMPLATE_PARAMS]


def substitute(text: str, values: dict[str, str]) -> str:
    """``text`` with every identifier named in ``values`` replaced by its value."""
    return re.sub(r"[A-Za-z_]\w*", lambda m: values.get(m.group(0), m.group(0)), text)


def unify(pattern: str, target: str, names: list[str]) -> dict[str, str] | None:
    """The values of ``names`` that make type ``pattern`` read as ``target`` ('const T *' and
    'const double *' -> {'T': 'double'}), or None when it cannot."""
    parts, seen = [], set()
    for token in _TOKEN.findall(pattern):
        if token in names and token not in seen:
            seen.add(token)
            parts.append(f"(?P<{token}>.+?)")
        elif token in names:
            parts.append(f"(?P={token})")
        else:
            parts.append(re.escape(token))
    found = re.fullmatch(r"\s*".join(parts), " ".join(_TOKEN.findall(target)))
    return None if found is None else {k: v.strip() for k, v in found.groupdict().items()}


def kernel_arguments(kernel, arg_types: list[str]) -> str | None:
    """The kernel template's arguments a launch with arguments of ``arg_types`` deduces, as
    text in the caller's terms ('T', 'T, 256'); None when a parameter is not deduced."""
    names = template_params(kernel)
    params = [c.type.spelling for c in kernel.get_children() if kind_of(c) == "PARM_DECL"]
    if not names or len(params) != len(arg_types):
        return None
    values: dict[str, str] = {}
    for pattern, target in zip(params, arg_types, strict=True):
        found = unify(pattern, target, names)
        if found is None or any(values.get(k, v) != v for k, v in found.items()):
            return None
        values.update(found)
    if any(name not in values for name in names):
        return None
    return ", ".join(values[name] for name in names)


#: how many function templates deep a call chain is followed to its concrete call
CHAIN_DEPTH = 4


def caller_instances(unit, caller, specialization_args, depth: int = 0
                     ) -> list[dict[str, str]]:
    """Each instantiation of the function template ``caller`` that a call in the file names,
    as {template parameter: argument text}: a concrete call, or a call inside another function
    template followed to that template's own instantiations (``main`` calls ``run<float>``,
    which calls ``axpy<T>``: ``axpy`` gets T = float)."""
    names = template_params(caller)
    found = []
    for index, node in enumerate(unit.items):
        if node.kind != "CALL_EXPR":
            continue
        if node.template is not None:
            instances = _through_template(unit, index, node.cursor, caller, names,
                                          specialization_args, depth)
        else:
            instances = _concrete(node.cursor, caller, names, specialization_args)
        found += [i for i in instances if i not in found]
    return found


def _concrete(call, caller, names: list[str], specialization_args) -> list[dict[str, str]]:
    ref = call.referenced
    if ref is None or ref.spelling != caller.spelling or kind_of(ref) != "FUNCTION_DECL":
        return []
    text = specialization_args(ref)
    values = None if text is None else text.split(", ")
    if values is None or len(values) != len(names):
        return []
    return [dict(zip(names, values, strict=True))]


def _through_template(unit, index: int, call, caller, names: list[str], specialization_args,
                      depth: int) -> list[dict[str, str]]:
    """The instantiations of ``caller`` that a dependent call of it inside another function
    template makes: the call's template arguments in that template's terms (written out, or
    deduced from the argument types), with each of its instantiations substituted."""
    if depth >= CHAIN_DEPTH or _callee_name(call) != caller.spelling:
        return []
    owner = unit.owner(index)
    outer = unit.functions[owner].node.cursor if owner >= 0 else None
    if outer is None or kind_of(outer) != "FUNCTION_TEMPLATE" or outer == caller:
        return []
    arguments = _written_arguments(call) or kernel_arguments(
        caller, [a.type.spelling for a in call.get_arguments()])
    if arguments is None:
        return []
    found = []
    for values in caller_instances(unit, outer, specialization_args, depth + 1):
        parts = substitute(arguments, values).split(", ")
        if len(parts) == len(names):
            found.append(dict(zip(names, parts, strict=True)))
    return found


def _callee_name(call) -> str:
    """A call's function name (a dependent call inside a template has an empty spelling: its
    first token)."""
    if call.spelling:
        return call.spelling
    first = next(iter(call.get_tokens()), None)
    return first.spelling if first is not None else ""


def _written_arguments(call) -> str | None:
    """'T' of a call written ``f<T>(...)`` (top-level commas give 'T, 256'); None if none."""
    tokens = [t.spelling for t in call.get_tokens()]
    if len(tokens) < 4 or tokens[1] != "<":
        return None
    depth, groups, current = 0, [], []
    for token in tokens[1:]:
        depth += {"<": 1, ">": -1, "(": 1, ")": -1}.get(token, 0)
        if depth == 0:
            groups.append(" ".join(current))
            return ", ".join(groups) if all(groups) else None
        if token == "," and depth == 1:
            groups.append(" ".join(current))
            current = []
        elif not (token == "<" and depth == 1 and not current and not groups):
            current.append(token)
    return None


def find_kernel_template(unit, name: str, launch=None):
    """The kernel function template named ``name`` in the file's walk, or else the one the
    dependent ``launch`` names (a kernel template of a project header), or None."""
    for node in unit.items:
        if node.kind == "FUNCTION_TEMPLATE" and node.cursor.spelling == name \
                and "CUDAGLOBAL_ATTR" in unit.attrs(node.cursor):
            return node.cursor
    return None if launch is None else _named_template(launch, name)


def _named_template(launch, name: str):
    """The function template a dependent launch's callee (an overload set) names, when it is
    one template called ``name`` outside system headers."""
    children = list(launch.get_children())
    ref = children[0].referenced if children else None
    if ref is None or kind_of(ref) != "OVERLOADED_DECL_REF":
        return None
    lib = configure_libclang().conf.lib
    decls = []
    for i in range(lib.clang_getNumOverloadedDecls(ref)):
        decl = lib.clang_getOverloadedDecl(ref, i)
        decl._tu = ref._tu                      # the cursor keeps its unit alive
        decls.append(decl)
    found = [d for d in decls if kind_of(d) == "FUNCTION_TEMPLATE" and d.spelling == name
             and not d.location.is_in_system_header]
    return found[0] if len(found) == 1 else None
