"""How much of each array a data region maps, and whether the host needs it afterwards.

Element counts come from the allocation (``malloc(n * sizeof(double))``, ``new double[n]``,
fixed-size and variable-length arrays mapped whole by name), from the program's own map
clauses with a ``[0:len]`` section, or — for storage that only called functions map, such as
struct members pulled into locals — from those functions' clauses rewritten in the caller's
names. Whether the host reads an array after the region decides if it comes back.
"""

from __future__ import annotations

import re

from s2s.analysis.omp.changes import assigns_any
from s2s.analysis.omp.method_members import left_behind
from s2s.analysis.omp.pointer_arrays import is_array_of_pointers
from s2s.analysis.omp.state import norm_text
from s2s.analysis.polynomial import NotPoly, poly, render, same_value
from s2s.model import HostAllocation, TranslationUnit
from s2s.model.host_facts import VALUE_ROLES


def root_name(name: str) -> str:
    match = re.match(r"[A-Za-z_]\w*", name)
    return match.group(0) if match else name


def array_sections(model: TranslationUnit, function, labels: set[str], start: int, end: int,
                   counts=None):
    """Section text per mappable label, and why the others are not mapped. ``counts``: which
    directives' map clauses may give a count (by index; None: all of them). A target
    construct's clause says how much storage there is only when it runs: one under a loop
    that may run zero times is no count for a region around that loop."""
    lengths: dict[str, str] = {}
    skipped: dict[str, str] = {}
    for label in sorted(labels):
        if "@" in label or "#" in label:
            continue  # storage created inside the region or a callee's local
        allocation = allocation_of(model, function, label)
        if allocation is not None and allocation.span.start >= start and \
                allocation.span.start < end:
            skipped[label] = "allocated inside the region"
            continue
        if _freed_inside(model, function, label, start, end):
            skipped[label] = "freed inside the region"
            continue
        section = _section(model, function, label, allocation, start, counts)
        if section is None:
            skipped[label] = "its element count is not known (no allocation or map clause " \
                             "with a section in this function)"
            continue
        lengths[label] = section
    return lengths, skipped


def vector_labels(model: TranslationUnit, function, labels) -> tuple[str, ...]:
    """The labels among ``labels`` that name a ``std::vector`` of ``function`` (or a global
    one): clauses must name them through a pointer handle."""
    named = {a.name for a in model.allocations if a.kind == "vector"}
    return tuple(sorted(label for label in labels if label in named
                        and getattr(allocation_of(model, function, label), "kind", None)
                        == "vector"))


def allocation_of(model: TranslationUnit, function, label: str) -> HostAllocation | None:
    """The allocation ``label`` names in ``function``: its own, a global, or (in a member
    function) a data member of its class."""
    member = f"{function.member_of}::" if function.member_of else None
    found = [a for a in model.allocations if a.name == label and
             a.function in (function.name, None, member)]
    found.sort(key=lambda a: a.function != function.name)  # a local hides the others
    return found[0] if found else None


def class_members(model: TranslationUnit) -> dict[str, str]:
    """Data members with storage of their class (named bare, as member functions name them:
    ``std::vector``s, and pointers allocated in a method the constructors call,
    omp.method_members) -> their class."""
    return {a.name: a.function[:-2] for a in model.allocations
            if (a.function or "").endswith("::")}


def _freed_inside(model, function, label, start, end) -> bool:
    for call in function.calls:
        if call.name == "free" and start <= call.span.start < end and call.args and \
                norm_text(call.args[0].text) == norm_text(label):
            return True
    return False


def _section(model, function, label, allocation, start: int, counts=None) -> str | None:
    """``[0:count]`` from the allocation or the program's own map clauses; '' for arrays
    mapped whole by name (fixed-size and variable-length arrays). The clauses may name the
    array through a local that certainly holds its address (``double *x = net->x;`` then
    ``map(to: x[0:n])`` gives the count of ``net->x``)."""
    if allocation is not None and allocation.kind in ("static_array", "vla"):
        return ""
    if allocation is not None and allocation.count is not None and allocation.kind != "helper":
        return f"[0:{allocation.count.text}]"
    for name in (label, *sorted(exact_aliases(model, function, label, start))):
        found = clause_section(model, function.name, name, from_zero=True, counts=counts)
        if found:
            return f"[0:{found[1]}]"
    return None  # (a helper's count comes last: helper_section)


