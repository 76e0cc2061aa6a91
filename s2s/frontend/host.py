"""Host code: array allocations and function bodies as structured statement trees.

Both extractors work from the context's cached pre-order walk (``ctx.nodes()``): the tree is
rebuilt from node depths once per context (children, subtree ends, parents), so no extractor
walks libclang's cursors a second time, and every loop here is iterative (a chain of 200
``else if`` or a 500-term sum must not hit Python's recursion limit).

libclang hides which child of a ``for``/``if``/``switch`` is the init, the condition or the
increment: missing parts are simply absent (``for (;;)`` has one child, the body). The header
is therefore scanned on the raw bytes from the keyword to its closing parenthesis (comments,
strings and character literals skipped) and each child is placed by its offset relative to the
``;``/``)`` positions found there.

Spans are libclang's extents: an expression statement's span ends before its ``;`` (a
declaration statement's includes it). A statement gets ``directive`` when an OpenMP
directive's ``stmt_span`` starts where the statement starts (the end is not compared: the
directive extractor may include the ``;``); the outermost statement at that offset wins.
"""

from __future__ import annotations

import ctypes
import re

from s2s.frontend.context import FUNCTION_KINDS, TEMPLATE_KINDS, ExtractContext
from s2s.frontend.toolchain import configure_libclang
from s2s.model.cuda import Param
from s2s.model.host import CallSite, HostAllocation, HostFunction, Stmt
from s2s.model.span import Expr

#: Allocation functions of the C library (and common relatives) -> index of the byte-size
#: argument. calloc is handled apart (count and element size are two arguments).
MALLOC_SIZE_ARG = {"malloc": 0, "realloc": 1, "aligned_alloc": 1, "posix_memalign": 2,
                   "memalign": 1, "valloc": 0, "pvalloc": 0, "_mm_malloc": 0}
ARRAY_TYPE_KINDS = frozenset({"CONSTANTARRAY", "VARIABLEARRAY", "INCOMPLETEARRAY",
                              "DEPENDENTSIZEDARRAY"})
MEMBER_KINDS = frozenset({"CXX_METHOD", "CONSTRUCTOR", "DESTRUCTOR", "CONVERSION_FUNCTION"})
RECORD_KINDS = frozenset({"STRUCT_DECL", "CLASS_DECL", "UNION_DECL", "CLASS_TEMPLATE",
                          "CLASS_TEMPLATE_PARTIAL_SPECIALIZATION"})
#: Expression wrappers between an allocation call and the variable it initialises.
WRAPPER_KINDS = frozenset({"UNEXPOSED_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR",
                           "CXX_REINTERPRET_CAST_EXPR", "CXX_CONST_CAST_EXPR", "PAREN_EXPR",
                           "CXX_FUNCTIONAL_CAST_EXPR"})
#: Subtrees whose calls do not run when the enclosing statement runs.
CALL_SCAN_SKIP = RECORD_KINDS | FUNCTION_KINDS | {"LAMBDA_EXPR"}
#: libclang statement kinds -> Stmt kinds (other statements are ``other``, expressions ``expr``).
STMT_KINDS = {"COMPOUND_STMT": "block", "FOR_STMT": "for", "WHILE_STMT": "while", "DO_STMT": "do",
              "CXX_FOR_RANGE_STMT": "range_for", "IF_STMT": "if", "SWITCH_STMT": "switch",
              "CASE_STMT": "case", "DEFAULT_STMT": "default", "BREAK_STMT": "break",
              "CONTINUE_STMT": "continue", "RETURN_STMT": "return", "GOTO_STMT": "goto",
              "LABEL_STMT": "label", "DECL_STMT": "decl", "NULL_STMT": "null"}
LAUNCH_CONFIG = "__cudaPushCallConfiguration"
ALLOC_FUNCS = frozenset(MALLOC_SIZE_ARG) | {"calloc"}


# --------------------------------------------------------------------------------------------
# The main-file tree, rebuilt once per context from the cached pre-order walk.

def _offsets(cursor) -> tuple[int, int]:
    """``(start, end)`` byte offsets of a cursor's extent.

    ``cursor.extent.start.offset`` also builds the file, line and column (and a null check
    per call) and dominated the profile of a 1000-line file; libclang accepts NULL for the
    outputs we do not need.
    """
    extent_of, range_start, range_end, location = _LIB or _bind()
    rng = extent_of(cursor)
    start, end = ctypes.c_uint(), ctypes.c_uint()
    location(range_start(rng), None, None, None, ctypes.byref(start))
    location(range_end(rng), None, None, None, ctypes.byref(end))
    return start.value, end.value


_LIB: list = []


def _bind() -> list:
    lib = configure_libclang().conf.lib
    _LIB[:] = [lib.clang_getCursorExtent, lib.clang_getRangeStart, lib.clang_getRangeEnd,
               lib.clang_getInstantiationLocation]
    return _LIB


