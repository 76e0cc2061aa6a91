"""Values of simple host expressions: launch shapes, sizes and scalar arguments.

Fusion needs numbers in three places: the planner weighs buffers by their size at the
program's default sizes (``int n = 1000000;``), legality and recomputation bind kernel
parameters through the host arguments, and the fusion checker replays a program's launch
sequence on the runtime's cpu devices. All only need the straight-line arithmetic a CUDA
``main`` uses for sizes (``(n + THREADS - 1) / THREADS``, ``(size_t)m * n * sizeof(float)``,
``dim3 grid(a, b)``) with C integer semantics (truncating ``/`` and ``%``; a comparison, ``&&``,
``||`` and ``!`` give the int 0 or 1, and ``&&``/``||`` short-circuit: ``0 && m`` is 0 with ``m``
unknown). Anything else raises :class:`EvalError` and the caller falls back (unit weights, "not replayable", a
refused fusion).

**From the AST** (issue 19, item 4): :func:`evaluate_tree`, :func:`declare_facts` and
:class:`HostTrees` work on the kernel-IR trees the frontend lowers from libclang's cursors
(``HostArg``: arguments of CUDA, allocator and launch calls, launch configurations;
``HostDecl``: scalar and ``dim3`` declarations); clang has folded literals, ``sizeof`` and
macros. ``s2s fuse`` (planning, legality samples, recomputation) uses only these, and
``s2s transfers`` compares sizes with :func:`same_size`.

**From text**: :func:`evaluate`, :func:`declare` and :func:`numeric_macros` remain for the
callers outside the passes -- the fusion replay of ``s2s.verify.fuse_replay`` and the report's
figures (``s2s.printers.figures``) -- and for ``scripts/``. They are safe there because they
decide nothing about the program: a value they get wrong or cannot get makes the replay of a
sequence fail or differ (a checker that reports, never a rewrite that is emitted) or a figure
show a default, and no fact about a variable (aliasing, liveness, roles) comes from them.
"""

from __future__ import annotations

import ast
import functools
import math
import re
from dataclasses import dataclass

SIZEOF = {"float": 4, "double": 8, "int": 4, "unsigned": 4, "unsigned int": 4, "long": 8,
          "size_t": 8, "char": 1, "short": 2, "long long": 8, "float2": 8, "float4": 16}
_CAST = re.compile(r"\(\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:size_t|int|float|double|long"
                   r"(?:\s+long)?|unsigned|char|short|void)\s*\**\s*\)")
_SIZEOF = re.compile(r"sizeof\s*\(\s*([A-Za-z_][\w ]*?)\s*\)")
_FLOAT_SUFFIX = re.compile(r"\b(\d+\.\d*(?:[eE][-+]?\d+)?|\d*\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)[fF]\b")
_INT_SUFFIX = re.compile(r"\b(\d+)(?:[uU][lL]{0,2}|[lL]{1,2}[uU]?)\b")
_LOGICAL_NOT = re.compile(r"!(?!=)")
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+)$", re.M)


class EvalError(ValueError):
    """The expression is outside what this evaluator models."""


@dataclass(frozen=True)
class Dim3:
    x: int
    y: int = 1
    z: int = 1

    @property
    def count(self) -> int:
        return self.x * self.y * self.z

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.x, self.y, self.z)


def as_dim3(value) -> Dim3:
    if isinstance(value, Dim3):
        return value
    if isinstance(value, int):
        return Dim3(value)
    raise EvalError(f"{value!r} is not a launch extent")


def numeric_macros(source: bytes) -> dict[str, int | float]:
    """Object-like macros whose body evaluates to a number (``#define THREADS 256``)."""
    return dict(_numeric_macros(source))


@functools.lru_cache(maxsize=4)
def _numeric_macros(source: bytes) -> dict[str, int | float]:
    """Searched once per source: the fusion passes ask for every launch run of a file."""
    found: dict[str, int | float] = {}
    for name, body in _DEFINE.findall(source):
        text = body.decode("utf-8", "replace").split("//")[0].split("/*")[0].strip()
        try:
            found[name.decode()] = evaluate(text, found)
        except EvalError:
            continue
    return found


