"""Random but realistic OpenMP offload C programs, and a checker of ``s2s omp`` on them.

Why: the bundled samples are a dozen hand-written programs; ``s2s omp`` has to be right on the
combinations of patterns real codes mix (time loops, host reads between kernels, branches,
aliases, swaps, helpers, function-local arrays, struct members pulled into locals, host
calls after the device work, input checks followed by partial final reads; the helper
functions of the newer patterns are in :mod:`s2s.verify.omp_random_extras`).
``generate(seed)`` writes such a program in the *input* style s2s optimizes: every kernel
maps every array it touches with a naive per-kernel ``map(tofrom: a[0:n])``. ``check(seed, ...)`` builds and runs the original, runs
``s2s omp -o`` on it, builds and runs the rewrite, and compares outputs, copies and unmapped
pointers (see :mod:`s2s.verify.omp_harness`).

Exactness: all data are small integers held in doubles (or ints); kernels wrap values with
``fmod(x, M)`` / ``% M``, sums are of integers far below 2**53, so every result is exact in
any reduction order and the outputs of two correct versions are byte-identical. Every array
is initialized on the host (or by calloc) before anything reads it, and a kernel writes
element ``i`` only and reads the arrays it writes only at ``i``, so there are no races.

Standard library only.
"""

from __future__ import annotations

import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from s2s.verify import omp_harness as harness
from s2s.verify import omp_random_extras as extras

__all__ = ["generate", "features", "check", "CheckResult", "default_s2s_command", "CHECK_FLAGS"]

MODULI = (509, 997, 1021, 2039, 4093)
ARRAY_NAMES = ("u", "v", "w", "x", "y", "z", "p", "q", "rho", "flux", "src", "dst", "work",
               "field", "grid", "buf", "coef", "mass", "vel", "pos", "heat", "phi", "psi",
               "res", "rhs", "sol", "weight", "dens", "press", "temp_a", "temp_b")
INT_ARRAY_NAMES = ("hist", "mask", "count", "label", "flag", "cell")
GLOBAL_NAMES = ("table", "lut", "bound", "glob", "ref")
SCALAR_NAMES = ("total", "norm", "resid", "esum", "msum", "accum")
MAX_NAMES = ("peak", "vmax", "top")
COUNT_NAMES = ("hits", "nabove", "active")
ALIAS_NAMES = ("r", "view", "cur", "out", "alias")
LOCAL_HELPER_NAMES = {"vla": "stage_tmp", "vla_init": "blend_tmp", "vla_loop": "two_pass",
                      "fixed": "weighted",
                      "static_once": "apply_table", "static_once_modified": "apply_drift",
                      "static_every": "apply_fresh", "static_acc": "accumulate"}
TAIL_NAMES = {"note": "note_done", "bump": "host_bump", "peek": "host_peek", "glob": "glob_peek",
              "member": "member_peek"}
HELPER_NAMES = {"axpy": ("axpy", "scale_add", "blend", "combine"),
                "smooth": ("smooth", "relax", "diffuse"),
                "sum": ("sum_of", "total_of", "reduce_sum")}


@dataclass
class _Array:
    name: str
    ctype: str  # "double" or "int"
    size: str  # the length's C expression: "n", "m" or "GN"
    is_global: bool = False
    alias: str | None = None  # a second name for the same buffer (double *r = u;)
    alias_used: bool = False
    calloc: bool = False
    member: bool = False  # a member of the program's struct (reached as st.x or fs->x)


@dataclass
class _Lines:
    lines: list[str] = field(default_factory=list)
    depth: int = 0

    def add(self, text: str) -> None:
        for line in text.split("\n"):
            self.lines.append("    " * self.depth + line if line else "")

    def open(self, text: str) -> None:
        self.add(f"{text} {{" if text else "{")
        self.depth += 1

    def close(self, text: str = "}") -> None:
        self.depth -= 1
        self.add(text)


@dataclass
class _Helper:
    kind: str  # "axpy", "smooth" or "sum"; extras.LOCAL_KINDS for local-array helpers
    name: str
    calls: int = 0
    variant: int = 0
    dst: str = ""  # struct helpers: the members they write / read
    src: str = ""


