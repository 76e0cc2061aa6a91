"""Calls of host functions that launch kernels on the region's device buffers, split from
:mod:`host_code` (issue 29: transfers across functions).

Rodinia's hotspot and pathfinder hand their device buffers, an array of two among them, to
a helper that runs the time loop: ``int ret = compute_tran_temp(MatrixPower, MatrixTemp,
...);`` then copy ``MatrixTemp[ret]`` back. Such a call is one device operation of the region
that reads and writes every device buffer it is given (every element of an array), as a
launch of a kernel without an access model is: the plan keeps each copy on its side of the
call, and the buffers still go into the pools (the callee uses the pointers it is given).

A *device call* is a statement (expression or declaration) with one call of a function of
the file that launches kernels, directly or through the functions it calls, where:

* every mention of a region buffer in the statement is a whole argument of that call, and
  none is a host buffer (the callee would read it on the host);
* the callee and the functions it calls (the file's, transitively) make no CUDA call but
  launches on the default stream, error checks, synchronisation and events: no copy,
  allocation, free or fill the plan would have to see, no stream to order against;
* none of them names a host buffer of the region (a global the region copies) or assigns
  a global (a pointer kept there would let a later call reach the buffer unseen), nor is a
  template (its instantiations are other functions).

Anything else stays what it was (a host statement whose buffer mentions are refused as
``transfers-escape``, with the reason).

A mixin of ``host_code._Extractor``: reads its ``model``, ``space``, ``arrays``, ``has_value``
and ``_uses``.
"""

from __future__ import annotations

from s2s.analysis.transfers.region import HOST, Launch
from s2s.model import Stmt
from s2s.model.cuda_legacy import legacy_equivalent

#: CUDA calls a device call's callee may make besides its launches
_QUIET = frozenset({"cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName",
                    "cudaDeviceSynchronize", "cudaFuncSetCacheConfig"})
_DEFAULT_STREAMS = frozenset({"0", "NULL", "nullptr", "cudaStreamLegacy"})
#: functions a callee may call without a definition in the file: they touch no device memory
#: and no buffer of the region (its buffers are not passed to them: they are the callee's
#: parameters, given only to launches)
HOST_LIBRARY = frozenset({"printf", "fprintf", "puts", "fputs", "exit", "abort", "fflush", "sqrt",
                          "sqrtf", "ceil", "floor", "fabs", "min", "max", "dim3", "gettimeofday",
                          "clock", "time", "assert"})


class DeviceCalls:
    """Calls of launching host functions as device operations (see the module docstring)."""

    def launching(self, name: str) -> bool:
        """Whether ``name`` is a function of the file that launches kernels (itself or through
        its callees) and does nothing else a region must see."""
        if name not in self.launching_cache:
            functions = [f for f in self.model.functions if f.name == name and f.body is not None]
            self.launching_cache[name] = len(functions) == 1 and name != self.function.name and \
                self._summary(name, set()) == (True, True)
        return self.launching_cache[name]

    def _summary(self, name: str, seen: set[str]) -> tuple[bool, bool]:
        """(whether ``name`` and what it calls make only quiet CUDA calls and name no host
        buffer of the region, whether they launch kernels)."""
        functions = [f for f in self.model.functions if f.name == name and f.body is not None]
        if not functions:
            return name in HOST_LIBRARY or name.startswith("__"), False
        function = functions[0]
        if len(functions) != 1 or function.is_template:
            return False, False
        seen.add(name)
        launches = self.model.in_function("launches", name)
        if any(launch.stream is not None and launch.stream.text.strip() not in _DEFAULT_STREAMS
               for launch in launches):
            return False, False
        if any(legacy_equivalent(c.name) not in _QUIET and not c.name.startswith("cudaEvent")
               for c in self.model.in_function("api_calls", name)):
            return False, False
        outside = [use for use in self.model.in_function("var_uses", name)
                   if not function.span.start <= use.decl < function.span.end]
        # a host buffer of the region read or written there, or a global given a value (a
        # pointer kept for a later call the region would not see as touching the buffer)
        if any(use.name in self.space and self.space[use.name] == HOST or use.role == "assign"
               for use in outside):
            return False, False
        found = bool(launches)
        api = {c.name for c in self.model.in_function("api_calls", name)}
        for callee in {c.name for c in function.calls} - api - {launch.kernel for launch in launches} - seen:
            allowed, launching = self._summary(callee, seen)
            if not allowed:
                return False, False
            found = found or launching
        return True, found

    def device_call(self, stmt: Stmt) -> tuple[str, list[str]] | None:
        """(callee, the device buffers it is given) when ``stmt`` is a device call."""
        if stmt.kind not in ("expr", "decl") or stmt.span.macro is not None:
            return None
        calls = [c for c in stmt.calls if self.launching(c.name)]
        if len(calls) != 1 or calls[0].span.macro is not None:
            return None
        callee, buffers = calls[0].name, []
        for use in self._uses(stmt.span):
            if use.name not in self.space and use.name not in self.arrays:
                continue
            if use.role != "argument" or use.call != callee or self.space.get(use.name) == HOST:
                return None
            buffers += self.arrays.get(use.name, [use.name])
        return (callee, list(dict.fromkeys(buffers))) if buffers else None

    def device_call_op(self, stmt: Stmt) -> Launch | None:
        """The device call's operation: every buffer given is read (where it holds a value)
        and written."""
        callee, buffers = self.device_call(stmt)
        reads = tuple(b for b in buffers if b in self.has_value)
        self.has_value.update(buffers)
        return Launch(callee, reads, tuple(buffers), stmt.span)

    def reached_buffer(self, stmt: Stmt):
        """(the function called by ``stmt``, the region buffer it or a function it calls names
        outside its own declarations, that use) for the first such mention, or None.

        A function of the file that names a global region buffer (``float *d_in;`` at file
        scope, read by its launches or copied by it) reads or writes it where it is called,
        though the call mentions no buffer: a copy before the call is not dead, nor can one
        move across it. Template functions and members count too (their bodies name the
        buffer whatever their instantiations are)."""
        seen: set[str] = {self.function.name}
        # every call in the statement, those of a nested loop's body too (its own statements:
        # the function's calls filtered by span, once per statement, were quadratic)
        for call in (c for inner in stmt.walk() for c in inner.calls):
            found = self._names_region_buffer(call.name, seen)
            if found is not None:
                return call.name, found
        return None

    def _names_region_buffer(self, name: str, seen: set[str]):
        if name in seen:
            return None
        seen.add(name)
        for function in (f for f in self.model.functions if f.name == name and f.body is not None):
            for use in self.model.in_function("var_uses", name):
                if use.name in self.space and not function.span.start <= use.decl < function.span.end:
                    return use
            for callee in {c.name for c in function.calls}:
                found = self._names_region_buffer(callee, seen)
                if found is not None:
                    return found
        return None
