"""Loops that leave by ``break`` only in their last iteration (the ghost-zone pyramid of
Rodinia's pathfinder and hotspot):

    bool computed;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && isValid) { computed = true; ... }
        __syncthreads();
        if (i == iteration - 1) break;
        ...
    }
    if (computed) out[xidx] = result[tx];

Why this needs a rule of its own: a loop that can leave early makes the interpreter forget
every variable the body assigns (the exit could be any iteration's), so ``computed`` is
unknown after the loop and the guarded write is over-approximated to every thread, which
overlaps the blocks' halos: the kernel then runs whole on one device. When every path that
breaks pins the symbolic counter to the last iteration (an equality ``_t = trips - 1`` on
the path), no iteration breaks early. The loop then runs all its iterations, its accesses are
as exact as those of a loop without ``break``, and it leaves either without running (``trips
<= 0``) or at the end of its last iteration, through the ``break`` or past the step; those
states are the symbolic iteration's with ``_t`` replaced by ``trips - 1``.
"""

from __future__ import annotations

from s2s.analysis.affine import ONE, Poly
from s2s.analysis.kernel.loops import walk
from s2s.analysis.kernel.values import Constraint, Ptr, State
from s2s.model import kernel_ir as ir


def has_return(body) -> bool:
    """Whether ``body`` can return (an early return ends every later iteration too)."""
    return any(isinstance(item, ir.Return) for item in walk(body))


def pins_last(state: State, counter: Poly, last: Poly) -> bool:
    """Whether ``state``'s path holds ``counter = last`` as one of its equalities."""
    target = counter - last
    return any(c.eq and (c.poly == target or -c.poly == target) for c in state.cons)


def at_last(state: State, name: str, last: Poly) -> State | None:
    """``state`` with the counter ``name`` replaced by ``last`` in its environment and its
    constraints; None when a constraint becomes a false constant (the path cannot be the
    last iteration's, e.g. the one that did not take ``if (i == n - 1) break;``)."""
    cons = []
    for c in state.cons:
        poly = c.poly.substitute(name, last) if name in c.poly.atoms() else c.poly
        if poly.is_const:
            value = poly.const_value
            if (c.eq and value != 0) or (not c.eq and value < 0):
                return None
            continue
        cons.append(Constraint(poly, c.eq))
    env = {key: _substituted(value, name, last) for key, value in state.env.items()}
    return State(env, tuple(cons), state.may)


def _substituted(value, name: str, last: Poly):
    if isinstance(value, Poly) and name in value.atoms():
        return value.substitute(name, last)
    if isinstance(value, Ptr) and value.offset is not None and name in value.offset.atoms():
        return Ptr(value.base, value.offset.substitute(name, last))
    return value


def last_iteration_exits(before: State, trips: Poly, counter: Poly, ends: list[State],
                         broke: list[State]) -> list[State] | None:
    """The states after a counted loop whose breaks all pin its last iteration, or None when
    a break does not (the caller then forgets what the body assigns). ``ends``: the states
    past the step of the symbolic iteration; ``broke``: its states at a ``break``."""
    last = trips - ONE
    if not all(pins_last(s, counter, last) for s in broke):
        return None
    name = next(iter(counter.atoms()))
    exits = []
    if not (trips.is_const and trips.const_value >= 1):
        skipped = before.fork()
        if not trips.is_const:
            skipped.cons += (Constraint(-trips),)
        exits.append(skipped)
    for state in ends + broke:
        pinned = at_last(state, name, last)
        if pinned is not None:
            exits.append(pinned)
    return exits
