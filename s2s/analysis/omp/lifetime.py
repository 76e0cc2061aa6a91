"""Mapping a class's ``std::vector`` members over each object's lifetime.

C++ codes keep their fields as private vectors of a class (LULESH's ``Domain``): only member
functions can name them, and the device work is spread over many of them, called every
cycle from a loop in ``main``. A data region inside the outermost member function with
device work (omp.region) copies the fields in and out on every call; a hand-written port
instead maps them once per object (LULESH's ``AllocateDevice``/``ReleaseDevice``).

This module plans the latter where it is provably right. The fields that member functions
use on the device are entered at the end of every constructor (``map(to:)``) and released at
the start of the destructor (one is added when the class has none), so every kernel finds
them present. Between calls of member functions the *device* copy is the valid one. That
invariant holds when

* only the class's member functions reach the storage: the fields are not public, the class
  has no friends and no derived classes, and no object is copied or moved (a copy's vectors
  are new storage nobody maps), or defined with static storage (constructed before the
  offload runtime is up, destroyed after it);
* no kernel names a pointer field itself (``u[i]`` in a member function is ``this->u[i]``,
  which the handles' mapping leaves the host address on the device): only through a local;
* no member function but a constructor writes a field on the host or gives it new storage
  (``resize``, ``push_back``); the destructor does not touch them;
* a member function that reads fields on the host (an accessor, a checksum) runs no device
  work: it gets ``target update from`` of what it reads at its start. When it returns a
  reference or pointer to a field, every caller uses the result before any later call that
  can run the class's device work (a reference held across a time step would see a stale
  host copy).
  A member function that hands a field out through a pointer-to-const reference parameter
  (BabelStream's ``get_arrays(T const *&a, ...)``) is such a reader of what it hands out,
  with the same condition on its callers;
* a constructor that runs device work (BabelStream's calls ``init_arrays``) enters the
  fields before the first top-level statement that does (after every allocation): from
  there on it may only call member functions whose device work the mapping covers, and
  touch no field on the host.

Otherwise the class is left to the per-call regions, and ``--explain`` says why.
Facts about the class come from the front end (``ClassFact``); what each member function
does with the fields from a survey of its IR with the dataflow interpreter (through its
calls and local handles such as ``double *e = m_e.data()``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from s2s.analysis.omp.flow import Interpreter
from s2s.analysis.omp.ir import Copy, FunctionIR
from s2s.analysis.omp.member_pointers import (
    PointerField,
    PointerRefused,
    check_pointers,
    constructor_of,
    member_name,
    pointer_members,
)
from s2s.analysis.omp.region import DATA_WORDS, callees_of
from s2s.analysis.omp.solver import entry_state
from s2s.analysis.omp.state import Frame, Unsupported
from s2s.model import SourceSpan, Stmt, TranslationUnit


@dataclass(frozen=True)
class ObjectMapping:
    """The fields of ``cls`` kept mapped from the end of each constructor (``enters``: their
    bodies) to the start of the destructor (``release``: its body, or None when one is added
    before the class's closing brace at ``class_span``)."""

    cls: str
    fields: tuple[str, ...]
    enters: tuple[Stmt, ...]
    release: Stmt | None
    class_span: SourceSpan
    indent: str
    #: (body of a member function that reads fields on the host, the fields it reads)
    readers: tuple[tuple[str, Stmt, tuple[str, ...]], ...]
    #: member functions whose device work finds every field present (no region of their own)
    covered: frozenset[str]
    #: (function, pointer name) of device accesses to the fields (for the construct report)
    device_names: tuple[tuple[str, str], ...]
    #: the constructors already enter the fields (a second run, or a hand-written port):
    #: nothing to edit, but no member function gets a region of its own either
    hand_written: bool = False
    #: raw pointer members among ``fields`` (omp.member_pointers)
    pointers: tuple[PointerField, ...] = ()
    #: per entry of ``enters``: the statement before which the constructor enters the
    #: fields (it runs device work from there on), or None for the end of its body
    enter_at: tuple[Stmt | None, ...] = ()

    def length(self, name: str) -> str:
        """The element count of field ``name`` in any member function."""
        found = [p.count for p in self.pointers if p.name == name]
        return found[0] if found else f"{name}.size()"

    def entry(self, name: str) -> str:
        """``to``, or ``alloc`` for storage the constructors leave undefined."""
        found = [p.entry for p in self.pointers if p.name == name]
        return found[0] if found else "to"


@dataclass
class _Census(Interpreter):
    """The survey interpreter, also noting host accesses (label -> modes)."""

    host: dict = field(default_factory=dict)

    def _access(self, access, state, frame, node):
        if access.side == "H":
            for label in state.get_pts(frame.resolve(access.name)):
                self.host.setdefault(label, set()).add(access.mode)
        return super()._access(access, state, frame, node)


@dataclass(frozen=True)
class _Use:
    """What one member function does with the class's fields (transitively)."""

    device: frozenset
    reads: frozenset
    writes: frozenset
    renews: frozenset  # fields given new storage
    device_names: frozenset


def object_mappings(model: TranslationUnit, irs: dict[str, FunctionIR],
                    locals_of: dict[str, frozenset]
                    ) -> tuple[list[ObjectMapping], list[tuple[str, SourceSpan]]]:
    """The classes whose fields are mapped per object, and (reason, class span) for each
    class with device work on its fields that is not."""
    plans, refused = [], []
    # (a class of a project header is defined in every unit that includes it: once here)
    for fact in dict.fromkeys(model.classes):
        if fact.kind != "definition":
            continue
        fields = frozenset(a.name for a in model.allocations
                           if a.function == f"{fact.class_name}::" and a.kind == "vector") | \
            pointer_members(model, fact.class_name)
        if not fields:
            continue
        try:
            plan = _plan_class(model, irs, locals_of, fact, fields)
        except _Refused as why:
            what = "vectors" if fields & _vectors(model, fact.class_name) else \
                "pointer members"
            refused.append((f"the {what} of '{fact.class_name}' are mapped per call, not "
                            f"over each object's lifetime: {why}", fact.span))
            continue
        if plan is not None:
            plans.append(plan)
    return plans, refused


class _Refused(Exception):
    pass


def _plan_class(model, irs, locals_of, fact, fields) -> ObjectMapping | None:
    cls = fact.class_name
    methods = [f for f in model.functions if f.member_of == cls and f.body is not None]
    # (in a class template the constructor is spelled ``Field<T>``)
    constructors = [m for m in methods if m.name.split("<")[0] == cls]
    others = [m for m in methods if m.name.split("<")[0] != cls]
    uses = {m.name: _census(model, irs, locals_of, irs[m.name], fields) for m in others
            if m.name in irs}
    mapped = frozenset().union(*(u.device for u in uses.values())) if uses else frozenset()
    if not mapped:
        return None
    _check_class(model, fact, mapped)
    _check_names(model, others)
    destructor = next((m for m in others if m.name.split("<")[0] == f"~{cls}"), None)
    if not constructors:
        raise _Refused("it has no constructor of its own")
    holders = {d.function: d.words[:2] for d in model.directives if d.words[:2] in DATA_WORDS}
    if any(m.name in holders for m in methods):
        # (a class template's constructor is named ``Field<T>``)
        if not any(holders.get(m.name) == ("target", "enter") for m in constructors):
            raise _Refused("its member functions have data directives of their own")
        return ObjectMapping(cls, tuple(sorted(mapped)), (), None, fact.span, fact.indent, (),
                             frozenset(m.name for m in others if irs[m.name].has_device),
                             tuple(sorted(set().union(*(u.device_names for u in uses.values())))),
                             hand_written=True)
    # a delegating constructor runs another one first, whose end enters the fields
    delegating = {f.span.start for f in model.classes
                  if f.class_name == cls and f.kind == "delegating"}
    entering = [m for m in constructors if m.span.start not in delegating]
    if any(m.body.children for m in constructors if m.span.start in delegating):
        raise _Refused("a delegating constructor's body runs after the fields were entered")
    try:
        pointers = check_pointers(model, cls, mapped - _vectors(model, cls), constructors,
                                  entering, destructor)
    except PointerRefused as why:
        raise _Refused(str(why)) from None
    handouts = _handouts(model, cls, others, mapped)
    for name, handed in handouts.items():
        if name in uses:
            uses[name] = replace(uses[name], reads=uses[name].reads | handed)
    _check_member_kernels(uses, pointers, locals_of)
    covered, readers = _sort_methods(irs, others, destructor, uses, mapped)
    enter_at = {m.span.start: _enter_point(model, irs, m, covered, mapped)
                for m in constructors}
    _check_escapes(model, irs, readers, covered, frozenset(handouts))
    bodies = [m.body for m in constructors + readers + ([destructor] if destructor else [])]
    if any(body.kind != "block" for body in bodies):
        raise _Refused("a member function's body is a function-try-block")
    # A class template's one definition is edited for every instantiation: the conditions
    # were checked on it (the pattern), and no specialisation has a body of its own
    # (_check_class). A class nested in another's template is not.
    template = cls if any(body.span.template == cls for body in bodies) else None
    if any(span.macro is not None or span.template not in (None, template)
           for span in [fact.span] + [body.span for body in bodies]):
        raise _Refused("the class is in a macro expansion or another class's template")
    order = tuple(dict.fromkeys(member_name(a.name) for a in model.allocations
                                if (a.function == f"{cls}::" or constructor_of(a.function, cls))
                                and member_name(a.name) in mapped))
    names = set().union(*(uses[m].device_names for m in covered | {r.name for r in readers}))
    return ObjectMapping(
        cls, order, tuple(m.body for m in entering),
        destructor.body if destructor is not None else None, fact.span, fact.indent,
        tuple((m.name, m.body, tuple(sorted(uses[m.name].reads & mapped))) for m in readers),
        frozenset(covered), tuple(sorted(names)), pointers=tuple(pointers.values()),
        enter_at=tuple(enter_at[m.span.start] for m in entering))


def _check_member_kernels(uses, pointers, locals_of) -> None:
    """Refused where a kernel names a pointer member itself (``u[i]`` in a member function is
    ``this->u[i]``): the storage is entered through a local handle, which attaches nothing to
    a device copy of ``*this``, so the kernel would follow the host address (a stale host
    copy, or a fault on a real device); only kernels reaching it through a local pointer
    find the mapped storage (also a local spelled as the member, ``T *a = this->a;``)."""
    for method, use in sorted(uses.items()):
        for function, name in sorted(use.device_names):
            member = name.removeprefix("this->")
            local = name == member and name in locals_of.get(function, ())
            if member in pointers and not local:
                raise _Refused(f"a kernel of '{method}' names the pointer member '{member}' "
                               "itself (through this), which no mapping of the storage alone "
                               "reaches on the device")


def _vectors(model: TranslationUnit, cls: str) -> frozenset[str]:
    return frozenset(a.name for a in model.allocations
                     if a.function == f"{cls}::" and a.kind == "vector")


def _check_names(model: TranslationUnit, methods) -> None:
    """The analysis keys functions by name: a member function whose name another function
    of the program shares (an overload, another class's method) is not the one surveyed."""
    counts: dict[str, int] = {}
    for function in model.functions:
        counts[function.name] = counts.get(function.name, 0) + 1
    for method in methods:
        if counts[method.name] > 1:
            raise _Refused(f"another function of the program is also named '{method.name}'")


def _enter_point(model: TranslationUnit, irs, constructor, covered, fields) -> Stmt | None:
    """Where a constructor enters the fields: at its end (None), which it must reach (no
    ``return``), or, when it runs device work, before the first top-level statement that
    does (read from its own body: constructors may be overloaded). Every allocation comes
    before that statement, and from there on the body only calls member functions whose
    device work the mapping covers and touches no field on the host."""
    body, where = constructor.body, constructor.span.location()
    if any(stmt.kind == "return" for stmt in body.walk()):
        raise _Refused(f"the constructor at {where} returns early")
    if any(d.is_target_region and body.span.start <= d.span.start < body.span.end
           for d in model.directives):
        raise _Refused(f"the constructor at {where} runs device work of its own")
    device = [call for call in constructor.calls
              if call.name in irs and ({call.name} | callees_of(irs, call.name)) & {
                  n for n in irs if irs[n].has_device}]
    if not device:
        return None
    first = min(call.span.start for call in device)
    at = next((stmt for stmt in body.children
               if stmt.span.start <= first < stmt.span.end), None)
    if at is None or at.kind not in ("expr", "decl"):
        raise _Refused(f"the constructor at {where} runs device work under a loop or a branch")
    start = at.span.start
    if any(constructor_of(a.function, constructor.member_of) and
           member_name(a.name) in fields and start <= a.span.start < body.span.end
           for a in model.allocations):
        raise _Refused(f"the constructor at {where} allocates a field after its device work "
                       "starts")
    for call in constructor.calls:
        if start <= call.span.start < body.span.end and call.name not in covered:
            raise _Refused(f"the constructor at {where} calls '{call.name}' after its device "
                           "work starts")
    copies = {c.target for c in model.pointer_copies if constructor.span.contains(c.span)
              and member_name(c.source or "") in fields}
    if any(start <= r.span.start < body.span.end and
           (member_name(r.root) in fields or r.root in copies)
           for r in model.array_refs):
        raise _Refused(f"the constructor at {where} touches a field on the host after its "
                       "device work starts")
    return at


def _passes_on(function) -> bool:
    """``function`` may hand what it holds to its own caller: the later-device-work check
    of its calls then says nothing about the uses."""
    return any(c in function.return_type for c in "&*") or any(
        "&" in param.type and "*" in param.type for param in function.params)


def _handouts(model: TranslationUnit, cls: str, methods, mapped) -> dict[str, frozenset]:
    """Member function -> the fields it hands out through pointer-to-const reference
    parameters (omp.member_pointers' ``handout`` facts)."""
    out: dict[str, frozenset] = {}
    for fact in model.classes:
        if fact.class_name != cls or fact.kind != "handout" or fact.names[0] not in mapped:
            continue
        for method in methods:
            if method.span.contains(fact.span):
                out[method.name] = out.get(method.name, frozenset()) | {fact.names[0]}
    return out


def _sort_methods(irs, methods, destructor, uses, mapped) -> tuple[set[str], list]:
    """(member functions whose device work needs no region, host readers), or refused."""
    covered, readers = set(), []
    for method in methods:
        use = uses.get(method.name)
        if use is None:
            continue
        if method is destructor:
            if (use.reads | use.writes | use.device | use.renews) & mapped:
                raise _Refused("its destructor uses them")
            continue
        if use.renews & mapped:
            raise _Refused(f"'{method.name}' gives '{sorted(use.renews & mapped)[0]}' new "
                           "storage")
        if use.writes & mapped:
            raise _Refused(f"'{method.name}' writes '{sorted(use.writes & mapped)[0]}' on the "
                           "host")
        if use.reads & mapped and irs[method.name].has_device:
            raise _Refused(f"'{method.name}' both runs device work and reads "
                           f"'{sorted(use.reads & mapped)[0]}' on the host")
        if use.reads & mapped:
            readers.append(method)
        elif irs[method.name].has_device:
            covered.add(method.name)
    return covered, readers


def _check_class(model: TranslationUnit, fact, mapped: frozenset) -> None:
    """The class-level conditions of the module doc."""
    public = sorted(set(fact.names) & mapped)
    if public:
        raise _Refused(f"'{public[0]}' is public (code outside the class can reach it)")
    what = {"copy": "an object of it is copied or moved", "derived": "a class derives from it",
            "friend": "it has a friend", "static": "an object of it has static storage",
            "specialized": "the template is specialised", "definition": "it is specialised "
            "(or another class of its name is defined)"}
    for other in model.classes:
        if other.class_name == fact.class_name and other.kind in what and other != fact:
            raise _Refused(f"{what[other.kind]} at {other.span.location()}")


def _census(model, irs, locals_of, ir: FunctionIR, fields: frozenset) -> _Use:
    """Survey one member function from its first statement to its last."""
    census = _Census(irs, None, {}, locals_of)
    function = ir.function
    try:
        census.run_range([ir.root], entry_state(model, function, function.span.start, set()),
                         Frame(function.name, locals=frozenset()))
    except Unsupported as why:
        raise _Refused(f"'{function.name}' cannot be followed ({why})") from None
    device = frozenset(census.device_labels) & fields
    reads = frozenset(label for label, modes in census.host.items()
                      if label in fields and any(m != "write" for m in modes))
    writes = frozenset(label for label, modes in census.host.items()
                       if label in fields and any("write" in m for m in modes))
    renews = frozenset(e.target for name in {function.name} | callees_of(irs, function.name)
                       for n in irs[name].root.walk() for e in n.events
                       if isinstance(e, Copy) and e.source is None and e.target in fields)
    names = frozenset((use[0], use[1]) for label in device for use in census.device_uses[label])
    return _Use(device, reads, writes, renews, names)


def _check_escapes(model: TranslationUnit, irs: dict[str, FunctionIR], readers, covered,
                   handouts: frozenset = frozenset()):
    """A reader returning a reference or pointer into a field, or handing one out through a
    parameter: its callers must be done with the result before anything can run the class's
    device work again."""
    escaping = {m.name for m in readers
                if any(c in m.return_type for c in "&*") or m.name in handouts}
    if not escaping:
        return
    runs_device = {name for name in irs if ({name} | callees_of(irs, name)) & covered}
    for function in model.functions:
        for call in function.calls:
            if call.name not in escaping:
                continue
            if call.name in handouts and _passes_on(function):
                raise _Refused(f"the pointers '{call.name}' hands out at "
                               f"{call.span.location()} may leave '{function.name}' (it "
                               "returns a pointer or reference, or takes a reference to a "
                               "pointer)")
            at = call.span.start
            later = [c for c in function.calls
                     if c.name in runs_device and c.span.start > at]
            looped = function.name in irs and any(
                n.kind == "loop" and n.stmt.span.start <= at < n.stmt.span.end and
                any(c.name in runs_device and n.stmt.span.start <= c.span.start < n.stmt.span.end
                    for c in function.calls)
                for n in irs[function.name].root.walk())
            if later or looped:
                raise _Refused(f"the result of '{call.name}' at {call.span.location()} may be "
                               "used after later device work")