def helper_section(model: TranslationUnit, function, label: str) -> str | None:
    """``[0:count]`` of an array a helper allocated (``u = make_field(n, 0.0)``), in the
    call's arguments: used after the program's own map clauses, here and in the functions
    it calls, which spell the count as the user wrote it."""
    allocation = allocation_of(model, function, label)
    if allocation is None or allocation.kind != "helper" or allocation.count is None:
        return None
    return f"[0:{allocation.count.text}]"


def section_from_callees(model: TranslationUnit, uses, source: bytes) -> str | None:
    """The section of storage that only called functions map, in the caller's names:
    ``fx[0:numNode]`` in a function with ``double *fx = d->fx; const int numNode =
    d->numNode;`` and ``d`` bound to the caller's ``d`` gives ``[0:d->numNode]``."""
    found = set()
    for function, local, pointers, scalars in uses:
        section = clause_section(model, function, local, from_zero=True)
        if section is None:
            return None
        length = section[1]
        translated = _in_caller_names(length, model, function, dict(pointers), dict(scalars),
                                      source)
        if translated is None:
            return None
        found.add(translated)
    if len(found) != 1:
        return None
    return f"[0:{found.pop()}]"


def clause_section(model: TranslationUnit, function: str, name: str,
                   from_zero: bool = False, counts=None) -> tuple[str, str] | None:
    """(lower, length) of the first one-dimensional section of ``name`` in a map clause of
    ``function`` (with ``from_zero``: the first one starting at 0). A ``target update``
    moves part of an array already mapped: its section says nothing about the length.
    ``counts``: which directives (by index) may give it (None: all)."""
    for index, directive in enumerate(model.directives):
        if directive.function != function or directive.words[:2] == ("target", "update") or \
                counts is not None and not counts(index):
            continue
        for clause in directive.maps:
            for item in clause.items:
                if norm_text(item.base) != norm_text(name) or len(item.sections) != 1:
                    continue
                section = item.sections[0]
                lower = section.lower.text if section.lower else "0"
                if section.length is not None and (not from_zero or same_value(lower, "0")):
                    return lower, section.length.text
    return None


def _in_caller_names(text: str, model, function: str, pointers: dict, scalars: dict,
                     source: bytes, depth: int = 0) -> str | None:
    """Rewrite an expression of ``function`` with the caller's names: scalar parameters by
    their arguments, pointer parameters by their bindings, locals given a value once (an
    initializer or one plain assignment, nothing else writing them: the function's
    mentions, ``VarUse``) by that value."""
    if depth > 3:
        return None
    body = model.function(function)
    params = {p.name for p in body.params}
    uses = model.in_function("var_uses", function)

    def replace_name(match) -> str:
        name, arrow = match.group(1), match.group(2) or ""
        if name in scalars:
            return f"({scalars[name]}){arrow}"
        if name in pointers:
            return _bound_pointer(pointers[name], arrow)
        if name in params:
            raise LookupError(name)
        writes = [u for u in uses if u.name == name and u.role in VALUE_ROLES]
        if len(writes) != 1 or writes[0].role not in ("init", "assign") or \
                writes[0].value is None:
            raise LookupError(name)
        inner = _in_caller_names(writes[0].value.text.strip(), model, function, pointers,
                                 scalars, source, depth + 1)
        if inner is None:
            raise LookupError(name)
        return f"({inner}){arrow}"

    try:
        return re.sub(r"(?<![\w.>])([A-Za-z_]\w*)(\s*->)?", replace_name, text)
    except LookupError:
        return None


def _bound_pointer(binding: str, arrow: str) -> str:
    """A pointer parameter's argument in place of its name: ``g->n`` with ``g`` bound to
    ``&grid`` is ``grid.n`` (``&grid->n`` would take the address of a member of a struct that
    is no pointer); any other argument but a plain name or path is parenthesized."""
    plain = re.fullmatch(r"&\s*([A-Za-z_][\w.]*)", binding.strip())
    if arrow and plain:
        return plain.group(1) + "."
    if re.fullmatch(r"[A-Za-z_][\w.]*(->[A-Za-z_]\w*)*", binding.strip()):
        return binding + arrow
    return f"({binding}){arrow}"