class _Gen:
    """One program; every choice comes from ``self.rng`` in a fixed order (determinism)."""

    def __init__(self, seed: int):
        self.rng = r = random.Random(seed)
        self.seed = seed
        self.feats: list[str] = []
        self.mod = r.choice(MODULI)
        self.n_default = _awkward_size(r, 600, 3000)
        self.argv_n = r.random() < 0.5
        self.argv_steps = self.argv_n and r.random() < 0.5
        self.steps = r.randint(3, 12)
        self.one_clause = r.random() < 0.5  # map(tofrom: a[0:n], b[0:n]) vs one clause each
        self.readonly_to = r.random() < 0.25  # read-only arrays as map(to:)
        self.split_rate = r.choice((0.0, 0.0, 0.2))  # target + teams distribute parallel for
        self.continuation = r.random() < 0.15  # long pragmas broken with backslashes
        self.global_map = r.choice(("section", "whole", "implicit"))
        self.scalars: list[tuple[str, str, str]] = []  # (name, ctype, kind) of reduction results
        self.probe_used = False
        self.used_m = False
        self.helpers: list[_Helper] = []
        self._make_arrays()
        self._make_extras()

    # ---------------------------------------------------------------- arrays

    def _make_arrays(self) -> None:
        r = self.rng
        count = r.randint(2, 5)
        names = r.sample(ARRAY_NAMES, count)
        self.use_m = count >= 3 and r.random() < 0.3
        self.arrays: list[_Array] = []
        for k, name in enumerate(names):
            size = "m" if self.use_m and k == count - 1 else "n"
            self.arrays.append(_Array(name, "double", size))
        if r.random() < 0.25:
            self.arrays.append(_Array(r.choice(INT_ARRAY_NAMES), "int", "n"))
            self.feat("int array")
        self.globals: list[_Array] = []
        if r.random() < 0.35:
            self.globals.append(_Array(r.choice(GLOBAL_NAMES), "double", "GN", is_global=True))
            self.gn = _awkward_size(r, 200, 900)
            self.feat(f"global array ({self.global_map} map)")
        doubles_n = [a for a in self.arrays if a.ctype == "double" and a.size == "n"]
        self.swap: tuple[_Array, _Array] | None = None
        if len(doubles_n) >= 2 and r.random() < 0.3:
            self.swap = (doubles_n[0], doubles_n[1])
            self.feat("pointer swap")
        candidates = [a for a in self.arrays if a.ctype == "double"
                      and (self.swap is None or a not in self.swap)]
        if candidates and r.random() < 0.3:
            target = r.choice(candidates)
            target.alias = r.choice([x for x in ALIAS_NAMES if x not in self._all_names()])
            self.feat("pointer alias")
        if r.random() < 0.35:
            kinds = r.sample(("axpy", "smooth", "sum"), r.randint(1, 2))
            self.helpers = [_Helper(kind, r.choice(HELPER_NAMES[kind])) for kind in kinds]

    def _make_extras(self) -> None:
        """The newer patterns: function-local arrays in helpers, struct members pulled into
        locals, host calls after the device work, an input check with partial final reads."""
        r = self.rng
        self.local_helpers: list[_Helper] = []
        if r.random() < 0.35:
            for kind in r.sample(extras.LOCAL_KINDS, r.randint(1, 2)):
                helper = _Helper(kind, LOCAL_HELPER_NAMES[kind])
                helper.variant = r.randint(0, 3)
                self.local_helpers.append(helper)
        self.members: list[_Array] = []
        self.struct_helpers: list[_Helper] = []
        self.member_swap = False
        if r.random() < 0.22:
            taken = set(self._all_names()) | {g.name for g in self.globals}
            names = r.sample([x for x in ARRAY_NAMES if x not in taken], r.randint(2, 3))
            self.members = [_Array(nm, "double", "n", member=True) for nm in names]
            self.struct_type = r.choice(("Fields", "State", "Mesh"))
            self.arrow = r.random() < 0.6
            self.spath = "fs->" if self.arrow else "st."
            kinds = [r.choice(("axpy", "smooth"))] + [k for k in ("axpy", "smooth", "sum")
                                                        if r.random() < 0.4]
            for kind in dict.fromkeys(kinds):
                helper = _Helper(kind, f"{self.struct_type.lower()}_{kind}")
                helper.dst, helper.src = r.sample(names, 2)
                self.struct_helpers.append(helper)
            self.member_swap = r.random() < 0.25
            self.feat("struct member arrays through local pointers")
        self.tail: list[str] = []
        if r.random() < 0.35:
            kinds = ["note", "bump", "peek"] + (["glob"] if self.globals else []) + \
                (["member"] if self.members else [])
            self.tail = r.sample(kinds, r.randint(1, min(3, len(kinds))))
        self.guard = None
        if r.random() < 0.35:
            self.guard = (r.choice((2, 3, 4, 8, 16, 100)), r.choice(("block", "exit", "single")),
                          r.random() < 0.5, r.choice((1, 2, 5)))
            self.feat("input check at the start of main")
        self.partial: set[str] = set()
        if r.random() < 0.4:
            self.partial = {a.name for a in self.every() + self.members if r.random() < 0.5}

    def _all_names(self) -> list[str]:
        return [a.name for a in self.arrays] + [a.alias for a in self.arrays if a.alias]

    def feat(self, name: str) -> None:
        if name not in self.feats:
            self.feats.append(name)

    def every(self) -> list[_Array]:
        return self.arrays + self.globals

    def name(self, arr: _Array) -> str:
        """The name to use for ``arr`` at this reference: the alias half the time."""
        if arr.member:
            return self.spath + arr.name
        if arr.alias and self.rng.random() < 0.5:
            arr.alias_used = True
            return arr.alias
        return arr.name

    def size(self, arr: _Array) -> str:
        if arr.size == "m":
            self.used_m = True
        return arr.size

    def wrap(self, expr: str, ctype: str) -> str:
        if ctype == "double":
            return f"fmod({expr}, {self.mod}.0)"
        return f"(int)({expr}) % {self.mod}"

    def zero(self, arr: _Array) -> str:
        return "0.0" if arr.ctype == "double" else "0"

    # ---------------------------------------------------------------- kernels

    def map_clauses(self, touched: list[tuple[str, _Array, bool]],
                    reduction: tuple[str, str] | None) -> str:
        """The naive map clauses of a region: ``touched`` = (name used, array, read only)."""
        clauses = []
        if reduction:
            clauses.append(f"map(tofrom: {reduction[1]})")
        heap = [(nm, a, ro) for nm, a, ro in touched if not a.is_global]
        glob = [(nm, a, ro) for nm, a, ro in touched if a.is_global]
        groups: dict[str, list[str]] = {"tofrom": [], "to": []}
        for nm, arr, read_only in heap + glob:
            if arr.is_global and self.global_map == "implicit":
                continue
            text = nm if arr.is_global and self.global_map == "whole" else f"{nm}[0:{self.size(arr)}]"
            groups["to" if read_only and self.readonly_to else "tofrom"].append(text)
        for kind, items in groups.items():
            if not items:
                continue
            if self.one_clause:
                clauses.append(f"map({kind}: {', '.join(items)})")
            else:
                clauses.extend(f"map({kind}: {item})" for item in items)
        sep = " \\\n    " if self.continuation and len(clauses) > 2 else " "
        return sep.join(clauses)

    def kernel(self, out: _Lines, body: list[str], touched: list[tuple[str, _Array, bool]],
               lo: str, hi: str, reduction: tuple[str, str] | None = None) -> None:
        """Emit one target region: ``touched`` = (name used, array, read only)."""
        maps = self.map_clauses(touched, reduction)
        sep = " \\\n    " if "\n" in maps else " "
        red = f" reduction({reduction[0]}:{reduction[1]})" if reduction else ""
        if self.rng.random() < self.split_rate:
            self.feat("split target + teams")
            out.add(f"#pragma omp target{sep if maps else ''}{maps}".rstrip())
            out.add(f"#pragma omp teams distribute parallel for{red}")
        else:
            out.add(f"#pragma omp target teams distribute parallel for{red}{sep if maps else ''}{maps}")
        if len(body) == 1 and self.rng.random() < 0.5:
            out.add(f"for (int i = {lo}; i < {hi}; ++i)")
            out.add("    " + body[0])
        else:
            out.open(f"for (int i = {lo}; i < {hi}; ++i)")
            for line in body:
                out.add(line)
            out.close()

    def pick_group(self) -> tuple[str, list[_Array]]:
        groups: dict[str, list[_Array]] = {}
        for arr in self.every():
            groups.setdefault(arr.size, []).append(arr)
        choices = [g for g in groups if len(groups[g]) >= 2] or list(groups)
        key = self.rng.choice(choices)
        return key, groups[key]

    def scalar_term(self, ctype: str) -> str | None:
        if not self.scalars or self.rng.random() < 0.6:
            return None
        name, stype, _kind = self.rng.choice(self.scalars)
        self.feat("reduction result used in a later kernel")
        if stype == "long":
            return f"(double)({name} % 17)"
        return name

    def terms(self, reads: list[tuple[str, _Array]]) -> str:
        parts = []
        for nm, _arr in reads:
            coef = self.rng.choice((1, 1, 2, 3, 5))
            parts.append(f"{nm}[i]" if coef == 1 else f"{coef}.0 * {nm}[i]")
        return " + ".join(parts)

    def elementwise_kernel(self, out: _Lines, blocks: bool = False, last: bool = False) -> None:
        """``dst[i] = ...`` over all of ``dst`` (or part of it); with ``blocks``, one launch
        per quarter in a host loop, then a host access to ``dst``; with ``last`` too, the
        host reads all of ``dst`` first and nothing else follows (both copies agree before
        the blocks, so what comes back at the end is what they wrote)."""
        r = self.rng
        _key, group = self.pick_group()
        dst = r.choice(group)
        others = [a for a in group if a is not dst]
        reads = r.sample(others, min(len(others), r.randint(1, 2)))
        dname = self.name(dst)
        read_names = [(self.name(a), a) for a in reads]
        expr = self.terms(read_names) or f"{dname}[i]"
        if r.random() < 0.5 or not reads:
            expr = f"{dname}[i] + {expr}" if reads else expr
        extra = self.scalar_term(dst.ctype)
        if extra:
            expr += f" + {extra}"
        expr += f" + {r.randint(1, 9)}"
        size = self.size(dst)
        lo, hi = "0", size
        if r.random() < 0.2:
            self.feat("kernel over part of an array")
            lo, hi = r.choice((("0", f"{size} / 2"), (f"{size} / 3", size), ("2", f"{size} - 2")))
        self.feat("elementwise kernel")
        body = [f"{dname}[i] = {self.wrap(expr, dst.ctype)};"]
        touched = [(dname, dst, False)] + [(nm, a, True) for nm, a in read_names]
        if lo == "0" and (blocks or r.random() < 0.25):
            # One launch per block: the written section names the host loop's counter,
            # which means other elements on the next trip and after the loop.
            self.feat("kernel per block in a host loop")
            if last:
                self.feat("kernel per block after a whole read, at the end")
                out.add(f"for (int i = 0; i < {size}; ++i)")
                out.add(f"    probe += {dname}[i];")
                self.probe_used = True
            out.open("")
            out.add("const int bq = 16;  /* every array has at least 64 elements */")
            out.open("for (int blk = 0; blk < 4; ++blk)")
            self.kernel(out, [line.replace("[i]", "[blk * bq + i]") for line in body], touched,
                        "0", "bq")
            if r.random() < 0.5:
                out.add(f"probe += {dname}[blk * bq + 1];")
                self.probe_used = True
            out.close()
            out.close()
            if blocks and not last:
                self.host_op(out, None, dst)
            return
        self.kernel(out, body, touched, lo, hi)

    def stencil_kernel(self, out: _Lines) -> None:
        r = self.rng
        _key, group = self.pick_group()
        if len(group) < 2:
            return self.elementwise_kernel(out)
        dst, src = r.sample(group, 2)
        dname, sname = self.name(dst), self.name(src)
        size = self.size(dst)
        zero = self.zero(src)
        coef = r.choice((1, 2, 4))
        center = f"{sname}[i]" if coef == 1 else f"{coef}.0 * {sname}[i]"
        keep = f"{dname}[i] + " if r.random() < 0.4 else ""
        if r.random() < 0.5:
            self.feat("stencil kernel with bounds guards")
            expr = (f"{keep}{center} + (i > 0 ? {sname}[i - 1] : {zero})"
                    f" + (i + 1 < {size} ? {sname}[i + 1] : {zero}) + 1")
            lo, hi = "0", size
        else:
            self.feat("stencil kernel on the interior only")
            expr = f"{keep}{sname}[i - 1] + {center} + {sname}[i + 1] + 1"
            lo, hi = "1", f"{size} - 1"
        self.kernel(out, [f"{dname}[i] = {self.wrap(expr, dst.ctype)};"],
                    [(dname, dst, False), (sname, src, True)], lo, hi)

    def gather_kernel(self, out: _Lines) -> None:
        r = self.rng
        dst = r.choice(self.every())
        sources = [a for a in self.every() if a is not dst]
        if not sources:
            return self.elementwise_kernel(out)
        src = r.choice(sources)
        dname, sname = self.name(dst), self.name(src)
        stride = r.choice((3, 7, 11, 13))
        expr = f"{dname}[i] + {sname}[(i * {stride} + {r.randint(1, 9)}) % {self.size(src)}]"
        self.feat("gather kernel (indirect reads)")
        self.kernel(out, [f"{dname}[i] = {self.wrap(expr, dst.ctype)};"],
                    [(dname, dst, False), (sname, src, True)], "0", self.size(dst))

    def two_output_kernel(self, out: _Lines) -> None:
        r = self.rng
        _key, group = self.pick_group()
        if len(group) < 3:
            return self.stencil_kernel(out)
        d1, d2, src = r.sample(group, 3)
        n1, n2, ns = self.name(d1), self.name(d2), self.name(src)
        body = [f"{n1}[i] = {self.wrap(f'{ns}[i] + {n1}[i] + {r.randint(1, 5)}', d1.ctype)};",
                f"{n2}[i] = {self.wrap(f'{n2}[i] + 2.0 * {n1}[i]', d2.ctype)};"]
        self.feat("kernel writing two arrays")
        self.kernel(out, body, [(n1, d1, False), (n2, d2, False), (ns, src, True)], "0",
                    self.size(d1))

    def boundary_region(self, out: _Lines) -> None:
        """A plain (single-thread) target region fixing the two ends of an array."""
        arr = self.rng.choice(self.every())
        nm, size = self.name(arr), self.size(arr)
        maps = self.map_clauses([(nm, arr, False)], None)
        self.feat("plain target region (boundary update)")
        out.add(f"#pragma omp target {maps}".rstrip())
        out.open("")
        out.add(f"{nm}[0] = {nm}[1];")
        out.add(f"{nm}[{size} - 1] = {self.wrap(f'{nm}[{size} - 2] + 1', arr.ctype)};")
        out.close()

    def new_scalar(self, kind: str) -> tuple[str, str]:
        pool = {"sum": SCALAR_NAMES, "max": MAX_NAMES, "count": COUNT_NAMES}[kind]
        taken = [s[0] for s in self.scalars]
        free = [nm for nm in pool if nm not in taken] or [f"{pool[0]}{len(taken)}"]
        name = self.rng.choice(free)
        ctype = "long" if kind == "count" else "double"
        self.scalars.append((name, ctype, kind))
        return name, ctype

    def reduction_kernel(self, out: _Lines, loop_var: str) -> str:
        """A reduction into a fresh scalar, reset before; returns the scalar's name."""
        r = self.rng
        arr = r.choice(self.every())
        nm = self.name(arr)
        kind = r.choice(("sum", "sum", "max", "count", "fused"))
        if kind == "fused" and arr.ctype == "double":
            _key, group = self.pick_group()
            dst = r.choice(group)
            src = r.choice([a for a in group if a is not dst] or [dst])
            dn = self.name(dst)
            sn = dn if src is dst else self.name(src)
            name, _ = self.new_scalar("sum")
            out.add(f"{name} = 0.0;")
            body = [f"{dn}[i] = {self.wrap(f'{dn}[i] + {sn}[i] + 1', dst.ctype)};",
                    f"{name} += {dn}[i];"]
            touched = [(dn, dst, False)] + ([(sn, src, True)] if src is not dst else [])
            self.feat("kernel computing an array and reducing it")
            self.kernel(out, body, touched, "0", self.size(dst), ("+", name))
            return name
        if kind == "max":
            name, _ = self.new_scalar("max")
            out.add(f"{name} = 0.0;")
            body = [f"if ({nm}[i] > {name}) {name} = {nm}[i];"]
            red = ("max", name)
            self.feat("max reduction")
        elif kind == "count":
            name, _ = self.new_scalar("count")
            out.add(f"{name} = 0;")
            body = [f"{name} += ({nm}[i] > {self.mod // 2}) ? 1 : 0;"]
            red = ("+", name)
            self.feat("counting reduction into a long")
        else:
            name, _ = self.new_scalar("sum")
            out.add(f"{name} = 0.0;")
            body = [f"{name} += {nm}[i];"]
            red = ("+", name)
            self.feat("sum reduction")
        self.kernel(out, body, [(nm, arr, True)], "0", self.size(arr), red)
        return name

    def any_kernel(self, out: _Lines, loop_var: str) -> None:
        r = self.rng
        helper_pick = [h for h in self.helpers if h.kind != "sum"]
        if helper_pick and r.random() < 0.45:
            return self.helper_call(out, r.choice(helper_pick))
        if self.local_helpers and r.random() < 0.3:
            return self.local_call(out, r.choice(self.local_helpers))
        struct_pick = [h for h in self.struct_helpers if h.kind != "sum"]
        if struct_pick and r.random() < 0.3:
            return self.struct_call(out, r.choice(struct_pick))
        kind = r.choice(("elementwise", "elementwise", "elementwise", "stencil", "stencil",
                         "stencil", "gather", "gather", "two", "two", "boundary"))
        {"elementwise": self.elementwise_kernel, "stencil": self.stencil_kernel,
         "gather": self.gather_kernel, "two": self.two_output_kernel,
         "boundary": self.boundary_region}[kind](out)

    # ---------------------------------------------------------------- helpers

    def helper_call(self, out: _Lines, helper: _Helper) -> None:
        r = self.rng
        key, group = self.pick_group()
        doubles = [a for a in group if a.ctype == "double"]
        if len(doubles) < 2:
            return self.elementwise_kernel(out)
        dst, src = r.sample(doubles, 2)
        helper.calls += 1
        self.feat("kernel inside a helper function")
        if helper.calls == 2:
            self.feat("helper called from two call sites")
        size = self.size(dst)
        if helper.kind == "axpy":
            out.add(f"{helper.name}({size}, {self.name(dst)}, {self.name(src)}, {r.randint(2, 5)}.0);")
        else:
            out.add(f"{helper.name}({size}, {self.name(dst)}, {self.name(src)});")

    def local_call(self, out: _Lines, helper: _Helper) -> None:
        """A call of a helper with a function-local array; what it returns goes to probe."""
        r = self.rng
        doubles = [a for a in self.arrays if a.ctype == "double" and a.size == "n"]
        if len(doubles) < 2:
            return self.elementwise_kernel(out)
        dst, src = r.sample(doubles, 2)
        helper.calls += 1
        self.feat({"vla": "VLA in a helper function", "vla_init": "VLA in a helper function",
                   "vla_loop": "VLA used by kernels in a loop",
                   "fixed": "fixed-size local arrays in a helper function",
                   "static_once": "static table filled once",
                   "static_once_modified": "static table changed after its fill",
                   "static_every": "static table refilled on every call",
                   "static_acc": "static array written by kernels"}[helper.kind])
        out.add(f"probe += {helper.name}({self.size(dst)}, {self.name(dst)}, {self.name(src)});")
        self.probe_used = True

    def struct_call(self, out: _Lines, helper: _Helper) -> None:
        helper.calls += 1
        out.add(f"{helper.name}({'fs' if self.arrow else '&st'});")

    def struct_sum_call(self, out: _Lines, helper: _Helper) -> str:
        helper.calls += 1
        self.feat("reduction inside a struct helper")
        name, _ = self.new_scalar("sum")
        out.add(f"{name} = {helper.name}({'fs' if self.arrow else '&st'});")
        return name

    def helper_sum_call(self, out: _Lines, helper: _Helper) -> str:
        arr = self.rng.choice([a for a in self.every() if a.ctype == "double"])
        helper.calls += 1
        self.feat("reduction inside a helper function")
        name, _ = self.new_scalar("sum")
        out.add(f"{name} = {helper.name}({self.size(arr)}, {self.name(arr)});")
        return name

    def helper_definitions(self) -> list[str]:
        lines: list[str] = self.extra_definitions()
        for h in self.helpers:
            if h.calls == 0:
                continue
            to = "to" if self.readonly_to else "tofrom"
            if h.kind == "axpy":
                lines += [f"static void {h.name}(int len, double *y, const double *x, double c)",
                          "{",
                          "#pragma omp target teams distribute parallel for "
                          f"map(tofrom: y[0:len]) map({to}: x[0:len])",
                          "    for (int i = 0; i < len; ++i)",
                          f"        y[i] = fmod(y[i] + c * x[i] + 1.0, {self.mod}.0);", "}", ""]
            elif h.kind == "smooth":
                lines += [f"static void {h.name}(int len, double *dst, const double *src)",
                          "{",
                          "#pragma omp target teams distribute parallel for "
                          f"map(tofrom: dst[0:len]) map({to}: src[0:len])",
                          "    for (int i = 1; i < len - 1; ++i)",
                          f"        dst[i] = fmod(src[i - 1] + 2.0 * src[i] + src[i + 1], {self.mod}.0);",
                          "}", ""]
            else:
                lines += [f"static double {h.name}(int len, const double *x)",
                          "{",
                          "    double s = 0.0;",
                          "#pragma omp target teams distribute parallel for reduction(+:s) "
                          f"map(tofrom: s) map({to}: x[0:len])",
                          "    for (int i = 0; i < len; ++i)",
                          "        s += x[i];",
                          "    return s;", "}", ""]
        return lines

    def extra_definitions(self) -> list[str]:
        to = "to" if self.readonly_to else "tofrom"
        lines: list[str] = []
        if self.members:
            lines += extras.struct_type(self.struct_type, [a.name for a in self.members])
        for h in self.struct_helpers:
            if h.calls:
                lines += extras.struct_helper(h.kind, h.name, self.struct_type, h.dst, h.src,
                                              self.mod, to)
        for h in self.local_helpers:
            if h.calls:
                lines += extras.local_helper(h.kind, h.name, self.mod, to, h.variant)
        for kind in self.tail:
            lines += extras.tail_helper(
                kind, TAIL_NAMES[kind], self.mod, glob=self.globals[0].name if self.globals else None,
                type_name=getattr(self, "struct_type", None),
                member=self.members[0].name if self.members else None)
        return lines

    # ---------------------------------------------------------------- host code

    def host_op(self, out: _Lines, loop_var: str | None, arr: _Array | None = None) -> None:
        r = self.rng
        arr = arr or r.choice(self.every())
        if self.members and r.random() < 0.35:
            arr = r.choice(self.members)
            self.feat("host access through a member path")
        nm, size = self.name(arr), self.size(arr)
        kind = r.choice(("whole_write", "whole_read", "elem_write", "elem_read", "range_write",
                         "range_read", "print"))
        step = loop_var or "1"
        cond = None
        if loop_var and r.random() < 0.5:
            cond = r.choice((f"{loop_var} % {r.randint(2, 5)} == 0", f"{loop_var} % 3 == 1",
                             f"{loop_var} == {self.bound} - 1"))
            self.feat("host access under if (step % k == 0)")
        if cond:
            out.open(f"if ({cond})")
        idx = r.choice(("0", f"{size} - 1", f"{size} / 2"))
        width = r.randint(1, 6)
        rng_lo, rng_hi = r.choice((("0", str(width)), (f"{size} - {width}", size)))
        val = "(double)" if arr.ctype == "int" else ""
        if kind == "whole_write":
            out.add(f"for (int i = 0; i < {size}; ++i)")
            out.add(f"    {nm}[i] = {self.wrap(f'{nm}[i] + i % 3 + 1', arr.ctype)};")
            self.feat("host writes a whole array between kernels")
        elif kind == "whole_read":
            out.add(f"for (int i = 0; i < {size}; ++i)")
            out.add(f"    probe += {nm}[i];")
            self.probe_used = True
            self.feat("host reads a whole array between kernels")
        elif kind == "elem_write":
            out.add(f"{nm}[{idx}] = {self.wrap(f'{nm}[{idx}] + {step} + 1', arr.ctype)};")
            self.feat("host writes one element")
        elif kind == "elem_read":
            out.add(f"probe += {nm}[{idx}];")
            self.probe_used = True
            self.feat("host reads one element")
        elif kind == "range_write":
            out.add(f"for (int i = {rng_lo}; i < {rng_hi}; ++i)")
            out.add(f"    {nm}[i] = {self.wrap(f'{nm}[i] + 2 * i + 1', arr.ctype)};")
            self.feat("host writes a boundary range")
        elif kind == "range_read":
            out.add(f"for (int i = {rng_lo}; i < {rng_hi}; ++i)")
            out.add(f"    probe += {nm}[i];")
            self.probe_used = True
            self.feat("host reads a boundary range")
        else:
            label = loop_var or "phase"
            out.add(f'printf("{label} %d: {nm}[{idx}] = %.6e\\n", {step}, {val}{nm}[{idx}]);')
            self.feat("progress print of an element")
        if cond:
            out.close()

    def reduction_item(self, out: _Lines, loop_var: str) -> None:
        """A reduction (kernel or helper) and a host use of its result."""
        r = self.rng
        sums = [h for h in self.helpers if h.kind == "sum"]
        struct_sums = [h for h in self.struct_helpers if h.kind == "sum"]
        if sums and r.random() < 0.5:
            name = self.helper_sum_call(out, sums[0])
        elif struct_sums and r.random() < 0.5:
            name = self.struct_sum_call(out, struct_sums[0])
        else:
            name = self.reduction_kernel(out, loop_var)
        ctype = next(s[1] for s in self.scalars if s[0] == name)
        use = r.choice(("probe", "print", "branch", "branch", "none"))
        as_long = f"(long){name}" if ctype == "double" else name
        if use == "probe":
            out.add(f"probe += {name};")
            self.probe_used = True
        elif use == "print":
            fmt = "%.6e" if ctype == "double" else "%ld"
            out.add(f'if ({loop_var} % {r.randint(2, 4)} == 0)')
            out.add(f'    printf("{loop_var} %d {name} {fmt}\\n", {loop_var}, {name});')
            self.feat("host prints a reduction result")
        elif use == "branch":
            self.feat("branch on a reduction result")
            out.open(f"if ({as_long} % {r.randint(2, 4)} == {r.randint(0, 1)})")
            self.any_kernel(out, loop_var)
            if r.random() < 0.5:
                out.close("} else {")
                out.depth += 1
                self.host_op(out, None)
            out.close()
        if loop_var == "step" and r.random() < 0.12:
            self.feat("early exit from the time loop")
            out.add(f"if ({loop_var} > 1 && {as_long} % 5 == 3)")
            out.add("    break;")

    def loop_body(self, out: _Lines, loop_var: str, kernels: int) -> None:
        r = self.rng
        for _ in range(kernels):
            roll = r.random()
            if roll < 0.25:
                self.reduction_item(out, loop_var)
            elif roll < 0.4:
                self.feat("if/else around kernels")
                out.open(f"if ({loop_var} % 2 == 0)")
                self.any_kernel(out, loop_var)
                out.close("} else {")
                out.depth += 1
                self.any_kernel(out, loop_var)
                out.close()
            elif roll < 0.5:
                self.feat("kernel under if (step % k)")
                out.open(f"if ({loop_var} % {r.randint(2, 4)} == 1)")
                self.any_kernel(out, loop_var)
                out.close()
            else:
                self.any_kernel(out, loop_var)
            for _ in range(r.choice((0, 0, 1, 1, 2))):
                self.host_op(out, loop_var)

    # ---------------------------------------------------------------- program

    def program(self) -> str:
        r = self.rng
        body = _Lines(depth=1)
        if r.random() < 0.3:
            self.feat("kernel before the time loop")
            self.any_kernel(body, "0")
        elif r.random() < 0.15:
            self.feat("kernel before the time loop")
            self.elementwise_kernel(body, blocks=True)
        self.bound = "nsteps"
        body.open("for (int step = 0; step < nsteps; ++step)")
        if self.local_helpers and not any(h.calls for h in self.local_helpers):
            self.local_call(body, r.choice(self.local_helpers))
        if self.struct_helpers:
            self.struct_call(body, self.struct_helpers[0])
        self.loop_body(body, "step", r.randint(1, 4))
        if self.member_swap:
            a, b = self.members[0], self.members[1]
            self.feat("struct members swapped")
            body.open("")
            body.add(f"double *mtmp = {self.name(a)};")
            body.add(f"{self.name(a)} = {self.name(b)};")
            body.add(f"{self.name(b)} = mtmp;")
            body.close()
        if self.swap:
            a, b = self.swap
            body.open("")  # a block for the temporary
            body.add(f"double *tmp = {a.name};")
            body.add(f"{a.name} = {b.name};")
            body.add(f"{b.name} = tmp;")
            body.close()
        body.close()
        self.two_loops = r.random() < 0.3
        if self.two_loops:
            self.feat("two sequential loops")
            for _ in range(r.randint(0, 2)):
                self.host_op(body, None)
            self.bound = str(r.randint(2, 6))
            body.open(f"for (int it = 0; it < {self.bound}; ++it)")
            self.loop_body(body, "it", r.randint(1, 3))
            body.close()
        if r.random() < 0.15:
            self.elementwise_kernel(body, blocks=True, last=True)
        return self._assemble(body)

    def _assemble(self, body: _Lines) -> str:
        r = self.rng
        head = [f"/* generated by s2s.verify.omp_random, seed {self.seed} */",
                "#include <math.h>", "#include <stdio.h>", "#include <stdlib.h>", ""]
        if self.globals:
            head += [f"#define GN {self.gn}", ""]
            head += [f"static double {g.name}[GN];" for g in self.globals] + [""]
        report = r.random() < 0.5 and any(  # (an unused static function fails -Werror)
            a.name not in self.partial and a.ctype == "double" for a in self.every() + self.members)
        if report:
            head += ["static void report(const char *label, const double *x, int len)", "{",
                     "    double sum = 0.0;", "    long hash = 0;",
                     "    for (int i = 0; i < len; ++i) {",
                     "        sum += x[i] * (double)(i % 7 + 1);",
                     "        hash = (hash * 31 + (long)x[i]) % 1000003;", "    }",
                     '    printf("%s: sum=%.6e hash=%ld first=%.6e last=%.6e\\n", label, sum, '
                     "hash, x[0], x[len - 1]);", "}", ""]
        head += self.helper_definitions()
        argv = self.argv_n
        main = _Lines(depth=1)
        main.lines.append("int main(int argc, char **argv)" if argv else "int main(void)")
        main.lines.append("{")
        if argv:
            main.add(f"int n = argc > 1 ? atoi(argv[1]) : {self.n_default};")
            steps = f"argc > 2 ? atoi(argv[2]) : {self.steps}" if self.argv_steps else str(self.steps)
            main.add(f"int nsteps = {steps};")
        else:
            const = r.choice(("const int", "int"))
            main.add(f"{const} n = {self.n_default};")
            main.add(f"{const} nsteps = {self.steps};")
        has_m = self.used_m or any(a.size == "m" for a in self.arrays)
        if has_m:
            main.add(r.choice(("int m = n / 2 + 3;", "int m = n - n / 3;")))
        if self.guard:
            self._guard(main, has_m)
        for arr in self.arrays:
            main.add(self._alloc(arr))
        if self.members:
            main.add(f"{self.struct_type} st;")
            if self.arrow:
                main.add(f"{self.struct_type} *fs = &st;")
            main.add(f"{self.spath}n = n;")
            for arr in self.members:
                arr.calloc = r.random() < 0.4
                alloc = "calloc(n, sizeof(double))" if arr.calloc else "malloc(sizeof(double) * n)"
                main.add(f"{self.spath}{arr.name} = {alloc};")
        self._init(main)
        self._member_writes(main)
        for arr in self.arrays:
            if arr.alias and arr.alias_used:
                main.add(f"double *{arr.alias} = {arr.name};")
        for name, ctype, _kind in self.scalars:
            main.add(f"{ctype} {name} = {'0' if ctype == 'long' else '0.0'};")
        main.add("double probe = 0.0;")
        main.add("")
        main.lines += body.lines
        main.add("")
        self._tail_calls(main)
        for arr in self.every() + self.members:
            size, ref = arr.size, self._ref(arr)
            if arr.name in self.partial:
                self._partial_reads(main, arr)
            elif arr.ctype == "double" and report:
                main.add(f'report("{arr.name}", {ref}, {size});')
            else:
                main.open("")
                main.add("double sum = 0.0;")
                main.add("long hash = 0;")
                main.open(f"for (int i = 0; i < {size}; ++i)")
                main.add("sum += (double)" + f"{ref}[i] * (double)(i % 7 + 1);")
                main.add(f"hash = (hash * 31 + (long){ref}[i]) % 1000003;")
                main.close()
                main.add(f'printf("{arr.name}: sum=%.6e hash=%ld\\n", sum, hash);')
                main.close()
        for name, ctype, _kind in self.scalars:
            fmt = "%.6e" if ctype == "double" else "%ld"
            main.add(f'printf("{name} = {fmt}\\n", {name});')
        main.add('printf("probe = %.6e\\n", probe);')
        for arr in self.arrays + self.members:
            main.add(f"free({self._ref(arr)});")
        main.add("return 0;")
        main.lines.append("}")
        text = "\n".join(head + main.lines) + "\n"
        return text.replace("\n\n\n", "\n\n")

    def _member_writes(self, main: _Lines) -> None:
        """Host writes through member paths before the device work: a few elements of a
        member (a calloc'd one may get only these, its other elements are zeros)."""
        r = self.rng
        for arr in self.members:
            if r.random() < 0.5:
                continue
            self.feat("host writes through member paths before the device work")
            ref = self._ref(arr)
            if r.random() < 0.5:
                width = r.randint(1, 5)
                lo, hi = r.choice((("0", str(width)), (f"n - {width}", "n"), ("n / 3", "n / 2")))
                main.add(f"for (int i = {lo}; i < {hi}; ++i)")
                main.add(f"    {ref}[i] = (double)((i * {r.randint(2, 9)} + 1) % {self.mod});")
            else:
                idx = r.choice(("0", "n - 1", "n / 2"))
                main.add(f"{ref}[{idx}] = {r.randint(1, 99)}.0;")

    def _ref(self, arr: _Array) -> str:
        return self.spath + arr.name if arr.member else arr.name

    def _guard(self, main: _Lines, has_m: bool) -> None:
        """``if (n < K || ...) return 1;``: s2s may use ``n >= K`` afterwards."""
        low, style, steps, m_low = self.guard
        conds = [f"n < {low}"] + (["nsteps < 1"] if steps else []) + \
            ([f"m < {m_low}"] if has_m else [])
        cond = " || ".join(conds)
        if style == "single":
            main.add(f"if ({cond})")
            main.add("    return 1;")
            return
        main.open(f"if ({cond})")
        main.add('fprintf(stderr, "bad sizes\\n");')
        main.add("exit(1);" if style == "exit" else "return 1;")
        main.close()

    def _tail_calls(self, main: _Lines) -> None:
        """Host calls after the device work (see extras.tail_helper)."""
        r = self.rng
        doubles = [a for a in self.every() + self.members if a.ctype == "double"]
        for kind in self.tail:
            fn = TAIL_NAMES[kind]
            if kind == "note":
                main.add(f"{fn}(nsteps);")
                self.feat("host call after the device work touching no array")
            elif kind == "glob":
                main.add(f'printf("{fn} = %.6e\\n", {fn}());')
                self.feat("host call after the device work reading a global")
            elif kind == "member":
                main.add(f'printf("{fn} = %.6e\\n", {fn}({"fs" if self.arrow else "&st"}));')
                self.feat("host call after the device work reading a mapped array")
            else:
                arr = r.choice(doubles)
                ref, size = self._ref(arr), arr.size
                if kind == "bump":
                    main.add(f"{fn}({size}, {ref});")
                    self.feat("host call after the device work writing an array")
                else:
                    main.add(f'printf("{fn}({arr.name}) = %.6e\\n", {fn}({ref}, {size}));')
                    self.feat("host call after the device work reading a mapped array")

    def _partial_reads(self, main: _Lines, arr: _Array) -> None:
        """Final reads of a few elements and maybe the interior of ``arr`` (instead of all)."""
        r = self.rng
        ref, size = self._ref(arr), arr.size
        cast = "(double)" if arr.ctype == "int" else ""
        picks = r.sample((f"{size} / 4", f"{size} - 1", f"{size} / 2", f"3 * {size} / 4", "0",
                          f"{size} - 2", "1"), r.randint(1, 3))
        for idx in picks:
            main.add(f'printf("{arr.name}[{idx}] = %.6e\\n", {cast}{ref}[{idx}]);')
        self.feat("single-element host reads at the end")
        interior = r.choice((None, ("1", f"{size} - 1"), ("2", f"{size} - 2"),
                             ("1", f"{size} / 2")))
        if interior:
            self.feat("interior host read at the end")
            main.open("")
            main.add("double sum = 0.0;")
            main.open(f"for (int i = {interior[0]}; i < {interior[1]}; ++i)")
            main.add(f"sum += (double){ref}[i] * (double)(i % 7 + 1);")
            main.close()
            main.add(f'printf("{arr.name} interior: sum=%.6e\\n", sum);')
            main.close()

    def _alloc(self, arr: _Array) -> str:
        t, nm, size = arr.ctype, arr.name, arr.size
        style = self.rng.choice(("malloc", "cast", "sizeof_expr", "calloc"))
        arr.calloc = style == "calloc"
        if style == "calloc":
            return f"{t} *{nm} = calloc({size}, sizeof({t}));"
        if style == "cast":
            return f"{t} *{nm} = ({t} *)malloc({size} * sizeof({t}));"
        if style == "sizeof_expr":
            return f"{t} *{nm} = malloc(sizeof *{nm} * {size});"
        return f"{t} *{nm} = malloc(sizeof({t}) * {size});"

    def _init(self, main: _Lines) -> None:
        """Host initialization of every array that calloc did not zero (calloc'd ones too,
        half the time): small integers below the modulus."""
        by_size: dict[str, list[_Array]] = {}
        for arr in self.every() + self.members:
            if arr.calloc and self.rng.random() < 0.5:
                self.feat("calloc array used as zero-initialized")
                continue
            by_size.setdefault(arr.size, []).append(arr)
        for size, arrays in by_size.items():
            main.open(f"for (int i = 0; i < {size}; ++i)")
            for arr in arrays:
                mul, add = self.rng.randint(2, 40), self.rng.randint(0, 50)
                cast = "(double)" if arr.ctype == "double" else ""
                main.add(f"{self._ref(arr)}[i] = {cast}((i * {mul} + {add}) % {self.mod});")
            main.close()


