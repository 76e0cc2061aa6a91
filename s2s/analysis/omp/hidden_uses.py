"""Storage a target construct uses that its array references do not name (the report's count).

The report (omp.report) counts a construct mapped when every pointer its array references
dereference is named by a clause. Three uses escape that list, and each one left a construct
counted mapped while its kernel read storage no clause had copied (issue 28, "the summary
never lies"):

- a pointer reached only through a copy declared in the kernel (``const float *row = src +
  y * width;`` then ``row[x]``): the reference is to ``row``, declared in the region (so not
  a mapping of its own), and ``src`` is captured as a zero-length section when no clause
  names it (LIBOMPTARGET_INFO shows it as an unmapped pointer);
- a scalar member read through a struct that the construct's mapping maps partly (``P->h``
  beside ``P->x[0:n]``): once a member section of a struct is mapped, the struct is mapped
  member by member, and a member no clause names holds garbage on the device (libomptarget
  says nothing: the run prints another result);
- a pointer to a struct whose scalar members the kernel reads (``g->h``, ``g`` a parameter of
  the kernel's function) while no clause names ``g`` or a member behind it: ``g`` is captured
  as a zero-length section, so a GPU reads the members through a host address
  (LIBOMPTARGET_INFO shows ``g`` as an unmapped pointer);
- a global pointer that a routine called in the kernel dereferences (``constants[c]`` in a
  ``declare target`` function): a mapping of it that another function's data region made
  and released leaves the device global pointing at freed storage (libomptarget sees no
  argument of the kernel for it).

Facts from the model only (array references, pointer copies and call sites with their spans).
"""

from __future__ import annotations

from s2s.analysis.omp.state import norm_text
from s2s.model import TranslationUnit


def copied_sources(model: TranslationUnit, index: int, refs) -> set[str]:
    """The pointers that region-local pointers of construct ``index`` copy (through chains
    of copies inside the construct): ``src`` for ``row = src + y * width``."""
    directive = model.directives[index]
    inside = directive.stmt_span
    if inside is None or directive.function is None:
        return set()
    copies: dict[str, list[str]] = {}
    for copy in model.in_function("pointer_copies", directive.function):
        if copy.span.file == inside.file and inside.start <= copy.span.start < inside.end:
            sources = (copy.source,) if copy.source else copy.choices
            copies.setdefault(norm_text(copy.target), []).extend(sources)
    pending = [norm_text(r.array) for r in refs if r.region_local and r.pointer]
    seen: set[str] = set()
    out: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for source in copies.get(name, ()):
            if norm_text(source) in copies:
                pending.append(norm_text(source))     # a copy of a copy in the kernel
            else:
                out.add(source)
    return out


def routine_globals(model: TranslationUnit, index: int) -> set[str]:
    """Pointers that functions called in construct ``index`` (device routines, and the
    functions they call) dereference under a name that is none of their parameters or
    pointer locals: globals (``constants[c]`` in a ``declare target`` routine). The kernel
    needs their storage mapped as much as its own references'."""
    directive = model.directives[index]
    inside, host = directive.stmt_span, model.function(directive.function or "")
    if inside is None or host is None:
        return set()
    pending = [c.name for c in host.calls
               if c.span.file == inside.file and inside.start <= c.span.start < inside.end]
    seen: set[str] = set()
    out: set[str] = set()
    while pending:
        name = pending.pop()
        callee = model.function(name)
        if name in seen or callee is None:
            continue
        seen.add(name)
        own = {p.name for p in callee.params} | \
            {norm_text(c.target) for c in model.in_function("pointer_copies", name)}
        out |= {ref.array for ref in model.in_function("array_refs", name)
                if ref.pointer and not ref.region_local and ref.root not in own
                and "." not in ref.array and "->" not in ref.array}
        pending += [c.name for c in callee.calls]
    return out


def partly_mapped_scalars(refs, named: set[str]) -> set[str]:
    """The scalar members among ``refs`` (non-pointer ``P->h``, ``s.dt``) whose struct has
    other members ``named`` (mapped member by member) while they are not."""
    out = set()
    for ref in refs:
        if ref.pointer or ref.region_local:
            continue
        path = norm_text(ref.array)
        root, sep, _member = _split(path)
        if not sep or path in named or root in named:
            continue
        if any(_split(other)[0] == root and _split(other)[1] for other in named):
            out.add(ref.array)
    return out


def struct_pointers(refs, named: set[str]) -> set[str]:
    """The pointers (``g``) through which ``refs`` read or write scalar members (``g->h``)
    while no clause names the pointer or a member behind it. A struct reached through a
    pointer member (``g->x[i]``) is left to that member's mapping, which maps the struct
    member by member (and :func:`partly_mapped_scalars` the scalars beside it); ``this``
    is mapped whole by the compiler."""
    bases: dict[str, bool] = {}     # base -> a pointer member is accessed behind it
    for ref in refs:
        base = pointer_base(norm_text(ref.array))
        if base is None or ref.region_local or base == "this":
            continue
        bases[base] = bases.get(base, False) or ref.pointer
    return {base for base, behind in bases.items() if not behind and base not in named
            and not any(name.startswith(f"{base}->") for name in named)}


def pointer_base(path: str) -> str | None:
    """What a member path dereferences first (``g`` of ``g->h``, ``s.g`` of ``s.g->h``), or
    None when it goes through no ``->``."""
    cut = path.find("->")
    return path[:cut] if cut > 0 else None


def _split(path: str) -> tuple[str, str, str]:
    """(struct path, separator, member) of a member path; ("", "", path) for a plain name."""
    cut = max(path.rfind("->"), path.rfind("."))
    if cut < 0:
        return "", "", path
    sep = "->" if path[cut:cut + 2] == "->" else "."
    return path[:cut], sep, path[cut + len(sep):]