def first_use(model: TranslationUnit, label: str) -> int:
    for ref in model.array_refs:
        if ref.array == label:
            return ref.span.start
    return 1 << 60


def live_after(model: TranslationUnit, function, start: int, end: int, tracked) -> set[str]:
    """Labels whose host copy may be read after the region: read by name afterwards, or
    through a pointer copied from it outside the region; storage that escapes to the
    caller (parameters, globals, members) is live unless this is ``main``, and so is the
    function's own allocation unless the function frees it (``return table;`` hands it to
    the caller)."""
    groups = alias_groups(model, function, start, end)
    live = set()
    escapes = function.name != "main"
    params = {p.name for p in function.params}
    freed = _freed_names(function)
    # an array of pointers whose elements are freed (``free(y[k])``) holds storage of the
    # function's own, and ``y[k]`` in that call reads no element (omp.pointer_arrays)
    element_frees = {name.split("[", 1)[0] for name in freed if "[" in name and
                     is_array_of_pointers(model, function.name, name.split("[", 1)[0])}
    freed |= element_frees
    freeing = {call.args[0].span.start for call in function.calls
               if call.name == "free" and len(call.args) == 1} if element_frees else set()
    passed = returned_from_calls(model, function, end)
    for label in tracked:
        group = groups.get(label, {label})
        if group & passed:
            live.add(label)
            continue
        allocation = allocation_of(model, function, label)
        if escapes and (root_name(label) in params or allocation is None
                        or allocation.function is None or not group & freed) and \
                not left_behind(model, function, label):
            live.add(label)
            continue
        for ref in model.array_refs:
            if ref.function == function.name and ref.span.start >= end and \
                    ref.directive is None and ref.array in group and not (
                        ref.array in element_frees and ref.span.start in freeing):
                live.add(label)
                break
    return live


def returned_from_calls(model: TranslationUnit, function, end: int) -> set[str]:
    """Names passed to a call whose returned pointer the function reads after ``end``
    (``final = compute(result, temp, ...)`` then ``final[i]``): the call may hand back any of
    them, so each may be what the host reads."""
    return {name for _copy, args, _read in _returned_pointers(model, function, end)
            for name in args}


def returned_reads(model: TranslationUnit, function, start: int, end: int, tracked,
                   live: set[str]) -> dict[str, set[str]]:
    """Pointers set inside the region from a call's return value that the host reads after
    it (``final = compute(result, temp, ...)``, then ``final[i]``) -> the mapped labels that
    are live only through it. Copying back ``final[0:n]`` at the exit then brings exactly the
    buffer the call handed back, where copying each candidate brings them all. Only when the
    pointer is set once in the region, the function reads none of the candidates after it by
    another name, and the function is ``main``: in any other, storage it does not free is
    live for its caller too (``return a;``), which a copy through the pointer does not
    serve."""
    if function.name != "main":
        return {}
    groups = alias_groups(model, function, start, end)
    copies = model.in_function("pointer_copies", function.name)
    out: dict[str, set[str]] = {}
    for copy, args, read_after in _returned_pointers(model, function, end):
        if not start <= copy.span.start < end or \
                any(c.target == copy.target and c is not copy and c.span.start < end
                    and c.span.end > copy.span.start for c in copies):
            continue
        labels = {label for label in tracked & live if groups.get(label, {label}) & args}
        others = read_after - {copy.target}
        if labels and not any(groups.get(label, {label}) & others for label in labels):
            out[copy.target] = labels
    return out


def _returned_pointers(model: TranslationUnit, function, end: int):
    """(pointer copy, names passed to the call it takes its value from, names the function
    reads after ``end``) for each pointer set from a call's return value that the function
    reads after ``end``."""
    if function.body is None:
        return []
    read_after = {ref.array for ref in model.array_refs
                  if ref.function == function.name and ref.span.start >= end and ref.directive is None}
    out = []
    for copy in model.in_function("pointer_copies", function.name):
        if copy.source is not None or copy.target not in read_after:
            continue
        args = {norm_text(arg.text) for call in function.calls
                if copy.span.start <= call.span.start < copy.span.end for arg in call.args}
        out.append((copy, args, read_after))
    return out


def _freed_names(function) -> set[str]:
    """Names the function passes to ``free`` (its storage cannot outlive the call)."""
    if function.body is None:
        return set()
    return {norm_text(call.args[0].text) for call in function.calls
            if call.name == "free" and len(call.args) == 1}