def evaluate(text: str, env: dict):
    """The value of the C expression ``text`` with names from ``env``."""
    cleaned = _SIZEOF.sub(lambda m: str(_sizeof(m.group(1))), text)
    cleaned = _CAST.sub(" ", cleaned)
    cleaned = _FLOAT_SUFFIX.sub(r"\1", cleaned)
    cleaned = _INT_SUFFIX.sub(r"\1", cleaned).strip()
    if not cleaned or any(tok in cleaned for tok in ("?", "~", "->", "[", "\"", "'")):
        raise EvalError(f"cannot evaluate '{text}'")
    # C's logical operators in Python's grammar: ``&&``/``||`` as ``and``/``or`` (both bind
    # below the comparisons, ``and`` above ``or``, as in C); ``!`` as the unary ``~`` (C's
    # ``~`` was refused above), which binds as tightly as C's ``!``: ``!n == 0`` is ``(!n) == 0``
    cleaned = cleaned.replace("&&", " and ").replace("||", " or ")
    cleaned = _LOGICAL_NOT.sub(" ~", cleaned).strip()
    try:
        tree = ast.parse(cleaned, mode="eval")
    except SyntaxError as error:
        raise EvalError(f"cannot evaluate '{text}'") from error
    return _eval(tree.body, env, text)


def _sizeof(type_name: str) -> int:
    name = " ".join(type_name.split())
    if name not in SIZEOF:
        raise EvalError(f"sizeof({name}) is not known")
    return SIZEOF[name]


def _eval(node, env: dict, text: str):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise EvalError(f"'{node.id}' has no known value in '{text}'")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand, env, text)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):   # C's ``!``
        return int(not _truth(_eval(node.operand, env, text)))
    if isinstance(node, ast.BoolOp):
        return _short_circuit(isinstance(node.op, ast.Or), node.values, lambda v: _eval(v, env, text))
    if isinstance(node, ast.BinOp):
        return _binary(node.op, _eval(node.left, env, text), _eval(node.right, env, text), text)
    if isinstance(node, ast.Compare):
        values = [_eval(v, env, text) for v in (node.left, *node.comparators)]
        return _compare_chain(values, node.ops, text)
    if isinstance(node, ast.Attribute) and node.attr in ("x", "y", "z"):
        return getattr(as_dim3(_eval(node.value, env, text)), node.attr)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        args = [_eval(a, env, text) for a in node.args]
        if node.func.id == "dim3" and 1 <= len(args) <= 3:
            if len(args) == 1 and isinstance(args[0], Dim3):
                return args[0]
            return Dim3(*(int(a) for a in args))
        if node.func.id == "s2s_count" and len(args) == 1:
            return as_dim3(args[0]).count
        if node.func.id in ("max", "min", "s2s_max") and len(args) == 2:
            return min(args) if node.func.id == "min" else max(args)
    raise EvalError(f"cannot evaluate '{text}'")


#: C's comparisons, whose value is the int 0 or 1 (``if (n > LIMIT)`` in a replayed ``main``)
_COMPARE = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
            ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


def _compare_chain(values: list, ops: list, text: str):
    """A Python comparison chain with C's meaning: left to right, relational operators binding
    tighter than ``==``/``!=`` (``a == b < c`` is ``a == (b < c)``, ``a < b < c`` is
    ``(a < b) < c``)."""
    terms, equalities, value = [], [], values[0]
    for op, right in zip(ops, values[1:], strict=True):
        if isinstance(op, (ast.Eq, ast.NotEq)):
            terms.append(value)
            equalities.append(op)
            value = right
        else:
            value = _binary(op, value, right, text)
    terms.append(value)
    value = terms[0]
    for op, right in zip(equalities, terms[1:], strict=True):
        value = _binary(op, value, right, text)
    return value


def _truth(value) -> bool:
    """A scalar's C truth value (a ``dim3`` has none)."""
    if isinstance(value, Dim3):
        raise EvalError("a dim3 has no truth value")
    return value != 0


def _short_circuit(is_or: bool, operands, value_of) -> int:
    """C's ``||`` (``is_or``) or ``&&`` over ``operands``, left to right: ``value_of`` is asked
    only for the operands C evaluates (``0 && m`` is 0 and ``1 || m`` is 1 with ``m`` unknown)."""
    for operand in operands:
        if _truth(value_of(operand)) == is_or:
            return int(is_or)
    return int(not is_or)


