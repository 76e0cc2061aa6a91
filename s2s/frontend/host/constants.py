"""Compile-time sizes of a file, read from libclang's AST: what ``s2s report`` needs to turn
byte expressions such as ``n * sizeof(double)`` into numbers.

* ``const``/``constexpr`` integer variables (file scope or a function's): clang folds their
  initializers (``clang_Cursor_Evaluate``), so ``const int n = 4 * N;`` is a value too;
* object-like macros of the file and its project headers: each is probed by one declaration
  appended to the parsed text (``static const long long __s2s_probe_3 = (N);``), which clang
  evaluates as it would any use of the macro; macros that are no integer expression leave
  an invalid probe and no value;
* per variable, parameter and struct field of pointer, array or ``std::vector`` type: the size
  of one element and, for arrays of fixed size, of the whole array (clang's type sizes, not a
  table of ours).

Nothing here is a regular expression over the text: the values are clang's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from s2s.frontend.core.parse import ParseOptions, parse_source
from s2s.frontend.cuda.kernel_body import evaluate_cursor

PROBE = "__s2s_probe_"
_FUNCTIONS = ("FUNCTION_DECL", "CXX_METHOD", "CONSTRUCTOR", "DESTRUCTOR", "FUNCTION_TEMPLATE")
_INTEGER = frozenset({"BOOL", "CHAR_U", "UCHAR", "USHORT", "UINT", "ULONG", "ULONGLONG",
                      "CHAR_S", "SCHAR", "SHORT", "INT", "LONG", "LONGLONG", "ENUM"})


@dataclass(frozen=True)
class Constants:
    """Values and sizes keyed by ``(function, name)``; function None for file scope, macros
    and struct fields (looked up after the function's own)."""

    values: dict[tuple[str | None, str], int] = field(default_factory=dict)
    element_bytes: dict[tuple[str | None, str], int] = field(default_factory=dict)
    whole_bytes: dict[tuple[str | None, str], int] = field(default_factory=dict)

    def value(self, function: str | None, name: str) -> int | None:
        return _lookup(self.values, function, name)

    def element(self, function: str | None, name: str) -> int | None:
        """One element of the storage ``name`` (``d->x`` looks up the field ``x``)."""
        return _lookup(self.element_bytes, function, _last(name))

    def whole(self, function: str | None, name: str) -> int | None:
        return _lookup(self.whole_bytes, function, _last(name))


def _last(name: str) -> str:
    return name.replace("->", ".").rpartition(".")[2].strip()


def _lookup(table: dict, function: str | None, name: str):
    if function is not None and (function, name) in table:
        return table[function, name]
    return table.get((None, name))


def file_constants(path: str, source: bytes, options: ParseOptions) -> Constants:
    """The constants of ``path`` (its bytes ``source``), parsed as s2s parses it."""
    macros = _macro_names(path, source, options)
    probes = "".join(f"static const long long {PROBE}{i} = ({name});\n"
                     for i, name in enumerate(macros))
    parsed = parse_source(source + b"\n" + probes.encode(), path,
                          replace(options, openmp_check=False))
    out = Constants()
    unit = parsed.primary
    conflicts: set = set()
    _walk(unit.cursor, None, path, out, conflicts)
    for key in conflicts:
        out.values.pop(key, None)
    for cursor in unit.cursor.get_children():
        if cursor.kind.name == "VAR_DECL" and cursor.spelling.startswith(PROBE):
            value = evaluate_cursor(cursor)
            name = macros[int(cursor.spelling[len(PROBE):])]
            if isinstance(value, int) and (None, name) not in out.values:
                out.values[None, name] = value
    return out


def _macro_names(path: str, source: bytes, options: ParseOptions) -> list[str]:
    """Object-like macros defined in the file or a project header (not a system header)."""
    parsed = parse_source(source, path, replace(options, openmp_check=False))
    names = []
    for cursor in parsed.primary.cursor.get_children():
        if cursor.kind.name != "MACRO_DEFINITION" or cursor.location.file is None \
                or cursor.location.is_in_system_header:
            continue
        tokens = [t.spelling for t in cursor.get_tokens()]
        if len(tokens) > 1 and tokens[1] != "(":        # not function-like, not empty
            names.append(cursor.spelling)
        elif len(tokens) > 2 and tokens[1] == "(" and _space_before_paren(cursor):
            names.append(cursor.spelling)                 # ``#define N (4 * 256)``
    return list(dict.fromkeys(names))


def _space_before_paren(cursor) -> bool:
    """``#define N (4)`` is object-like, ``#define F(x)`` is not: the name ends where the
    parenthesis starts only in the second."""
    tokens = list(cursor.get_tokens())
    return tokens[1].extent.start.offset > tokens[0].extent.end.offset


def _walk(cursor, function: str | None, path: str, out: Constants, conflicts: set) -> None:
    for child in cursor.get_children():
        kind = child.kind.name
        location = child.location
        if location.file is None or location.is_in_system_header:
            continue
        if kind in _FUNCTIONS:
            _walk(child, child.spelling, path, out, conflicts)
            continue
        if kind == "ENUM_CONSTANT_DECL":
            out.values.setdefault((None, child.spelling), child.enum_value)
            continue
        if kind in ("VAR_DECL", "PARM_DECL", "FIELD_DECL") and \
                not child.spelling.startswith(PROBE):
            _declaration(child, None if kind == "FIELD_DECL" else function, out, conflicts)
        if kind in ("VAR_DECL", "PARM_DECL"):
            continue
        _walk(child, function, path, out, conflicts)


def _declaration(cursor, function: str | None, out: Constants, conflicts: set) -> None:
    key = (function, cursor.spelling)
    ctype = cursor.type.get_canonical()
    kind = ctype.kind.name
    if kind == "POINTER":
        size = ctype.get_pointee().get_size()
        if size > 0:
            out.element_bytes[key] = size
    elif kind in ("CONSTANTARRAY", "INCOMPLETEARRAY", "VARIABLEARRAY"):
        element = ctype.element_type
        while element.kind.name in ("CONSTANTARRAY", "VARIABLEARRAY", "INCOMPLETEARRAY"):
            element = element.element_type
        if element.get_size() > 0:
            out.element_bytes[key] = element.get_size()
        if kind == "CONSTANTARRAY" and ctype.get_size() > 0:
            out.whole_bytes[key] = ctype.get_size()
    elif kind == "RECORD" and ctype.get_declaration().spelling == "vector" and \
            ctype.get_num_template_arguments() > 0:
        size = ctype.get_template_argument_type(0).get_size()   # std::vector<T>: T's size
        if size > 0:
            out.element_bytes[key] = size
    elif kind in _INTEGER and ctype.is_const_qualified() and cursor.kind.name == "VAR_DECL":
        value = evaluate_cursor(cursor)
        if isinstance(value, int):
            if out.values.get(key, value) != value:
                conflicts.add(key)
            out.values[key] = value