def _awkward_size(rng: random.Random, lo: int, hi: int) -> int:
    """A size that is not a multiple of anything nice (odd, not a multiple of 3, 5 or 7)."""
    while True:
        n = rng.randint(lo, hi)
        if all(n % d for d in (2, 3, 5, 7)):
            return n


def _generate(seed: int) -> tuple[str, tuple[str, ...]]:
    gen = _Gen(seed)
    text = gen.program()
    return text, tuple(gen.feats)


def generate(seed: int) -> str:
    """The C source of random program ``seed`` (the same text for the same seed)."""
    return _generate(seed)[0]


def features(seed: int) -> tuple[str, ...]:
    """The patterns program ``seed`` exercises (for coverage summaries)."""
    return _generate(seed)[1]


# --------------------------------------------------------------------------
# checking s2s omp on a generated program
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckResult:
    seed: int
    #: False when ``s2s omp`` answered exit 2 "not available" (the pass does not exist yet)
    available: bool
    s2s_returncode: int | None
    s2s_stderr: str
    #: None when the outputs were not compared (pass missing or an earlier failure)
    output_match: bool | None
    mismatch: str | None  # the first output difference
    unmapped: tuple[str, ...]  # unmapped pointers of the rewritten run
    before: harness.CopyStats | None  # copies of the original
    after: harness.CopyStats | None  # copies of the rewritten program
    #: a failure other than a mismatch: original/rewrite does not build or crashes, s2s failed
    error: str | None = None
    original_unmapped: tuple[str, ...] = ()
    source: str = ""  # path of the generated program (kept under workdir)
    timings: tuple[tuple[str, float], ...] = ()  # (phase, seconds)

    @property
    def ok(self) -> bool:
        return (self.available and self.s2s_returncode == 0 and self.output_match is True
                and not self.unmapped and self.error is None)

    def describe(self) -> str:
        """One line saying what went wrong (or 'ok')."""
        if not self.available:
            return f"seed {self.seed}: s2s omp not available: {self.s2s_stderr.strip()}"
        problems = []
        if self.error:
            problems.append(self.error)
        if self.output_match is False:
            problems.append(f"output mismatch: {self.mismatch}")
        if self.unmapped:
            problems.append(f"unmapped pointers: {', '.join(self.unmapped)}")
        return f"seed {self.seed}: " + ("; ".join(problems) if problems else "ok")


