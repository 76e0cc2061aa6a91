"""Calls in the OpenMP dataflow: a called function of the same file is interpreted in place.

At a call the callee's IR runs from the caller's state, its pointer parameters bound to the
arguments' names in the root function and its scalar parameters to the arguments' texts, its
locals under a prefix of their own (``f#2::tmp``) that is dropped on return. Summaries are
therefore exact per calling context, at the price of running a callee once per call; depth
is bounded and recursion is :class:`~s2s.analysis.omp.state.Unsupported`.

This is kept apart from the statement and access rules of
:class:`~s2s.analysis.omp.flow.Interpreter` because it is the one place where names cross
from one function's scope to another's: binding arguments, and translating the sections a
callee's kernel writes back into the root function's names (``_in_root``).
"""

from __future__ import annotations

import re

from s2s.analysis.omp.ir import Access, CallEvent, Copy, FunctionIR, function_argument
from s2s.analysis.omp.state import Frame, State, Unsupported, balanced, meet, path_root
from s2s.analysis.polynomial import NotPoly, poly, render

_PATH = re.compile(r"^[A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*$")
MAX_INLINE_DEPTH = 12


class CallHandling:
    """The call rules of :class:`~s2s.analysis.omp.flow.Interpreter` (its base class). They
    use the interpreter's IRs, its stack of active functions, the ``return``/loop contexts
    they save around a callee, and the memos it shares across runs."""

    def _call(self, call: CallEvent, state: State, frame: Frame) -> State | None:
        args = [(arg, frame) for arg in call.args]
        if call.indirect:
            call, args = self._through_parameter(call, frame)
        ir = self.irs.get(call.callee)
        if ir is None:
            return state
        if call.callee in self._stack:
            raise Unsupported(f"recursive call to {call.callee}")
        if len(self._stack) > MAX_INLINE_DEPTH:
            # (TeaLeaf's halo kernels sit 9 calls below its time loop: 12 plans them)
            raise Unsupported(f"the call to {call.callee} is nested more than "
                              f"{MAX_INLINE_DEPTH} calls deep")
        callee = self._bind(ir, call, args)
        for k, names in call.choices:  # ``c ? p : q``: a local that may point to either
            caller = args[k][1]
            state = self._choose(state, callee.resolve(ir.function.params[k].name),
                                 [caller.resolve(name) for name in names])
        self._stack.append(call.callee)
        saved_returns, self._returns = self._returns, []
        saved_loops, self._loops = self._loops, []
        try:
            out = self.run(ir.root, state, callee)
            returns = self._returns
        finally:
            self._stack.pop()
            self._returns, self._loops = saved_returns, saved_loops
        result = meet(out, *returns)
        if result is None:
            return None
        # The callee's locals die with it.
        for table in (result.valid, result.pts, result.pristine):
            for name in [n for n in table if callee.prefix and n.startswith(callee.prefix)]:
                del table[name]
        return result

    def _through_parameter(self, call: CallEvent, frame: Frame):
        """The call ``kernel(args...)`` of a wrapper's parameter as the call of the function
        bound to it, with the argument packs expanded to the (argument, frame) pairs they
        were bound to. A parameter bound to something that is no function of the program (a
        lambda, a functor) stays a call of nothing known."""
        target = function_argument(frame.scalars.get(call.callee[1:], ""))
        args = []
        for arg in call.args:
            pack = arg.strip().removesuffix("...").strip()
            if arg.strip().endswith("...") and pack in frame.packs:
                args += frame.packs[pack]
            else:
                args.append((arg, frame))
        return CallEvent(target, tuple(a for a, _ in args), call.offset), args

    def _bind(self, ir: FunctionIR, call: CallEvent, args: list) -> Frame:
        """The callee's frame: each parameter bound to its argument, read in the frame it
        was written in (a pack's arguments in their caller's); a parameter pack takes the
        remaining arguments as they are, for the calls that expand it."""
        params = ir.function.params
        pointers, scalars, offset, packs = {}, {}, set(), {}
        chosen = {params[k].name for k, _ in call.choices if k < len(params)}
        for k, (param, (arg, frame)) in enumerate(zip(params, args, strict=False)):
            if param.type.rstrip().endswith("..."):
                packs[param.name] = tuple(args[k:])
                break
            text = _strip(arg)
            if not param.is_pointer:
                scalars[param.name] = frame.scalars.get(text, text)
                if _PATH.match(text) and _members_through_pointers(ir, param.name):
                    # a struct passed by value: its copy's pointer members hold the
                    # caller's addresses (``m.u[n]`` is ``mesh.u[n]``)
                    pointers[param.name] = frame.resolve(text)
                continue
            if param.name in chosen:
                continue  # a local of the callee's frame, pointing to either (_call)
            if _STRING_LITERAL.match(text):
                # ``run<float>("float", n)``: a literal is no array of the program (the
                # callee may only read it); the parameter is a local of the callee's frame
                chosen.add(param.name)
                continue
            if _PATH.match(text):
                pointers[param.name] = frame.resolve(text)
            elif text.startswith("&") and _PATH.match(text[1:].strip()):
                pointers[param.name] = "&" + frame.resolve(text[1:].strip())
            else:
                # ``p + i * n``, ``&a[k]``: the storage of ``p`` / ``a`` at an offset. Anything
                # else (``k % 2 ? q : p``, ``pick(p, q)``) may be one of several arrays: its
                # first name is not the storage (it took ``k`` for the array).
                base = re.match(r"^&?\s*([A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*)\s*(?:[-+\[]|$)",
                                text)
                if base is None or "?" in text:
                    raise Unsupported(f"the pointer argument '{text}' of the call to "
                                      f"'{call.callee}' is not one array: it may be any of "
                                      "several, chosen at run time")
                pointers[param.name] = frame.resolve(base.group(1))
                offset.add(param.name)
        depth = len(self._stack)
        return Frame(call.callee, pointers, scalars,
                     self.locals_of.get(call.callee, frozenset()) | chosen,
                     f"{call.callee}#{depth}::", frozenset(offset), packs)

    def _in_root(self, section: str, frame: Frame, name: str) -> str | None:
        """``section`` of an access to ``name`` in a function called from the root, with its
        scalar parameters replaced by the root's arguments. None deeper down, when ``name``
        is not a pointer parameter bound to the caller's pointer itself (``f``, not ``f +
        50`` nor a local ``q = p + 3``: its indices are then not the storage's), for any
        other name in the section, or a parameter the callee assigns."""
        param = path_root(name)
        if self.assigns is None or len(self._stack) != 2 or param not in frame.pointers \
                or param in frame.offset_bound or frame.pointers[param].startswith("&") or \
                frame.pointers.keys() & set(re.findall(r"[A-Za-z_]\w*", section)):
            return None
        key = (section, frame.function, tuple(sorted(frame.scalars.items())))
        if key not in self.root_memo:
            self.root_memo[key] = self._translate(section, frame)
        return self.root_memo[key]

    def _translate(self, section: str, frame: Frame) -> str | None:
        failed = []

        def replace(match) -> str:
            name = match.group(0)
            if name not in frame.scalars or self.assigns(frame.function, name):
                failed.append(name)
                return name
            return f"({frame.scalars[name]})"

        text = re.sub(r"(?<![\w.>])[A-Za-z_]\w*", replace, section)
        if failed or re.search(r"\.|->", section):
            return None
        try:
            low, length = text.strip()[1:-1].split(":")
            return f"[{render(poly(low))}:{render(poly(length))}]"
        except (NotPoly, ValueError):
            return None