def _binary(op, a, b, text: str):
    if isinstance(a, Dim3) or isinstance(b, Dim3):
        raise EvalError(f"arithmetic on dim3 in '{text}'")
    if type(op) in _COMPARE:
        return int(_COMPARE[type(op)](a, b))
    both_int = isinstance(a, int) and isinstance(b, int)
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        return a * b
    if isinstance(op, ast.Div):
        if b == 0:
            raise EvalError(f"division by zero in '{text}'")
        if both_int:  # C truncates toward zero
            quotient = abs(a) // abs(b)
            return quotient if (a >= 0) == (b >= 0) else -quotient
        return a / b
    if isinstance(op, ast.Mod) and both_int and b != 0:
        return int(math.fmod(a, b))
    if both_int and isinstance(op, ast.LShift):
        return a << b
    if both_int and isinstance(op, ast.RShift):
        return a >> b
    raise EvalError(f"operator not modelled in '{text}'")


def split_declarators(text: str) -> list[str]:
    """``m = 1200, n = 1000`` -> ``['m = 1200', 'n = 1000']`` (commas at depth 0 only)."""
    parts, depth, start = [], 0, 0
    for at, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:at].strip())
            start = at + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


_DECL = re.compile(r"^(?:static\s+)?(?:const\s+)?(?:unsigned\s+)?(int|size_t|float|double|long|"
                   r"unsigned|long\s+long|dim3)\s+(.+?);?\s*$", re.S)
_DIM3_CTOR = re.compile(r"^(\w+)\s*\((.*)\)$", re.S)


def declare(text: str, env: dict) -> list[str]:
    """Evaluate the declarators of a scalar or ``dim3`` declaration statement into ``env``;
    returns the names it bound (declarators it cannot evaluate are skipped)."""
    match = _DECL.match(text.strip())
    if match is None:
        return []
    kind, rest = match.group(1), match.group(2)
    bound = []
    for part in split_declarators(rest):
        name, value = _declarator(kind, part, env)
        if name is not None:
            env[name] = value
            bound.append(name)
    return bound


def _declarator(kind: str, part: str, env: dict):
    try:
        if "=" in part:
            name, _, init = part.partition("=")
            name = name.strip()
            value = evaluate(init, env)
        elif kind == "dim3" and _DIM3_CTOR.match(part):
            name, args = _DIM3_CTOR.match(part).groups()
            value = Dim3(*(int(evaluate(a, env)) for a in split_declarators(args)))
        else:
            return None, None
    except (EvalError, TypeError):
        return None, None
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None, None
    if kind == "dim3":
        value = as_dim3(value)
    elif kind in ("int", "size_t", "long", "unsigned", "long long"):
        value = int(value)
    else:
        value = float(value)
    return name, value


# -- values from the AST ----------------------------------------------------------------


def product_form(tree) -> tuple[int, tuple[str, ...]] | None:
    """A size as ``(constant, factors)``: the product of a tree of the kernel IR
    (:class:`s2s.model.host_facts.HostArg` values), with its integer constants multiplied out
    and its other factors in a canonical order; None when the tree is not a product of
    integers (``n * sizeof(float)`` and ``sizeof(float) * n`` have one form, as do
    ``NX * NY * sizeof(T)`` and ``sizeof(T) * NX * NY``). Integer casts are looked through:
    two sizes with one form are equal whenever neither computation overflows."""
    from s2s.model import kernel_ir as ir

    constant, factors, stack = 1, [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Binary) and node.op == "*":
            stack += [node.lhs, node.rhs]
        elif isinstance(node, ir.Cast) and node.kind == "int":
            stack.append(node.operand)
        elif isinstance(node, ir.IntConst):
            constant *= node.value
        elif isinstance(node, (ir.Var, ir.Binary, ir.Member, ir.Call, ir.Index, ir.Unary)):
            factors.append(repr(node))
        else:
            return None
    return constant, tuple(sorted(factors))


def same_size(a, b) -> bool:
    """Whether two size trees have one :func:`product_form` (False when either has none)."""
    form = product_form(a)
    return form is not None and form == product_form(b)


