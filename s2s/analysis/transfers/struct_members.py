"""Why a device buffer held in a struct built by a helper is not pooled (issue 29, item 4 (d)).

``Buffers make_buffers(int n) { Buffers b; cudaMalloc(&b.pos, ...); ...; return b; }``: the
buffers are allocated in the helper, copied in the function that receives the struct and
freed in another (``free_buffers(b)``). Pooling them, or merging their copies, needs one
layout shared by all of those functions; the transfers plan is made per function (a region
allocates, copies and frees its buffers), so they stay as written. This module only words the
reason: which struct, which helper, where its members are copied and freed (found by the
member's name in the runtime calls' arguments: a message, not a decision)."""

from __future__ import annotations

from s2s.model import kernel_ir as ir


def struct_member_reason(model, function, target: ir.Member) -> str:
    """The message for a ``cudaMalloc(&s.m, ...)`` in ``function`` (``target`` is ``s.m``)."""
    base = target.base.name if isinstance(target.base, ir.Var) else "the struct"
    member = f"{base}{'->' if target.arrow else '.'}{target.name}"
    ends = (f".{target.name}", f"->{target.name}")
    elsewhere: dict[str, set[str]] = {"copied": set(), "freed": set()}
    for call in model.api_calls:
        if call.function == function.name or not call.args:
            continue
        texts = [a.text.strip() for a in call.args[:2]]
        if not any(t.endswith(ends) for t in texts):
            continue
        if call.category == "memcpy":
            elsewhere["copied"].add(call.function)
        elif call.category == "free":
            elsewhere["freed"].add(call.function)
    where = "; ".join(f"{what} in {', '.join(repr(f) for f in sorted(names))}"
                      for what, names in elsewhere.items() if names)
    if not where and not _returns(model, function, base):
        return (f"'{member}' is a member of the struct '{base}' that '{function.name}' allocates, "
                "copies and frees itself: the transfers plan pools and merges only buffers held in "
                "pointer variables, and a member is not followed (a local pointer holding it would be)")
    returned = " and returns" if _returns(model, function, base) else ""
    return (f"'{member}' is a member of the struct '{base}' that '{function.name}' fills"
            f"{returned}" + (f" ({where})" if where else "") + ": pooling the struct's buffers "
            "or merging their copies needs one layout shared by the functions that allocate, "
            "copy and free them, and the transfers plan is made per function")


def _returns(model, function, name: str) -> bool:
    """Whether a ``return`` statement of ``function`` mentions ``name`` (the struct it fills)."""
    if function.body is None:
        return False
    uses = model.in_function("var_uses", function.name)
    return any(stmt.kind == "return" and any(u.name == name and stmt.span.contains(u.span) for u in uses)
               for stmt in function.body.walk())