def _expr(ctx: ExtractContext, cursor, template: str | None) -> Expr:
    start, end = _offsets(cursor)
    return Expr(ctx.index.text(start, end), ctx.index.span(start, end, template))


class _Tree:
    """Children, parent and subtree end of every node of ``ctx.nodes()``."""

    def __init__(self, ctx: ExtractContext):
        self.ctx = ctx
        self.nodes = nodes = ctx.nodes()
        count = len(nodes)
        self.kinds = [n.kind for n in nodes]
        self.parent = [-1] * count
        self.end = [count] * count
        self.children: list[list[int]] = [[] for _ in range(count)]
        stack: list[int] = []
        for i, node in enumerate(nodes):
            while stack and nodes[stack[-1]].depth >= node.depth:
                self.end[stack.pop()] = i
            if stack:
                self.parent[i] = stack[-1]
                self.children[stack[-1]].append(i)
            stack.append(i)
        self._extents: dict[int, tuple[int, int]] = {}
        self.templates = [n.template for n in nodes]
        self._out_of_line_templates()

    def _out_of_line_templates(self) -> None:
        """``template <class V> void Box<V>::m() {...}`` sits outside the class template in the
        walk, so its node has no template: take it from the method's semantic parent."""
        kinds, parent = self.kinds, self.parent
        for i, kind in enumerate(kinds):
            if kind not in MEMBER_KINDS or self.templates[i] is not None:
                continue
            if parent[i] >= 0 and kinds[parent[i]] in RECORD_KINDS:
                continue
            owner = self.nodes[i].cursor.semantic_parent
            if owner is not None and owner.kind.name in TEMPLATE_KINDS:
                self.templates[i : self.end[i]] = [owner.spelling] * (self.end[i] - i)

    def extent(self, i: int) -> tuple[int, int]:
        got = self._extents.get(i)
        if got is None:
            got = self._extents[i] = _offsets(self.nodes[i].cursor)
        return got

    def span(self, i: int):
        start, end = self.extent(i)
        return self.ctx.index.span(start, end, self.templates[i])

    def expr(self, i: int) -> Expr:
        start, end = self.extent(i)
        return Expr(self.ctx.index.text(start, end), self.span(i))


def _tree(ctx: ExtractContext) -> _Tree:
    return ctx.memo("host.tree", _Tree)


def cuda_role(cursor) -> str:
    """``global``, ``device`` (device only), ``host_device`` or ``host`` from the attributes.

    The attributes come from macros defined in the CUDA headers, so they are not in the
    main-file walk: read them from the cursor's own children.
    """
    kinds = {c.kind.name for c in cursor.get_children() if c.kind.is_attribute()}
    if "CUDAGLOBAL_ATTR" in kinds:
        return "global"
    if "CUDADEVICE_ATTR" in kinds:
        return "host_device" if "CUDAHOST_ATTR" in kinds else "device"
    return "host"


def _is_host_code(role: str) -> bool:
    return role in ("host", "host_device")


# --------------------------------------------------------------------------------------------
# Raw-byte scanning of short source ranges (headers, brackets).

_IDENT = re.compile(rb"[A-Za-z_]\w*")


def _skip_space(src: bytes, i: int) -> int:
    """Skip whitespace and comments from ``i``."""
    n = len(src)
    while i < n:
        c = src[i]
        if c in b" \t\r\n\f\v":
            i += 1
        elif src.startswith(b"//", i):
            nl = src.find(b"\n", i)
            i = n if nl < 0 else nl + 1
        elif src.startswith(b"/*", i):
            close = src.find(b"*/", i + 2)
            i = n if close < 0 else close + 2
        elif src.startswith(b"\\\n", i):
            i += 2
        else:
            break
    return i


def _skip_literal(src: bytes, i: int) -> int:
    """``src[i]`` opens a string or character literal: return the offset after it."""
    quote = src[i]
    if quote == ord('"') and i > 0 and src[i - 1] == ord("R"):
        open_paren = src.find(b"(", i)
        if open_paren > 0:
            close = src.find(b")" + src[i + 1 : open_paren] + b'"', open_paren)
            if close > 0:
                return close + open_paren - i + 1
    j = i + 1
    n = len(src)
    while j < n and src[j] != quote:
        j += 2 if src[j] == ord("\\") else 1
    return j + 1


def _in_number(src: bytes, i: int) -> bool:
    """Is the ``'`` at ``i`` a C++14 digit separator (``1'000``) rather than a char literal?"""
    j = i
    while j > 0 and (chr(src[j - 1]).isalnum() or src[j - 1] in b"_.'"):
        j -= 1
    return j < i and chr(src[j]).isdigit()


