"""Access models of template kernel instantiations (``k<float, 256>``), for ``s2s mgpu``.

A launch that writes its template arguments out names one instantiation; its access model is
the template's body with the arguments put in, as the compiler instantiates it: a non-type
argument that is an integer literal replaces the parameter in every expression (``blockIdx.x *
BLOCK`` becomes affine), and a type argument of a known size gives the element size of every
pointer parameter declared as a pointer to that type parameter (``T *x`` with ``T = double``:
8 bytes). An argument of any other form (a struct type, an expression, a template) gives no
model: that instantiation runs whole on one device, as before.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace

from s2s.analysis.kernel.access import KernelAccessModel, analyze_kernel
from s2s.model import kernel_ir as ir
from s2s.model.cuda import Kernel
from s2s.model.kernel_ir import KernelBody

#: sizes of the arithmetic types a type argument may name (x86-64 and every CUDA target)
TYPE_SIZES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "int8_t": 1, "uint8_t": 1, "bool": 1,
    "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2,
    "int": 4, "unsigned": 4, "unsigned int": 4, "int32_t": 4, "uint32_t": 4, "float": 4,
    "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8, "int64_t": 8,
    "uint64_t": 8, "size_t": 8, "double": 8,
}
_INTEGER = re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|\d+)[uUlL]*")


def split_arguments(text: str) -> list[str]:
    """``'float, 256'`` -> ``['float', '256']`` (commas inside brackets do not split)."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    return [p for p in parts if p]


def instantiation_access(kernel: Kernel, body: KernelBody, arguments: str,
                         functions: dict[str, KernelBody]) -> KernelAccessModel | None:
    """The access model of ``kernel<arguments>`` (named so), or None when an argument is of a
    form this does not put in."""
    instance = instantiate(kernel, body, split_arguments(arguments))
    if instance is None:
        return None
    return replace(analyze_kernel(instance, functions), kernel=f"{kernel.name}<{arguments}>")


def instantiate(kernel: Kernel, body: KernelBody, arguments: list[str],
                type_sizes: dict[str, int] = TYPE_SIZES) -> KernelBody | None:
    """``body`` with the template arguments put in, or None (see the module docstring);
    ``type_sizes`` are the type arguments put in (``s2s fuse`` adds the 2-byte floats)."""
    names = body.template_params
    if len(arguments) != len(names):
        return None                       # defaults or packs: not put in
    values: dict[str, int] = {}
    sizes: dict[str, int] = {}
    for name, argument in zip(names, arguments, strict=True):
        text = " ".join(argument.split())
        if _INTEGER.fullmatch(text):
            values[name] = int(text.rstrip("uUlL"), 0)
        elif text in type_sizes:
            sizes[name] = type_sizes[text]
        else:
            return None
    params = []
    for param, declared in zip(body.params, kernel.params, strict=False):
        pointee = declared.type.replace("const", "").replace("__restrict__", "").strip()
        pointee = pointee[:-1].strip() if pointee.endswith("*") else None
        if param.kind == "pointer" and pointee in sizes:
            param = replace(param, elem_size=sizes[pointee])
        params.append(param)
    return replace(body, params=tuple(params), body=_substitute(body.body, values),
                   template_params=())


def _substitute(node, values: dict[str, int]):
    """``node`` with every ``Var`` named in ``values`` replaced by its integer constant."""
    if isinstance(node, ir.Var) and node.name in values:
        return ir.IntConst(values[node.name])
    if isinstance(node, tuple):
        return tuple(_substitute(item, values) for item in node)
    if isinstance(node, list):
        return [_substitute(item, values) for item in node]
    if not is_dataclass(node) or isinstance(node, type):
        return node
    changes = {}
    for f in fields(node):
        if f.name == "span":
            continue
        old = getattr(node, f.name)
        new = _substitute(old, values)
        if new is not old and new != old:
            changes[f.name] = new
    return replace(node, **changes) if changes else node