def default_s2s_command() -> list[str]:
    """The ``s2s`` next to this Python (a venv's script), else ``python -m s2s``."""
    script = Path(sys.executable).with_name("s2s")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "s2s"]


def _not_available(returncode: int, stderr: str) -> bool:
    return returncode == 2 and "not available" in stderr


#: The random programs are built at -O0: 0.63 instead of 0.86 CPU seconds per build with
#: offload, and neither the outputs nor the copies depend on it (checked on 40 seeds).
CHECK_FLAGS = ("-O0",)


def check(seed: int, s2s_cmd: str | Sequence[str] | None = None,
          workdir: str | os.PathLike | None = None, timeout: float = 60.0,
          extra_flags: Sequence[str] = CHECK_FLAGS) -> CheckResult:
    """Generate program ``seed``, run ``s2s omp -o`` on it, build and run both versions.

    ``s2s_cmd`` is the command that runs s2s (a string is split like a shell would; default
    :func:`default_s2s_command`). Files go to ``workdir/seed_<seed>/`` (a temporary directory,
    removed afterwards, when ``workdir`` is None). s2s runs first, so that a missing pass costs
    no compilation. ``extra_flags`` go to both builds (after the harness's -O2). Never raises
    for a failing program: failures are in the result.
    """
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="s2s_omp_random_") as tmp:
            return check(seed, s2s_cmd, tmp, timeout, extra_flags)
    cmd = shlex.split(s2s_cmd) if isinstance(s2s_cmd, str) else list(s2s_cmd or default_s2s_command())
    work = Path(workdir) / f"seed_{seed}"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    name = f"rand_{seed}.c"
    (work / name).write_text(generate(seed))
    timings: list[tuple[str, float]] = []
    common = {"seed": seed, "source": str(work / name)}

    start = time.perf_counter()
    try:
        proc = subprocess.run([*cmd, "omp", "-o", "s2s_out", name], cwd=work, capture_output=True,
                              text=True, timeout=120)
        s2s_rc, s2s_err = proc.returncode, proc.stderr
    except (OSError, subprocess.TimeoutExpired) as error:
        s2s_rc, s2s_err = -1, f"could not run {cmd}: {error}"
    timings.append(("s2s", time.perf_counter() - start))
    if _not_available(s2s_rc, s2s_err):
        return CheckResult(available=False, s2s_returncode=s2s_rc, s2s_stderr=s2s_err,
                           output_match=None, mismatch=None, unmapped=(), before=None,
                           after=None, timings=tuple(timings), **common)

    original, error = _build_and_run(work / name, work / "original", timings, "original", timeout,
                                     extra_flags)
    before = original.copies if original else None
    orig_unmapped = original.unmapped if original else ()
    partial = {"available": True, "s2s_returncode": s2s_rc, "s2s_stderr": s2s_err,
               "before": before, "original_unmapped": orig_unmapped, **common}
    if error is None and orig_unmapped:
        error = f"the generated program itself has unmapped pointers: {', '.join(orig_unmapped)}"
    if error is None and s2s_rc != 0:
        error = f"s2s omp exited {s2s_rc}: {_tail(s2s_err)}"
    rewritten_src = _find_output(work / "s2s_out", name)
    if error is None and rewritten_src is None:
        error = f"s2s omp exited 0 but wrote no {name} under {work / 's2s_out'}"
    if error is not None:
        return CheckResult(output_match=None, mismatch=None, unmapped=(), after=None,
                           error=error, timings=tuple(timings), **partial)
    rewritten, error = _build_and_run(rewritten_src, work / "rewritten", timings, "rewritten",
                                      timeout, extra_flags)
    if rewritten is None:
        return CheckResult(output_match=None, mismatch=None, unmapped=(), after=None,
                           error=error, timings=tuple(timings), **partial)
    mismatch = harness.compare_outputs(original.stdout, rewritten.stdout)
    return CheckResult(output_match=mismatch is None, mismatch=mismatch,
                       unmapped=rewritten.unmapped, after=rewritten.copies, error=error,
                       timings=tuple(timings), **partial)


def _build_and_run(src: Path, exe: Path, timings: list, label: str, timeout: float,
                   extra_flags: Sequence[str]) -> tuple[harness.RunResult | None, str | None]:
    start = time.perf_counter()
    try:
        harness.build([src], exe, extra_flags=extra_flags)
    except harness.BuildError as error:
        return None, f"the {label} program does not build: {_tail(error.stderr)}"
    finally:
        timings.append((f"build {label}", time.perf_counter() - start))
    start = time.perf_counter()
    try:
        result = harness.run(exe, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"the {label} program timed out after {timeout:.0f} s"
    finally:
        timings.append((f"run {label}", time.perf_counter() - start))
    if result.returncode != 0:
        tail = _tail("\n".join(ln for ln in result.stderr.splitlines() if "Libomptarget" not in ln))
        return result, f"the {label} program exited {result.returncode}: {tail}"
    return result, None


def _find_output(outdir: Path, name: str) -> Path | None:
    direct = outdir / name
    if direct.is_file():
        return direct
    found = sorted(outdir.rglob(name)) if outdir.is_dir() else []
    return found[0] if found else None


def _tail(text: str, lines: int = 8) -> str:
    kept = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(kept[-lines:]) if kept else "(no output)"