def alias_groups(model: TranslationUnit, function, start: int, end: int
                  ) -> dict[str, set[str]]:
    parent: dict[str, str] = {}

    def find(x):
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for copy in model.in_function("pointer_copies", function.name):   # (grouped once)
        inside = start <= copy.span.start < end
        if copy.source and not inside:
            parent[find(copy.target)] = find(copy.source)
    groups: dict[str, set[str]] = {}
    for name in set(parent) | set(parent.values()):
        groups.setdefault(find(name), set()).add(name)
    return {name: groups[find(name)] for name in set(parent) | set(parent.values())}


def exact_aliases(model: TranslationUnit, function, name: str, before: int) -> frozenset[str]:
    """Pointers that certainly hold the same address as ``name`` after offset ``before``:
    every pointer copy among them in the function is a plain ``r = name`` (no offset, no
    other source) made before that offset, and ``name`` itself is not reassigned once
    copied (its allocation comes first)."""
    group = {name}
    copies = [c for c in model.pointer_copies if c.function == function.name]
    grew = True
    while grew:
        grew = False
        for copy in copies:
            if copy.source in group and copy.target not in group:
                group.add(copy.target)
                grew = True
    members = [c for c in copies if c.target in group and c.target != name]
    first = min((c.span.start for c in members), default=before)
    for copy in copies:
        if copy.target == name:
            if copy.span.start >= first:  # reassigned after it was copied
                return frozenset()
        elif copy.target in group and (copy.offset or copy.source is None or
                                       copy.source not in group or copy.span.start >= before):
            return frozenset()
    if len(members) != len(group) - 1:
        return frozenset()  # a pointer of the group assigned twice
    return frozenset(group - {name})


def _may_reach(name: str, label: str) -> bool:
    """Whether an access through ``name`` may touch the storage of ``label``: the same name,
    or a struct (pointer) ``label`` is a member of (``f`` passed to a call for ``f->x``)."""
    return name == label or label.startswith((name + "->", name + "."))


def entry_sections(model: TranslationUnit, function, label: str, start: int, source: bytes,
                   limit: int = 4) -> list[str] | None:
    """The elements of a ``malloc``/``new[]`` array that hold data when the region starts,
    as ``[e:1]`` sections, when the host wrote only single elements of it since its
    allocation (``b[0] = a[0]; b[n - 1] = a[n - 1];`` on a fresh scratch buffer): the entry
    copy moves those instead of the whole array, whose other elements are indeterminate on
    both sides anyway. None when anything else happened to it (a loop over it, a read, a
    call, a pointer copy), or it is not such a buffer."""
    allocation = allocation_of(model, function, label)
    if allocation is None or allocation.kind not in ("malloc", "new[]") or \
            allocation.function != function.name or allocation.span.end > start:
        return None
    written = source[allocation.span.start:allocation.span.end].decode("utf-8", "replace")
    if allocation.kind == "new[]" and re.search(r"\]\s*(?:\(\s*\)|\{\s*\})", written):
        return None  # ``new T[n]()`` zero-initializes: its zeros are data
    after = allocation.span.end
    for copy in model.pointer_copies:
        if copy.function == function.name and after <= copy.span.start < start and \
                label in (copy.source, copy.target):
            return None
    loops = [s.span for s in function.body.walk() if s.kind in ("for", "while", "do", "range_for")]
    sections: list[str] = []
    for ref in model.array_refs:
        if ref.function != function.name or not after <= ref.span.start < start or \
                not _may_reach(ref.array, label):
            continue
        if ref.array != label or ref.call or ref.directive is not None or ref.reads or \
                len(ref.subscripts) != 1:
            return None
        if any(span.start <= ref.span.start < span.end for span in loops):
            return None
        index = ref.subscripts[0].text
        try:
            value = poly(index)
        except NotPoly:
            return None
        names = {v for key in value for atom in key for v in re.findall(r"[A-Za-z_]\w*", atom)}
        if assigns_any(model, function.name, names, [(ref.span.file, ref.span.end, start)]):
            return None
        section = f"[{render(value)}:1]"
        if not any(same_value(section[1:-3], known[1:-3]) for known in sections):
            sections.append(section)
    return sections if len(sections) <= limit else None