def _balanced(src: bytes, i: int, limit: int | None = None) -> tuple[int, list[int]] | None:
    """``src[i]`` is an opening bracket: its matching closer and the ``;`` at depth one."""
    depth = 0
    semis: list[int] = []
    n = len(src) if limit is None else min(limit, len(src))
    while i < n:
        c = src[i]
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
            if depth == 0:
                return i, semis
        elif c == ord(";") and depth == 1:
            semis.append(i)
        elif c == ord('"') or (c == ord("'") and not _in_number(src, i)):
            i = _skip_literal(src, i)
            continue
        elif c == ord("/") and src[i + 1 : i + 2] in (b"/", b"*"):
            i = _skip_space(src, i)
            continue
        i += 1
    return None


def _header(src: bytes, start: int, keyword: bytes) -> tuple[int, list[int]] | None:
    """The ``)`` closing a ``for``/``if``/``while``/``switch`` header and its top-level ``;``.

    None when the statement's text does not start with the keyword (it came from a macro) or
    has no parenthesised header (``if consteval``).
    """
    if not src.startswith(keyword, start):
        return None
    i = _skip_space(src, start + len(keyword))
    if keyword == b"if" and src.startswith(b"constexpr", i):
        i = _skip_space(src, i + len(b"constexpr"))
    if src[i : i + 1] != b"(":
        return None
    return _balanced(src, i)


# --------------------------------------------------------------------------------------------
# Calls.

def _call_site(tree: _Tree, i: int) -> CallSite | None:
    cursor = tree.nodes[i].cursor
    name = cursor.spelling
    if name == LAUNCH_CONFIG:
        return None
    ref = cursor.referenced
    ref_kind = ref.kind.name if ref is not None else None
    if ref_kind in ("CONSTRUCTOR", "CONVERSION_FUNCTION") and _implicit_call(tree, i):
        return None
    if not name and ref is not None:
        name = ref.spelling
    kids = tree.children[i]
    skip = 0
    if (not name or name == "operator()") and kids:
        # Dependent calls (templates) have no name; a functor or lambda call is named by
        # its object (``l(3)``), not ``operator()``, and the object is not an argument.
        if not name and tree.kinds[kids[0]] == "TYPE_REF":
            return None  # ``T(1.5)`` in a template: a functional cast, not a call
        callee = _callee_name(tree.ctx.index.text(*tree.extent(kids[0])))
        if not callee:
            # Inside a macro expansion the callee has no text of its own: use what it names.
            target = tree.nodes[kids[0]].cursor.referenced
            callee = target.spelling if target is not None else ""
        skip = 1 if name else 0
        name = callee or name
    if not name:
        return None
    args = []
    template = tree.templates[i]
    for arg in list(cursor.get_arguments())[skip:]:
        expr = _expr(tree.ctx, arg, template)
        if expr.span.start == expr.span.end == 0:
            continue  # a default argument: it has no location at the call
        args.append(expr)
    return CallSite(name, tuple(args), tree.span(i))


def _implicit_call(tree: _Tree, i: int) -> bool:
    """An implicit constructor or conversion: default construction, copy, conversion.

    Such a call either has no argument list of its own (``C c;``) or shares its extent with
    the expression it converts (``D d = 3;``, a by-value argument).
    """
    start, end = tree.extent(i)
    text = tree.ctx.source[start:end]
    if not text or (b"(" not in text and b"{" not in text):
        return True
    return any(tree.extent(k) == (start, end) for k in tree.children[i])


def _callee_name(text: str) -> str:
    """``tk`` from ``tk``, ``ns::f<T>`` -> ``f``, ``obj.m`` -> ``m`` (dependent calls)."""
    text = text.split("<", 1)[0].strip()
    for sep in ("->", ".", "::"):
        text = text.rsplit(sep, 1)[-1]
    return text.strip()


def _calls(tree: _Tree, roots) -> tuple[CallSite, ...]:
    """Calls in the expression subtrees ``roots``, in pre-order; lambda bodies and local
    classes are skipped (their calls do not run here)."""
    out = []
    kinds, end = tree.kinds, tree.end
    for root in roots:
        j = root
        stop = end[root]
        while j < stop:
            kind = kinds[j]
            if kind in CALL_SCAN_SKIP:
                j = end[j]
                continue
            if kind == "CALL_EXPR":
                site = _call_site(tree, j)
                if site is not None:
                    out.append(site)
            j += 1
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Statements.

def _is_stmt_kind(kind: str) -> bool:
    return kind.endswith("_STMT") or kind.endswith("_DIRECTIVE")


class _Plan:
    """What building one statement needs once its nested statements are built."""

    __slots__ = ("node", "kind", "subs", "roles", "fields", "call_roots", "directive")

    def __init__(self, node: int, kind: str):
        self.node = node
        self.kind = kind
        self.subs: list[int] = []
        self.roles: list[str] = []
        self.fields: dict = {}
        self.call_roots: list[int] = []
        self.directive: int | None = None

    def sub(self, role: str, i: int | None) -> None:
        if i is not None:
            self.subs.append(i)
            self.roles.append(role)


