"""Array accesses and pointer copies in host code and OpenMP target regions.

These are what data-mapping analysis works from: which array storage each statement reads or
writes, on which side (host, or the device inside a target region), through which name, at
which subscript; and the pointer copies (``r = result``, a swap through ``tmp``) that make two
names refer to the same storage.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.model.span import Expr, SourceSpan


class AccessMode:
    """``reads`` / ``writes`` of an access whose ``mode`` is ``read``, ``write`` or
    ``readwrite`` (array references here, the OpenMP dataflow's events in omp.ir)."""

    __slots__ = ()
    mode: str

    @property
    def reads(self) -> bool:
        return self.mode in ("read", "readwrite")

    @property
    def writes(self) -> bool:
        return self.mode in ("write", "readwrite")


@dataclass(frozen=True, slots=True)
class ArrayRef(AccessMode):
    """One access to the storage behind a pointer or array variable (or struct member).

    ``array`` is the accessed storage as written without subscripts: ``u``, ``p.x``,
    ``ps->vx``, ``grid`` (for ``grid[i][j]``); ``root`` its first variable (``u``, ``p``,
    ``ps``). ``mode`` is ``read``, ``write`` or ``readwrite`` (``a[i] += v``, ``a[i]++``).
    ``subscripts`` are the index expressions as written, outermost first (``()`` for ``*p``,
    for ``p->x`` reads of a whole member pointer passed on, or when the pointer itself is
    passed to a call). ``call`` names the function the pointer (or ``a + k``) is passed to,
    with ``arg_index`` its position; ``mode`` is then ``readwrite`` unless the parameter is a
    pointer to const (``read``). ``directive`` indexes, in ``TranslationUnit.directives``, the
    innermost target region containing the access (None: host code). ``conditional`` is True
    when the access is under an ``if``, ``?:``, ``&&``/``||`` or ``switch`` inside its
    statement or target region (it may not happen on every execution). ``function`` is the
    enclosing function.
    """

    array: str
    root: str
    mode: str
    subscripts: tuple[Expr, ...]
    span: SourceSpan
    function: str | None
    directive: int | None = None
    call: str | None = None
    arg_index: int | None = None
    conditional: bool = False
    #: the storage is reached through a pointer (``p[i]``, ``d->x[i]``), not a declared array:
    #: a target region needs a mapping for it (an array is mapped whole implicitly)
    pointer: bool = False
    #: the pointer is declared inside the target region (its value comes from device code)
    region_local: bool = False
    #: inside a template, the storage's type depends on a template parameter (``P a`` with
    #: ``a[i]``): a pointer in some instantiations, so a target region may need a mapping
    dependent: bool = False
    #: the storage is reached through a pointer to an array type (``double (*in)[n]``,
    #: ``row_t *phi``): its first subscript counts rows, so a section ``in[lo:len]`` of the
    #: first subscript's range holds every element the access may touch
    rows: bool = False


@dataclass(frozen=True, slots=True)
class PointerCopy:
    """``target = source`` between pointer-typed names (also ``double *r = result;``).

    ``source`` is the copied name without offset (``a`` for ``a + 1``, with ``offset`` True);
    None when the right-hand side is not a plain name (a call, ``malloc``, a conditional):
    the target then points to unknown storage unless an allocation says otherwise.
    """

    target: str
    source: str | None
    span: SourceSpan
    function: str | None
    offset: bool = False
    #: ``c ? p : q`` (source None): the names it may copy, each without offset
    choices: tuple[str, ...] = ()
    #: a copy made by a call of a function the file only declares (``grid_load(&g, f)``
    #: may give ``g.val`` new storage): that function; the program drops the copy where one
    #: of its files defines it (:func:`s2s.model.program.merge`)
    through: str | None = None
