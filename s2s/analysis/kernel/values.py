"""Values, states and records of the kernel access interpreter (shared by its modules)."""

from __future__ import annotations

from dataclasses import dataclass, field

from s2s.analysis.affine import Poly
from s2s.model.span import SourceSpan

LOCAL = "<local>"


class TooComplex(Exception):
    """Raised when the number of paths exceeds MAX_STATES (the kernel is then unanalysable)."""


class _Unknown:
    """A value that is not an integer the analysis follows (floats, structs, vectors)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass(frozen=True)
class Ptr:
    """A pointer: ``base`` is a pointer parameter's name, LOCAL (shared/local storage) or None
    (unknown target); ``offset`` in elements of the parameter, None when not followed."""

    base: str | None
    offset: Poly | None


@dataclass(frozen=True)
class Constraint:
    """``poly == 0`` (``eq``) or ``poly >= 0``."""

    poly: Poly
    eq: bool = False

    def to_text(self) -> str:
        return f"{self.poly.to_text()} {'=' if self.eq else '>='} 0"


@dataclass(frozen=True)
class AccessRecord:
    """One executed access of a pointer parameter on one path.

    ``index`` is None when the offset is not launch-affine (``why`` says why). ``may`` is True
    when a condition on the path was not modelled. ``atomic`` names the atomic function.
    """

    array: str
    mode: str
    index: Poly | None
    constraints: tuple[Constraint, ...]
    may: bool
    span: SourceSpan | None = None
    atomic: str | None = None
    why: str | None = None


class State:
    """One path: environment, path constraints and whether an unmodelled condition was taken."""

    __slots__ = ("env", "cons", "may")

    def __init__(self, env: dict, cons: tuple = (), may: bool = False):
        self.env, self.cons, self.may = env, cons, may

    def fork(self) -> State:
        return State(dict(self.env), self.cons, self.may)

    def constrain(self, *constraints: Constraint) -> State:
        state = self.fork()
        state.cons = self.cons + constraints
        return state


@dataclass
class Flow:
    """How states leave a statement: falling through, returning, breaking, continuing."""

    normal: list = field(default_factory=list)
    returned: list = field(default_factory=list)  # (State, value)
    broke: list = field(default_factory=list)
    continued: list = field(default_factory=list)

    def absorb(self, other: Flow) -> None:
        self.returned += other.returned
        self.broke += other.broke
        self.continued += other.continued