class _StmtBuilder:
    """Builds the Stmt tree of one function body with an explicit stack (post-order)."""

    def __init__(self, tree: _Tree, directives):
        self.tree = tree
        self.src = tree.ctx.source
        self.by_start: dict[int, int] = {}
        for index, directive in enumerate(directives or ()):
            stmt_span = getattr(directive, "stmt_span", None)
            if stmt_span is not None:
                self.by_start[stmt_span.start] = index  # the innermost (last) one wins

    def build(self, root: int) -> Stmt:
        values: list[Stmt] = []
        tasks: list[tuple[bool, object]] = [(True, root)]
        while tasks:
            enter, item = tasks.pop()
            if enter:
                plan = self._plan(item)
                tasks.append((False, plan))
                tasks.extend((True, sub) for sub in reversed(plan.subs))
            else:
                count = len(item.subs)
                built = values[len(values) - count :] if count else []
                del values[len(values) - count :]
                values.append(self._make(item, built))
        return values[0]

    def _make(self, plan: _Plan, built: list[Stmt]) -> Stmt:
        parts: dict = dict(plan.fields)
        children = []
        for role, stmt in zip(plan.roles, built, strict=True):
            if role == "child":
                children.append(stmt)
            else:
                parts[role] = stmt
        return Stmt(plan.kind, self.tree.span(plan.node), children=tuple(children),
                    calls=_calls(self.tree, plan.call_roots), directive=plan.directive, **parts)

    # -- planning: which children are nested statements, which are header expressions ------

    def _plan(self, i: int) -> _Plan:
        tree = self.tree
        ckind = tree.kinds[i]
        kids = tree.children[i]
        kind = STMT_KINDS.get(ckind) or ("other" if _is_stmt_kind(ckind) else "expr")
        plan = _Plan(i, kind)
        start = tree.extent(i)[0]
        if start in self.by_start:
            plan.directive = self.by_start.pop(start)  # outermost statement at that offset
        getattr(self, "_plan_" + kind, self._plan_other)(plan, kids)
        return plan

    def _plan_block(self, plan, kids):
        for k in kids:
            plan.sub("child", k)

    def _plan_expr(self, plan, kids):
        plan.call_roots.append(plan.node)

    _plan_decl = _plan_expr

    def _plan_other(self, plan, kids):
        for k in kids:
            if _is_stmt_kind(self.tree.kinds[k]):
                plan.sub("child", k)
            else:
                plan.call_roots.append(k)

    def _plan_null(self, plan, kids):
        pass

    _plan_break = _plan_continue = _plan_null

    def _plan_return(self, plan, kids):
        if kids:
            plan.fields["cond"] = self.tree.expr(kids[0])
            plan.call_roots.extend(kids)

    def _plan_goto(self, plan, kids):
        label = self.tree.nodes[kids[0]].cursor.spelling if kids else None
        if not label:
            start, end = self.tree.extent(plan.node)
            label = self.tree.ctx.index.text(start, end).removeprefix("goto").strip() or None
        plan.fields["label"] = label

    def _plan_label(self, plan, kids):
        plan.fields["label"] = self.tree.nodes[plan.node].cursor.spelling
        if kids:
            plan.sub("child", kids[-1])

    def _plan_default(self, plan, kids):
        if kids:
            plan.sub("child", kids[-1])

    def _plan_case(self, plan, kids):
        tree = self.tree
        if not kids:
            return
        values = kids[:-1] if len(kids) > 1 else kids
        if len(values) == 1:
            plan.fields["cond"] = tree.expr(values[0])
        else:  # GNU case range: case 1 ... 3
            start, end = tree.extent(values[0])[0], tree.extent(values[-1])[1]
            plan.fields["cond"] = Expr(tree.ctx.index.text(start, end),
                                       tree.ctx.index.span(start, end, tree.templates[plan.node]))
        plan.call_roots.extend(values)
        if len(kids) > 1:
            plan.sub("child", kids[-1])

    def _plan_do(self, plan, kids):
        if kids:
            plan.sub("body", kids[0])
        if len(kids) > 1:
            plan.fields["cond"] = self.tree.expr(kids[1])
            plan.call_roots.append(kids[1])

    def _split(self, plan, kids, keyword: bytes):
        """(init children, condition children, rest) of a statement with a ``(...)`` header."""
        tree = self.tree
        marks = _header(self.src, tree.extent(plan.node)[0], keyword)
        if marks is None:
            return None
        close, semis = marks
        head = [k for k in kids if tree.extent(k)[0] < close]
        rest = [k for k in kids if tree.extent(k)[0] > close]
        return head, semis, rest

    def _cond(self, plan, kids):
        """The condition among header children: a condition variable's declaration wins
        (its implicit use of the variable is a second child inside the declaration)."""
        if not kids:
            return
        decls = [k for k in kids if self.tree.kinds[k] in ("VAR_DECL", "DECL_STMT")]
        cond = decls[0] if decls else kids[0]
        plan.fields["cond"] = self.tree.expr(cond)
        plan.call_roots.extend(kids if not decls else decls)

    def _init_stmt(self, i: int) -> Stmt:
        kind = "decl" if self.tree.kinds[i] in ("DECL_STMT", "VAR_DECL") else "expr"
        return Stmt(kind, self.tree.span(i))

    def _plan_for(self, plan, kids):
        tree = self.tree
        split = self._split(plan, kids, b"for")
        if split is None:  # a for produced by a macro: best effort from the kinds
            head, rest = kids[:-1], kids[-1:]
            has_init = len(head) == 3 or (head and tree.kinds[head[0]] == "DECL_STMT")
            init, head = (head[:1], head[1:]) if has_init else ([], head)
            cond, step = head[:1], head[1:2]
        else:
            head, semis, rest = split
            first, second = (semis + [None, None])[:2]
            init = [k for k in head if first is not None and tree.extent(k)[0] < first]
            cond = [k for k in head if k not in init and (second is None or tree.extent(k)[0] < second)]
            step = [k for k in head if k not in init and k not in cond]
        if init:
            plan.fields["init"] = self._init_stmt(init[0])
            plan.call_roots.extend(init)
        self._cond(plan, cond)
        if step:
            plan.fields["step"] = tree.expr(step[0])
            plan.call_roots.extend(step)
        if rest:
            plan.sub("body", rest[-1])

    def _plan_while(self, plan, kids):
        split = self._split(plan, kids, b"while")
        head, rest = (kids[:-1], kids[-1:]) if split is None else (split[0], split[2])
        self._cond(plan, head)
        if rest:
            plan.sub("body", rest[0])

    def _plan_switch(self, plan, kids):
        split = self._split(plan, kids, b"switch")
        head, semis, rest = (kids[:-1], [], kids[-1:]) if split is None else split
        self._header_with_init(plan, head, semis)
        if rest:
            plan.sub("body", rest[0])

    def _plan_if(self, plan, kids):
        tree = self.tree
        src, start = self.src, tree.extent(plan.node)[0]
        after = _skip_space(src, start + 2)
        if src.startswith(b"if", start) and src.startswith((b"consteval", b"!"), after):
            head, semis, rest = [], [], kids  # if consteval { } else { }: no condition
        else:
            split = self._split(plan, kids, b"if")
            if split is None:
                head, semis, rest = kids[:1], [], kids[1:]
            else:
                head, semis, rest = split
        self._header_with_init(plan, head, semis)
        if rest:
            plan.sub("body", rest[0])
        if len(rest) > 1:
            plan.sub("orelse", rest[1])

    def _header_with_init(self, plan, head, semis):
        """``if``/``switch`` headers: C++17 init-statement before the first ``;``."""
        tree = self.tree
        init = [k for k in head if semis and tree.extent(k)[0] < semis[0]]
        if init:
            plan.fields["init"] = self._init_stmt(init[0])
            plan.call_roots.extend(init)
        self._cond(plan, [k for k in head if k not in init])

    def _plan_range_for(self, plan, kids):
        tree = self.tree
        if not kids:
            return
        body, head = kids[-1], kids[:-1]
        if len(head) >= 2:
            var = head[-2]
            start, end = tree.extent(var)
            text = self.src[start:end].rstrip()
            if text.endswith(b":"):  # libclang's extent of the loop variable ends at the ':'
                end = start + len(text[:-1].rstrip())
            plan.fields["init"] = Stmt("decl", tree.ctx.index.span(start, end, tree.templates[var]))
            plan.call_roots.extend(head[:-2])  # a C++20 init-statement; the variable's own
            # children are implicit (*__begin) calls
        if head:
            plan.fields["cond"] = tree.expr(head[-1])
            plan.call_roots.append(head[-1])
        plan.sub("body", body)


