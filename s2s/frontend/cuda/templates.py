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


def caller_instances(unit, caller, specialization_args) -> list[dict[str, str]]:
    """Each instantiation of the function template ``caller`` that a call in the file names,
    as {template parameter: argument text}."""
    names = template_params(caller)
    found = []
    for node in unit.items:
        if node.kind != "CALL_EXPR" or node.template is not None:
            continue
        ref = node.cursor.referenced
        if ref is None or ref.spelling != caller.spelling or kind_of(ref) != "FUNCTION_DECL":
            continue
        text = specialization_args(ref)
        values = None if text is None else text.split(", ")
        if values is not None and len(values) == len(names):
            instance = dict(zip(names, values, strict=True))
            if instance not in found:
                found.append(instance)
    return found


def find_kernel_template(unit, name: str):
    """The kernel function template named ``name`` in the file's walk, or None."""
    for node in unit.items:
        if node.kind == "FUNCTION_TEMPLATE" and node.cursor.spelling == name \
                and "CUDAGLOBAL_ATTR" in unit.attrs(node.cursor):
            return node.cursor
    return None