#: a string literal argument, concatenated pieces and encoding prefixes included
_STRING_LITERAL = re.compile(r'^(?:(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*"\s*)+$')


def _strip(arg: str) -> str:
    """``(double *)x`` -> ``x``, ``(x)`` -> ``x``."""
    text = arg.strip()
    text = re.sub(r"^\(\s*(?:const\s+)?[A-Za-z_]\w*(?:\s+[A-Za-z_]\w*)*\s*\*+\s*\)\s*", "", text)
    while text.startswith("(") and text.endswith(")") and balanced(text[1:-1]):
        text = text[1:-1].strip()
    return text


def _members_through_pointers(ir: FunctionIR, param: str) -> bool:
    """Whether ``param`` (not a pointer) is used in the function only through pointer
    members (``m.u[n]``, never ``m.a[k]`` of an array member, which the copy holds itself,
    nor ``m`` passed on whole) that the function never re-points."""
    events = [event for node in ir.root.walk() for event in node.events + node.cond
              + node.step]
    if any(isinstance(e, Copy) and path_root(e.target) == param for e in events):
        return False  # ``m.u = other;`` re-points the copy's member, not the caller's
    refs = [e.ref for e in events if isinstance(e, Access) and e.ref is not None and
            e.ref.root == param]
    return bool(refs) and all(r.pointer and r.array.startswith(param + ".") and
                              (r.call is None or _member_handed_on(r)) for r in refs)


def _member_handed_on(ref) -> bool:
    """Whether ``ref`` hands a pointer member itself to a call (``f(m.u, i)``, not ``&m.u``
    nor ``m.u[k]``): the callee gets the caller's address, the copy's member is unchanged
    (issue 28: RSBench's ``calculate_macro_xs(..., data.mats, ...)`` in a kernel)."""
    return not ref.subscripts and "&" not in ref.array