# --------------------------------------------------------------------------------------------
# Functions.

def _param(ctx: ExtractContext, cursor, template: str | None) -> Param:
    from s2s.frontend.containers import vector_reference

    ptype = cursor.type
    canon = ptype.get_canonical()
    is_pointer = canon.kind.name == "POINTER" or canon.kind.name in ARRAY_TYPE_KINDS
    pointee_const = False
    if canon.kind.name == "POINTER":
        pointee_const = canon.get_pointee().is_const_qualified()
    elif vector_reference(canon):
        # ``std::vector<T> &v`` names the caller's storage, as a pointer would
        is_pointer, pointee_const = True, canon.get_pointee().is_const_qualified()
    elif canon.kind.name in ARRAY_TYPE_KINDS:
        # An array parameter decays; clang keeps the element's const on the array type.
        pointee_const = canon.is_const_qualified() or canon.element_type.is_const_qualified()
    return Param(cursor.spelling, ptype.spelling, ctx.span(cursor, template), is_pointer,
                 bool(pointee_const), bool(ptype.is_restrict_qualified() or canon.is_restrict_qualified()))


def _is_static(ctx: ExtractContext, cursor) -> bool:
    storage = cursor.storage_class.name
    if storage != "INVALID":
        return storage == "STATIC"
    # Templates have no storage class in libclang: look at the text before the name.
    start, name_at = _offsets(cursor)[0], cursor.location.offset
    return re.search(rb"\bstatic\b", ctx.source[start:max(start, name_at)]) is not None


