"""Element types of the buffers a fused kernel passes, from the parameters' types.

A fused kernel declares one parameter per buffer, passed to every stage that uses it, and
keeps some buffers in a register or ``__shared__`` variable of the element type. The stages
keep the kernels' parameter types verbatim (their ``__restrict__`` and ``const`` promises
hold within each stage as they held within each kernel); the fused kernel's parameter must
convert to every one of them: ``T *`` converts to ``const T *``, ``volatile T *`` and
``T *__restrict``, ``const T *`` only to the first. So the fused parameter is ``const T *``
when every stage reads through a pointer to const, else ``T *``, never restrict-qualified
(two buffers of the fused kernel may be the same memory even where each kernel's own
parameters were not).

The type texts are libclang's spellings of the parameter types (``const float
*__restrict``), not the user's text: qualifiers are whole words there, and a pointer to
pointer, a reference or an array shows its ``*``, ``&`` or ``[``, so splitting off the
qualifier words is exact for the one-level pointers this module accepts (anything else gives
None and the planner keeps the buffer in global memory or refuses the group).
"""

from __future__ import annotations

QUALIFIERS = frozenset({"const", "volatile", "restrict", "__restrict", "__restrict__"})


def _parts(type_spelling: str) -> tuple[list[str], list[str]] | None:
    """(words before the ``*``, words after it) of a one-level pointer type, else None."""
    if type_spelling.count("*") != 1 or any(c in type_spelling for c in "&[("):
        return None
    before, after = type_spelling.split("*")
    return before.split(), after.split()


def element_type(type_spelling: str) -> str | None:
    """``float`` for ``const float *__restrict``; None when not a one-level pointer."""
    parts = _parts(type_spelling)
    if parts is None:
        return None
    words = [w for w in parts[0] if w not in QUALIFIERS]
    return " ".join(words) or None


def is_volatile(type_spelling: str) -> bool:
    """Whether the pointee is volatile (its reads and writes must all reach memory)."""
    parts = _parts(type_spelling)
    return parts is not None and "volatile" in parts[0]


def fused_parameter(types: list[str], const_pointee: list[bool]) -> str | None:
    """The fused kernel's parameter type for a buffer the stages receive as ``types``
    (None when they disagree on the element type)."""
    elements = {element_type(t) for t in types}
    if len(elements) != 1 or None in elements:
        return None
    element = elements.pop()
    return f"const {element} *" if all(const_pointee) else f"{element} *"
