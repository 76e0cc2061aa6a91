"""Where a by-value kernel parameter holds pointers: byte offsets from the record's layout.

A kernel taking ``Matrix A`` by value (``struct {int width, height, stride; float
*elements;}``, the CUDA programming guide's MatMul and OLCF hw12) receives the device pointers
inside it as bytes. The s2s runtime hands out virtual device addresses and translates pointer
*parameters* per device; the pointers a struct holds it can translate only where it knows their
offsets, and only the compiler's layout says where they are (padding, nested records, arrays,
base classes). libclang gives that layout exactly (``get_field_offsetof``, ``get_base_offsetof``).
"""

from __future__ import annotations

#: offsets listed at most per parameter (an array of thousands of pointers inside a struct is
#: not worth a launch-time scan)
MAX_OFFSETS = 256


def held_pointer_offsets(ctype) -> tuple[int, ...]:
    """Byte offsets of the pointers a value of libclang type ``ctype`` holds (records, nested
    records, base classes, constant arrays); () for a non-record type, a dependent or incomplete
    one, or one with more than MAX_OFFSETS pointers. Pointers inside a union are left out: which
    member is live is known at run time only, and translating an integer that happens to share
    the bytes would corrupt it."""
    canonical = ctype.get_canonical()
    if canonical.kind.name != "RECORD" or canonical.get_size() <= 0:
        return ()
    found: list[int] = []
    if not _collect(canonical, 0, found):
        return ()
    return tuple(found)


def _collect(canonical, base: int, found: list[int]) -> bool:
    """Offsets (from ``base``) of the pointers in a value of ``canonical``; False where the
    layout is unknown or the list would pass MAX_OFFSETS."""
    kind = canonical.kind.name
    if kind == "POINTER":
        found.append(base)
        return len(found) <= MAX_OFFSETS
    if kind == "CONSTANTARRAY":
        element = canonical.element_type.get_canonical()
        size = element.get_size()
        if size <= 0:
            return False
        before = len(found)
        if not _collect(element, base, found):
            return False
        inner = [offset - base for offset in found[before:]]
        if inner and canonical.element_count * len(inner) > MAX_OFFSETS:
            return False
        for index in range(1, canonical.element_count if inner else 0):
            found.extend(base + index * size + offset for offset in inner)
        return True
    if kind != "RECORD":
        return True
    declaration = canonical.get_declaration()
    if declaration.kind.name == "UNION_DECL":
        return True
    for parent in declaration.get_children():
        if parent.kind.name == "CXX_BASE_SPECIFIER":
            offset = parent.get_base_offsetof(declaration) if hasattr(
                parent, "get_base_offsetof") else -1
            if offset < 0 or not _collect(parent.type.get_canonical(), base + offset // 8, found):
                return False
    for field in canonical.get_fields():
        offset = field.get_field_offsetof()
        if offset < 0:
            return False
        if not field.is_bitfield() and not _collect(field.type.get_canonical(),
                                                    base + offset // 8, found):
            return False
    return True