def extract_functions(ctx: ExtractContext, directives=()) -> tuple[HostFunction, ...]:
    """Every host function defined in the main file, with its body as a Stmt tree.

    Kernels (``__global__``) and ``__device__``-only functions are left out; ``__host__
    __device__`` functions are host code too. ``directives`` (the file's OmpDirective tuple)
    lets a statement record which directive governs it.
    """
    tree = _tree(ctx)
    builder = _StmtBuilder(tree, directives)
    out = []
    for i, node in enumerate(tree.nodes):
        if node.kind not in FUNCTION_KINDS:
            continue
        cursor = node.cursor
        if not cursor.is_definition():
            continue
        children = list(cursor.get_children())
        kinds = {c.kind.name for c in children}
        if "CUDAGLOBAL_ATTR" in kinds or ("CUDADEVICE_ATTR" in kinds and "CUDAHOST_ATTR" not in kinds):
            continue
        body_index = next((k for k in reversed(tree.children[i])
                           if tree.kinds[k] in ("COMPOUND_STMT", "CXX_TRY_STMT")), None)
        body = builder.build(body_index) if body_index is not None else None
        template = tree.templates[i]
        params = tuple(_param(ctx, c, template) for c in children if c.kind.name == "PARM_DECL")
        out.append(HostFunction(
            name=cursor.spelling, span=ctx.span(cursor, template),
            return_type=cursor.result_type.spelling, params=params, body=body,
            is_template=node.kind == "FUNCTION_TEMPLATE" or template is not None,
            is_static=_is_static(ctx, cursor), member_of=_member_of(cursor)))
    return tuple(out)


def _member_of(cursor) -> str | None:
    """The class a member function (method, constructor, destructor) belongs to."""
    if cursor.kind.name not in MEMBER_KINDS:
        return None
    owner = cursor.semantic_parent
    return owner.spelling if owner is not None and owner.spelling else None


# --------------------------------------------------------------------------------------------
# Allocations.

def extract_allocations(ctx: ExtractContext) -> tuple[HostAllocation, ...]:
    """Host arrays and their sizes: malloc family, ``new T[n]``, fixed-size arrays and VLAs.

    Code inside ``__global__`` and ``__device__``-only functions is skipped, and so are CUDA
    allocation calls (the CUDA extractor reports those). A heap allocation is reported only
    when it initialises or is assigned to a variable or member (``name``).
    """
    from s2s.frontend.allocators import helper_allocation, returned_allocations
    from s2s.frontend.containers import vector_allocation

    tree = _tree(ctx)
    out: list[HostAllocation] = []
    helpers = returned_allocations(tree)
    device_until = -1  # nodes before this index lie in a device function
    for i, node in enumerate(tree.nodes):
        if i < device_until:
            continue
        kind = node.kind
        if kind in FUNCTION_KINDS:
            if not _is_host_code(cuda_role(node.cursor)):
                device_until = tree.end[i]
            continue
        found = None
        if kind == "VAR_DECL":
            found = _array_decl(tree, i) or vector_allocation(tree, i)
        elif kind == "FIELD_DECL" or (kind == "PARM_DECL" and node.function is not None):
            found = vector_allocation(tree, i)  # a by-value vector parameter is a copy
        elif kind == "CALL_EXPR" and node.cursor.spelling in ALLOC_FUNCS:
            found = _malloc(tree, i)
        elif kind == "CALL_EXPR" and helpers and node.cursor.spelling in helpers:
            found = helper_allocation(tree, i, helpers)
        elif kind == "CXX_NEW_EXPR":
            found = _new_array(tree, i)
        if found is not None:
            out.append(found)
    return tuple(out)


