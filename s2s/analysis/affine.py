"""Integer polynomials over named atoms: the symbolic values of kernel access analysis.

Index arithmetic in CUDA kernels multiplies thread coordinates by launch parameters
(``blockIdx.x * blockDim.x``, ``y * width``). Such a product is not affine, so isl cannot hold
it with the parameter symbolic; it *is* affine once the launch values are known. Values are
therefore kept as exact polynomials here; :meth:`Poly.launch_affine` says whether a polynomial
becomes affine after the launch parameters are instantiated (every monomial has at most one
non-parameter atom, of degree one), and :meth:`Poly.to_text` prints it in the isl-like notation
that ``runtime.access`` instantiates before handing it to isl.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

Monomial = tuple[str, ...]  # sorted atom names, repeated for powers; () is the constant


@dataclass(frozen=True)
class Poly:
    """A polynomial ``sum(coeff * prod(atoms))`` with integer coefficients (normalized)."""

    terms: tuple[tuple[Monomial, int], ...] = ()

    @staticmethod
    def of(mapping: Mapping[Monomial, int]) -> Poly:
        return Poly(tuple(sorted((m, c) for m, c in mapping.items() if c != 0)))

    @staticmethod
    def const(value: int) -> Poly:
        return Poly.of({(): value})

    @staticmethod
    def atom(name: str) -> Poly:
        return Poly((((name,), 1),))

    def as_dict(self) -> dict[Monomial, int]:
        return dict(self.terms)

    def __add__(self, other: Poly) -> Poly:
        out = self.as_dict()
        for mono, coeff in other.terms:
            out[mono] = out.get(mono, 0) + coeff
        return Poly.of(out)

    def __neg__(self) -> Poly:
        return Poly(tuple((m, -c) for m, c in self.terms))

    def __sub__(self, other: Poly) -> Poly:
        return self + (-other)

    def __mul__(self, other: Poly) -> Poly:
        out: dict[Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                mono = tuple(sorted(m1 + m2))
                out[mono] = out.get(mono, 0) + c1 * c2
        return Poly.of(out)

    def scale(self, factor: int) -> Poly:
        return Poly.of({m: c * factor for m, c in self.terms})

    @property
    def is_const(self) -> bool:
        return all(not m for m, _ in self.terms)

    @property
    def const_value(self) -> int:
        return dict(self.terms).get((), 0)

    def atoms(self) -> set[str]:
        return {a for m, _ in self.terms for a in m}

    def variables(self, params: Iterable[str]) -> set[str]:
        params = set(params)
        return {a for a in self.atoms() if a not in params}

    def launch_affine(self, params: Iterable[str]) -> bool:
        """Affine once every atom in ``params`` has a value: <= 1 non-parameter factor per term."""
        params = set(params)
        return all(sum(a not in params for a in m) <= 1 for m, _ in self.terms)

    def is_param_only(self, params: Iterable[str]) -> bool:
        params = set(params)
        return all(a in params for m, _ in self.terms for a in m)

    def substitute(self, name: str, value: Poly) -> Poly:
        out = Poly()
        for mono, coeff in self.terms:
            term = Poly.const(coeff)
            for atom in mono:
                term = term * (value if atom == name else Poly.atom(atom))
            out = out + term
        return out

    def evaluate(self, values: Mapping[str, int]) -> int:
        total = 0
        for mono, coeff in self.terms:
            term = coeff
            for atom in mono:
                term *= values[atom]
            total += term
        return total

    def to_text(self, atom=str, times: str = "*") -> str:
        """``3*bdx*bx - tx + 2`` (every product spelled out, constants first); ``atom`` gives
        each atom's text, ``times`` joins the factors of a product."""
        if not self.terms:
            return "0"
        parts = []
        for mono, coeff in self.terms:
            factors = [atom(a) for a in mono]
            magnitude = abs(coeff)
            if magnitude != 1 or not factors:
                factors.insert(0, str(magnitude))
            text = times.join(factors)
            if not parts:
                parts.append(text if coeff > 0 else "-" + text)
            else:
                parts.append(("+ " if coeff > 0 else "- ") + text)
        return " ".join(parts)

    def __str__(self) -> str:
        return self.to_text()


ZERO = Poly()
ONE = Poly.const(1)