def evaluate_tree(tree, env: dict):
    """The value of a host expression lowered to the kernel IR (``HostArg.value``,
    ``HostDecl.value``) with names from ``env``, with the semantics of :func:`evaluate` (``&&``,
    ``||`` and ``!`` included): clang
    has already folded literals, ``sizeof`` and numeric macros; casts to integer truncate;
    ``dim3(...)`` (a constructor: ``Opaque('construct')``) and ``.x/.y/.z`` give extents."""
    from s2s.model import kernel_ir as ir

    if isinstance(tree, (ir.IntConst, ir.FloatConst)):
        return tree.value
    if isinstance(tree, ir.Var):
        if tree.name in env:
            return env[tree.name]
        raise EvalError(f"'{tree.name}' has no known value")
    if isinstance(tree, ir.Cast):
        value = evaluate_tree(tree.operand, env)
        if tree.kind == "int" and not isinstance(value, Dim3):
            return int(value)
        if tree.kind == "float" and not isinstance(value, Dim3):
            return float(value)
        return value
    if isinstance(tree, ir.Unary) and tree.op in ("-", "+"):
        value = evaluate_tree(tree.operand, env)
        return -value if tree.op == "-" else value
    if isinstance(tree, ir.Unary) and tree.op == "!":
        return int(not _truth(evaluate_tree(tree.operand, env)))
    if isinstance(tree, ir.Binary) and tree.op in ("&&", "||"):
        return _short_circuit(tree.op == "||", (tree.lhs, tree.rhs), lambda t: evaluate_tree(t, env))
    if isinstance(tree, ir.Binary) and tree.op in _TREE_OPS:
        return _binary(_TREE_OPS[tree.op](), evaluate_tree(tree.lhs, env), evaluate_tree(tree.rhs, env),
                       repr(tree))
    if isinstance(tree, ir.Member) and tree.name in ("x", "y", "z"):
        return getattr(as_dim3(evaluate_tree(tree.base, env)), tree.name)
    if isinstance(tree, ir.Opaque) and tree.text == "construct" and 1 <= len(tree.children) <= 3:
        args = [evaluate_tree(c, env) for c in tree.children]
        if len(args) == 1 and isinstance(args[0], Dim3):
            return args[0]
        return Dim3(*(int(a) for a in args))
    if isinstance(tree, ir.Call) and tree.name in ("max", "min", "s2s_max", "s2s_count"):
        args = [evaluate_tree(a, env) for a in tree.args]
        if tree.name == "s2s_count" and len(args) == 1:
            return as_dim3(args[0]).count
        if len(args) == 2:
            return min(args) if tree.name == "min" else max(args)
    raise EvalError(f"cannot evaluate {type(tree).__name__}")


_TREE_OPS = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "%": ast.Mod, "<<": ast.LShift,
             ">>": ast.RShift, "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq,
             "!=": ast.NotEq}


def declare_facts(decls, env: dict) -> list[str]:
    """Evaluate host declarations (``HostDecl``, in order) into ``env``; the names bound
    (declarations that do not evaluate are skipped, as :func:`declare` skips them)."""
    bound = []
    for decl in decls:
        try:
            value = evaluate_tree(decl.value, env)
        except (EvalError, TypeError, ValueError):
            continue
        if decl.kind == "dim3":
            value = as_dim3(value)
        elif isinstance(value, Dim3):
            continue
        else:
            value = int(value) if decl.kind == "int" else float(value)
        env[decl.name] = value
        bound.append(decl.name)
    return bound


class HostTrees:
    """The AST values of one unit's host code, looked up by place: a launch's grid, block,
    shared bytes and arguments, a call's arguments, the declarations of a function."""

    def __init__(self, unit):
        from s2s.model.span import SpanIndex

        self.unit = unit
        self._args = SpanIndex(unit.host_args)

    def argument(self, site, callee: str, position: int):
        """The tree of argument ``position`` of the call of ``callee`` at ``site`` (None when
        there is not exactly one)."""
        found = [a for a in self._args.inside(site) if (a.call, a.position) == (callee, position)]
        return found[0].value if len(found) == 1 else None

    def config(self, launch, position: int):
        """Grid (0), block (1) or shared bytes (2) of ``launch`` as a tree, or None."""
        return self.argument(launch.span, LAUNCH_CONFIG, position)

    def declarations(self, function_name: str, before: int) -> list:
        """The function's top-level declarations with a value that start before byte
        ``before``, in order (inner scopes are left out, as the text evaluator did)."""
        function = self.unit.function(function_name)
        if function is None or function.body is None:
            return []
        top = {s.span.start for s in function.body.children if s.kind == "decl"}
        return [d for d in self.unit.in_function("host_decls", function_name)
                if d.statement in top and d.statement < before]


LAUNCH_CONFIG = "__cudaPushCallConfiguration"
_TREES: list = []


def host_trees(unit) -> HostTrees:
    """One :class:`HostTrees` per unit (the last few kept: the fusion passes ask per run)."""
    for trees in _TREES:
        if trees.unit is unit:
            return trees
    trees = HostTrees(unit)
    _TREES[:] = [trees, *_TREES[:3]]
    return trees