def _array_decl(tree: _Tree, i: int) -> HostAllocation | None:
    cursor = tree.nodes[i].cursor
    vtype = cursor.type
    canon = vtype.get_canonical()
    if canon.kind.name not in ARRAY_TYPE_KINDS or cursor.storage_class.name == "EXTERN":
        return None
    if tree.parent[i] >= 0 and tree.kinds[tree.parent[i]] in RECORD_KINDS:
        return None  # a static data member's declaration (the definition comes later)
    if any(c.kind.name in ("CUDADEVICE_ATTR", "CUDACONSTANT_ATTR", "CUDASHARED_ATTR")
           for c in cursor.get_children()):
        return None
    is_vla = False
    counts = []
    element = vtype
    while True:
        ekind = element.kind.name
        if ekind not in ARRAY_TYPE_KINDS:
            element = element.get_canonical()
            ekind = element.kind.name
            if ekind not in ARRAY_TYPE_KINDS:
                break
        is_vla = is_vla or ekind == "VARIABLEARRAY"
        counts.append(element.element_count if ekind == "CONSTANTARRAY" else None)
        element = element.element_type
    node = tree.nodes[i]
    span = tree.span(i)
    dims = _written_dims(tree, i, len(counts))
    if dims is None or any(not d.text for d in dims):
        if None in counts:
            dims = ()
        else:
            dims = tuple(Expr(str(c), span) for c in counts)
    count = None
    if len(dims) == 1:
        count = dims[0]
    elif dims:
        text = " * ".join(_factor(d.text) for d in dims)
        first, last = dims[0].span, dims[-1].span
        count = Expr(text, tree.ctx.index.span(first.start, max(first.start, last.end), tree.templates[i]))
    # The declared spelling keeps typedefs (``cudaStream_t[4]``, not ``CUstream_st *[4]``).
    written = vtype.spelling
    element_type = written.split("[", 1)[0].strip() if "[" in written else element.spelling
    return HostAllocation(cursor.spelling, "vla" if is_vla else "static_array", element_type,
                          span, node.function, count, None, dims)


def _written_dims(tree: _Tree, i: int, count: int) -> tuple[Expr, ...] | None:
    """The bracketed dimensions after the declared name, as written (None if not plain text)."""
    cursor = tree.nodes[i].cursor
    src = tree.ctx.source
    at = cursor.location.offset
    name = cursor.spelling.encode()
    if not name or not src.startswith(name, at):
        return None
    end = tree.extent(i)[1]
    pos = at + len(name)
    dims = []
    template = tree.templates[i]
    for _ in range(count):
        pos = _skip_space(src, pos)
        if src[pos : pos + 1] != b"[":
            return None
        match = _balanced(src, pos, end + 1)
        if match is None:
            return None
        close = match[0]
        lo, hi = pos + 1, close
        while lo < hi and src[lo] in b" \t\r\n":
            lo += 1
        while hi > lo and src[hi - 1] in b" \t\r\n":
            hi -= 1
        dims.append(Expr(tree.ctx.index.text(lo, hi), tree.ctx.index.span(lo, hi, template)))
        pos = close + 1
    return tuple(dims)


def _factor(text: str) -> str:
    """Parenthesise ``text`` unless it is a plain operand (for building products)."""
    depth = 0
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch in "+-*/%<>=&|^?:,!~ ":
            return f"({text})"
    return text


def _target(tree: _Tree, i: int):
    """The variable or member that the allocation at node ``i`` initialises or is assigned
    to: (name, type of the target) or None."""
    child, p = i, tree.parent[i]
    while p >= 0 and tree.kinds[p] in WRAPPER_KINDS:
        child, p = p, tree.parent[p]
    if p < 0:
        return None
    pkind = tree.kinds[p]
    cursor = tree.nodes[p].cursor
    if pkind == "VAR_DECL":
        return cursor.spelling, cursor.type
    if pkind == "BINARY_OPERATOR" and tree.children[p] and tree.children[p][0] != child:
        if cursor.spelling == "=" or _binop(cursor) == "Assign":
            lhs = tree.children[p][0]
            return tree.expr(lhs).text, tree.nodes[lhs].cursor.type
    return None


def _binop(cursor) -> str:
    try:
        return cursor.binary_operator.name
    except Exception:  # older bindings
        return ""


def _unwrap(cursor):
    """Strip implicit conversions (same extent, one child) and nothing else."""
    while cursor.kind.name == "UNEXPOSED_EXPR":
        kids = list(cursor.get_children())
        if len(kids) != 1:
            break
        cursor = kids[0]
    return cursor


def _sizeof_type(ctx: ExtractContext, cursor) -> str | None:
    """The type measured by a ``sizeof`` factor: ``sizeof(T)`` -> T, ``sizeof *p`` -> *p's type."""
    text = ctx.text(cursor)
    if not text.startswith("sizeof"):
        return None
    for child in cursor.get_children():
        if child.kind.is_expression():
            return child.type.spelling
    inner = text[len("sizeof"):].strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1].strip()
    return inner or None


def _size_parts(ctx: ExtractContext, size, template):
    """(count Expr or None, element type from sizeof or None) of a byte-size expression."""
    factors = []
    stack = [size]
    while stack:
        cur = _unwrap(stack.pop())
        if cur.kind.name == "BINARY_OPERATOR" and (cur.spelling == "*" or _binop(cur) == "Mul"):
            stack.extend(reversed(list(cur.get_children())))
        else:
            factors.append(cur)
    sizeofs = [k for k, f in enumerate(factors) if f.kind.name == "CXX_UNARY_EXPR"
               and _sizeof_type(ctx, f) is not None]
    if len(sizeofs) != 1:
        return None, None
    elem = _sizeof_type(ctx, factors[sizeofs[0]])
    others = [f for k, f in enumerate(factors) if k != sizeofs[0]]
    if not others:  # malloc(sizeof(T)): one element
        return Expr("1", _expr(ctx, factors[sizeofs[0]], template).span), elem
    if sizeofs[0] in (0, len(factors) - 1):
        start, end = _offsets(others[0])[0], _offsets(others[-1])[1]
        if start < end:
            return Expr(ctx.index.text(start, end), ctx.index.span(start, end, template)), elem
    text = " * ".join(_factor(ctx.text(f)) for f in others)
    return Expr(text, _expr(ctx, size, template).span), elem


