"""Host function bodies as structured statement trees (``s2s.model.host.Stmt``).

Spans are libclang's extents: an expression statement's span ends before its ``;`` (a
declaration statement's includes it). A statement gets ``directive`` when an OpenMP
directive's ``stmt_span`` starts where the statement starts (the end is not compared: the
directive extractor may include the ``;``); the outermost statement at that offset wins.
"""

from __future__ import annotations

from s2s.frontend.host.calls import call_sites
from s2s.frontend.host.conditions import always_true, disjunct_tests, loop_header
from s2s.frontend.host.scan import skip_space, statement_header
from s2s.frontend.host.tree import STMT_KINDS, HostTree
from s2s.model.host import Stmt
from s2s.model.span import Expr

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


class StmtBuilder:
    """Builds the Stmt tree of one function body with an explicit stack (post-order)."""

    def __init__(self, tree: HostTree, directives, call_args: bool = True):
        self.tree = tree
        self.call_args = call_args      # (see host.calls.call_sites)
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
                    calls=call_sites(self.tree, plan.call_roots, self.call_args), directive=plan.directive, **parts)

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
            if always_true(self.tree, kids[1]):
                plan.fields["forever"] = True

    def _split(self, plan, kids, keyword: bytes):
        """(init children, condition children, rest) of a statement with a ``(...)`` header."""
        tree = self.tree
        marks = statement_header(self.src, tree.extent(plan.node)[0], keyword)
        if marks is None:
            return None
        close, semis = marks
        head = [k for k in kids if tree.extent(k)[0] < close]
        rest = [k for k in kids if tree.extent(k)[0] > close]
        return head, semis, rest

    def _cond(self, plan, kids):
        """The condition among header children: a condition variable's declaration wins
        (its implicit use of the variable is a second child inside the declaration).
        Returns the condition's node when it is an expression (None: a declaration)."""
        if not kids:
            return None
        decls = [k for k in kids if self.tree.kinds[k] in ("VAR_DECL", "DECL_STMT")]
        cond = decls[0] if decls else kids[0]
        plan.fields["cond"] = self.tree.expr(cond)
        plan.call_roots.extend(kids if not decls else decls)
        return None if decls else cond

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
        test = self._cond(plan, cond)
        if split is not None and not cond or test is not None and always_true(tree, test):
            plan.fields["forever"] = True
        if step:
            plan.fields["step"] = tree.expr(step[0])
            plan.call_roots.extend(step)
        header = loop_header(tree, init[0] if len(init) == 1 else None, test,
                             step[0] if len(step) == 1 else None)
        if header is not None:
            plan.fields["header"] = header
        if rest:
            plan.sub("body", rest[-1])

    def _plan_while(self, plan, kids):
        split = self._split(plan, kids, b"while")
        head, rest = (kids[:-1], kids[-1:]) if split is None else (split[0], split[2])
        test = self._cond(plan, head)
        if test is not None and always_true(self.tree, test):
            plan.fields["forever"] = True
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
        after = skip_space(src, start + 2)
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
        cond = self._cond(plan, [k for k in head if k not in init])
        if cond is not None and plan.kind == "if":
            plan.fields["tests"] = disjunct_tests(tree, cond)

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
