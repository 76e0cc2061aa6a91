"""Symbolic execution of a kernel's IR: every global-memory access with its index and guard.

Why path-sensitive symbolic execution: kernels select indexes with ``?:`` and guards
(``(x > 0) ? c - 1 : c``, ``if (i < n)``, early ``return``), and each path gives an exact
piece of the access relation. A *state* is an environment (variable -> value) plus the
conjunction of affine constraints that hold on its path; ``if``, ``?:``, ``&&``, ``||``,
``min`` and C division fork states. Values are :class:`~s2s.analysis.affine.Poly` over thread
coordinates (``bx..bz``, ``tx..tz``), launch parameters (``gdx..gdz``, ``bdx..bdz``, integer
scalar parameters) and fresh existential variables:

* ``_tN`` loop counters. A loop is not iterated: an induction variable ``v += s`` (``s`` a
  launch parameter polynomial) is ``v0 + s*_tN`` with ``_tN >= 0``; the condition is required
  at ``_tN`` and at ``0``, which for a conjunction of affine constraints implies it at every
  iteration in between (convexity), so grid-stride loops and ``for (j = 0; j < n; j++)`` are
  exact. Other variables assigned in the body are unknown inside and after the loop.
* ``_qN`` quotients of division and modulo by a constant or launch parameter (C truncation:
  a sign fork unless the dividend is syntactically non-negative; ``>>`` and ``& (2^k-1)`` are
  floor operations and never fork).
* ``_dN`` data: values loaded from memory, float-to-int casts, unknown calls, and variables a
  loop changes in ways not modelled. Constraints over them are kept (exact projection), but
  an access whose index involves one is data-dependent.

Conditions that are not launch-affine are not recorded; states under them are ``may``.
``__device__`` functions are inlined (recursion is refused). Limits: unsigned wrap-around and
integer overflow are ignored; a block-scoped redeclaration shadowing an outer variable is not
undone at the end of the block; after a ``break``/``return`` inside a loop, the loop's accesses
are ``may`` (later iterations might not run).

The rules are mixed into :class:`Interpreter` from three modules along the IR's seams:
:mod:`~s2s.analysis.kernel.statements` (statements and loops),
:mod:`~s2s.analysis.kernel.expressions` (conditions, expressions, arithmetic) and
:mod:`~s2s.analysis.kernel.memory` (lvalues, loads, stores, access records); this module holds
the interpreter's state, its fresh variables and the entry point :func:`interpret`.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.analysis.affine import ZERO, Poly
from s2s.analysis.kernel.expressions import ExpressionRules
from s2s.analysis.kernel.memory import MemoryRules
from s2s.analysis.kernel.relevance import irrelevant_names
from s2s.analysis.kernel.statements import StatementRules
from s2s.analysis.kernel.values import (
    UNKNOWN,
    AccessRecord,
    Ptr,
    State,
    TooComplex,
)
from s2s.model import kernel_ir as ir

GRID_PARAMS = ("gdx", "gdy", "gdz", "bdx", "bdy", "bdz")
THREAD_DIMS = ("bx", "by", "bz", "tx", "ty", "tz")
NONNEG_ATOMS = frozenset(GRID_PARAMS + THREAD_DIMS)
MIN_MAX = frozenset({"min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax"})
MAX_STATES = 512


@dataclass
class Outcome:
    """What the interpretation found: accesses, fresh data variables and blocking issues."""

    records: list[AccessRecord]
    data_vars: set[str]
    issues: list[str]
    params: tuple[str, ...]


def interpret(kernel: ir.KernelBody, functions: dict[str, ir.KernelBody]) -> Outcome:
    """Run ``kernel`` symbolically; ``functions`` are the inlinable ``__device__`` bodies."""
    interp = Interpreter(kernel, functions)
    try:
        interp.run()
    except TooComplex:
        interp.issues.append(f"more than {MAX_STATES} paths through the kernel (not analysed)")
        interp.records = [AccessRecord(p.name, mode, None, (), True, None, None, "too complex")
                          for p in kernel.pointer_params
                          for mode in (("read",) if p.const else ("read", "write"))]
    return Outcome(interp.records, interp.data_vars, interp.issues, interp.params)


class Interpreter(StatementRules, ExpressionRules, MemoryRules):
    def __init__(self, kernel: ir.KernelBody, functions: dict[str, ir.KernelBody]):
        self.kernel = kernel
        self.functions = functions
        scalars = tuple(p.name for p in kernel.params if p.kind == "int")
        self.params = GRID_PARAMS + scalars
        self.param_set = frozenset(self.params)
        self.records: list[AccessRecord] = []
        self.issues: list[str] = []
        self.data_vars: set[str] = set()
        self.nonneg: set[str] = set(NONNEG_ATOMS)
        self.arrays = {p.name for p in kernel.pointer_params}
        self.const_arrays = {p.name for p in kernel.pointer_params if p.const}
        self.stack: list[str] = [kernel.name]
        self.irrelevant = irrelevant_names((kernel, *functions.values()))
        self._counter = 0

    # --- helpers ------------------------------------------------------------------------

    def fresh(self, kind: str) -> Poly:
        self._counter += 1
        name = f"_{kind}{self._counter}"
        if kind == "d":
            self.data_vars.add(name)
        if kind == "t":
            self.nonneg.add(name)
        return Poly.atom(name)

    def as_poly(self, value) -> Poly | None:
        if isinstance(value, Poly):
            return value
        if isinstance(value, Ptr):
            return None
        return self.fresh("d")

    def affine(self, poly: Poly) -> bool:
        return poly.launch_affine(self.param_set)

    def nonnegative(self, poly: Poly) -> bool:
        return all(c > 0 and all(a in self.nonneg for a in m) for m, c in poly.terms)

    def run(self) -> None:
        env = {}
        for param in self.kernel.params:
            env[param.name] = self.initial(param)
        flow = self.stmt(self.kernel.body, [State(env)])
        del flow

    def initial(self, param: ir.IrParam):
        if param.kind == "int":
            return Poly.atom(param.name)
        if param.kind == "pointer":
            return Ptr(param.name, ZERO)
        return UNKNOWN

    def joined(self, name: str, before: State, results: list) -> list:
        """The values of an assignment to ``name``, its forks joined back into ``before`` when
        ``name`` steers no global access (:mod:`~s2s.analysis.kernel.relevance`) and no fork
        changed another variable: the forks partition ``before``, the records made under
        them are kept, and only the variable's value is lost."""
        if len(results) < 2 or name not in self.irrelevant:
            return results
        if any(isinstance(v, Ptr) or s.env != before.env or s.may != before.may
               for s, v in results):
            return results
        value = self.fresh("d") if any(isinstance(v, Poly) for _, v in results) else UNKNOWN
        return [(before, value)]

    def check(self, states: list) -> list:
        if len(states) > MAX_STATES:
            raise TooComplex
        return states