def _pointee(ptype) -> str | None:
    canon = ptype.get_canonical()
    if canon.kind.name != "POINTER":
        return None
    pointee = ptype.get_pointee() if ptype.kind.name == "POINTER" else canon.get_pointee()
    if pointee.get_canonical().kind.name == "VOID":
        return None
    return pointee.spelling


def _malloc(tree: _Tree, i: int, target=None) -> HostAllocation | None:
    """The allocation a malloc-family call at node ``i`` makes for its target (the variable
    it initializes or is assigned to; ``target`` when given: a helper's return value)."""
    ctx = tree.ctx
    node = tree.nodes[i]
    cursor, template = node.cursor, tree.templates[i]
    func = cursor.spelling
    args = [a for a in cursor.get_arguments()]
    if target is not None:
        pass
    elif func == "posix_memalign":
        target = _address_target(ctx, args[0], template) if args else None
    else:
        target = _target(tree, i)
    if target is None:
        return None
    name, ttype = target
    elem = _pointee(ttype)
    if func == "calloc":
        if len(args) < 2:
            return None
        count = _expr(ctx, args[0], template)
        elem = elem or _sizeof_type(ctx, _unwrap(args[1]))
        start, end = _offsets(args[0])[0], _offsets(args[1])[1]
        size = Expr(f"{_factor(count.text)} * {_factor(ctx.text(args[1]))}",
                    ctx.index.span(start, max(start, end), template))
    else:
        index = MALLOC_SIZE_ARG[func]
        if len(args) <= index:
            return None
        size = _expr(ctx, args[index], template)
        count, sizeof_elem = _size_parts(ctx, args[index], template)
        if count is None and sizeof_elem is None:  # malloc(bytes): bytes = n * sizeof(T)
            from s2s.frontend.allocators import single_definition

            definition = single_definition(tree, i, args[index])
            if definition is not None:
                count, sizeof_elem = _size_parts(ctx, definition, template)
        elem = elem or sizeof_elem
    return HostAllocation(name, func, elem or "void", tree.span(i), node.function, count, size)


def _address_target(ctx: ExtractContext, arg, template):
    """``(void **)&p`` -> (``p``, type of p) for posix_memalign."""
    cur = arg
    while cur.kind.name in WRAPPER_KINDS:
        kids = list(cur.get_children())
        if not kids:
            return None
        cur = kids[-1]
    if cur.kind.name != "UNARY_OPERATOR" or not ctx.text(cur).startswith("&"):
        return None
    kids = list(cur.get_children())
    if not kids:
        return None
    return _expr(ctx, kids[0], template).text, kids[0].type


def _new_array(tree: _Tree, i: int, target=None) -> HostAllocation | None:
    """``new T[n]`` (placement and initialisers allowed); scalar ``new T`` is not an array.
    ``target``: what it is stored to, when not the variable it initializes or is assigned to."""
    ctx = tree.ctx
    node = tree.nodes[i]
    start, end = tree.extent(i)
    src = ctx.source
    pos = _skip_space(src, start + 2 if src.startswith(b"::", start) else start)
    if not src.startswith(b"new", pos):
        return None
    pos = _skip_space(src, pos + 3)
    if src[pos : pos + 1] == b"(":  # placement arguments, or a parenthesised type
        match = _balanced(src, pos, end)
        if match is None:
            return None
        pos = match[0] + 1
    depth = 0
    while pos < end:
        c = src[pos]
        if c == ord("<"):
            depth += 1
        elif c == ord(">"):
            depth -= 1
        elif depth == 0 and c in b"({;":
            return None
        elif depth == 0 and c == ord("["):
            break
        pos += 1
    else:
        return None
    match = _balanced(src, pos, end)
    if match is None:
        return None
    lo, hi = pos + 1, match[0]
    text = ctx.index.text(lo, hi)
    lo += len(text) - len(text.lstrip())
    hi -= len(text) - len(text.rstrip())
    count = Expr(ctx.index.text(lo, hi), ctx.index.span(lo, hi, tree.templates[i]))
    target = target or _target(tree, i)
    if target is None:
        return None
    ntype = node.cursor.type
    elem = _pointee(ntype) or ntype.get_pointee().spelling
    return HostAllocation(target[0], "new[]", elem, tree.span(i), node.function, count, None)
