"""Random CUDA launch sequences for checking ``s2s fuse`` (issue 19, item 5).

A *program* (one seed) holds several independent *sequences*; each sequence has its own
kernels, buffers and element type and ends with a device-to-host copy and a ``printf``, so
the fusion pass sees one launch run per sequence. Kernels are maps (guarded by ``if (i < n)``
or by an early ``return``), read-modify-write updates, 3-point stencils, atomic reductions,
maps over a 2-D grid, maps calling a ``__device__`` helper that takes references, and
function templates launched with explicit arguments (1-D ones also take the block size as a
non-type parameter used in the index); pointer parameters mix ``const``,
``__restrict__`` / ``__restrict``, ``volatile``, ``T const *`` and read-only pointers declared
without ``const``; element types are ``float``, ``double`` and ``__half``.

Programs are what a CUDA ``main`` looks like (``malloc``, a fill loop, ``cudaMalloc``,
``cudaMemcpy``, launches, a read-back, ``printf``, ``cudaFree``) and straight-line, so
:mod:`s2s.verify.fuse_replay` can run the original and the fused program on cpu devices
(``__half`` programs are compile-only: the cpu devices do not emulate half precision).
Several sequences per program keep the number of ``nvcc`` and cpu-device compiles small.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

TYPES = ("float", "double", "__half")
HEAD = "#include <cuda_runtime.h>\n#include <cstdio>\n#include <cstdlib>\n"
HALF = "#include <cuda_fp16.h>\n"


@dataclass(frozen=True)
class Program:
    seed: int
    source: str
    sequences: int
    launches: int
    #: the cpu devices can run it (no ``__half``)
    runnable: bool


@dataclass
class _Type:
    name: str

    def lit(self, value: float) -> str:
        if self.name == "float":
            return f"{value!r}f"
        if self.name == "double":
            return repr(value)
        return f"__float2half({value!r}f)"

    def add(self, a: str, b: str) -> str:
        return f"__hadd({a}, {b})" if self.name == "__half" else f"{a} + {b}"

    def mul(self, a: str, b: str) -> str:
        return f"__hmul({a}, {b})" if self.name == "__half" else f"{a} * {b}"


def _read_ptr(rng: random.Random, t: str) -> str:
    return rng.choice([f"const {t} *", f"const {t} * __restrict__", f"{t} *",
                       f"const {t} *__restrict", f"{t} const *", f"const {t} *"])


def _write_ptr(rng: random.Random, t: str, allow_volatile: bool) -> str:
    kinds = [f"{t} *", f"{t} * __restrict__", f"{t} *__restrict", f"{t} *"]
    if allow_volatile:
        kinds.append(f"volatile {t} *")
    return rng.choice(kinds)


def _decl(ptype: str, name: str) -> str:
    return f"{ptype}{name}" if ptype.endswith("*") else f"{ptype} {name}"


class _Sequence:
    """One sequence: its kernels (text), launches and host statements."""

    def __init__(self, rng: random.Random, k: int, dtype: str):
        self.rng, self.k, self.t = rng, k, _Type(dtype)
        self.kernels: list[str] = []
        self.launches: list[str] = []
        self.two_d = rng.random() < 0.3
        self.w, self.h = rng.choice([(37, 29), (64, 16), (100, 7)]) if self.two_d else (0, 0)
        self.n = self.w * self.h if self.two_d else rng.choice([1000, 777, 4096, 3001])
        self.inputs = [f"s{k}_in{j}" for j in range(rng.randint(1, 3))]
        self.buffers = list(self.inputs)
        self.reduced: set[str] = set()
        self.block = rng.choice([128, 256, 64])

    # -- kernels -----------------------------------------------------------------------
    def add_kernel(self, j: int) -> None:
        rng = self.rng
        kinds = ["map", "map", "map_return", "update", "stencil", "helper", "template"]
        if self.t.name != "__half":
            kinds.append("reduce")
        if self.two_d:
            kinds = ["map2d", "map2d", "update2d"] + (["template"] if rng.random() < .3 else [])
        kind = rng.choice(kinds)
        name = f"s{self.k}_k{j}_{kind}"
        sources = [b for b in self.buffers if b not in self.reduced]
        a = rng.choice(sources)
        b = rng.choice(sources)
        if kind in ("update", "update2d"):
            out = rng.choice([x for x in self.buffers if x not in self.reduced])
        elif kind == "reduce":
            out = f"s{self.k}_r{j}"
        else:
            out = f"s{self.k}_t{j}"
        if out not in self.buffers:
            self.buffers.append(out)
        getattr(self, "_" + kind.removesuffix("2d") + ("2d" if kind.endswith("2d") else ""))(
            name, out, a, b)
        if kind == "reduce":
            self.reduced.add(out)

    def _params(self, out: str, ins: list[str], *, volatile: bool = True) -> tuple[str, list]:
        rng, t = self.rng, self.t.name
        params, args, seen = [], [], {}
        for buf in ins:
            if buf == out or buf in seen:
                continue
            seen[buf] = f"p{len(seen)}"
            params.append(_decl(_read_ptr(rng, t), seen[buf]))
            args.append(f"d_{buf}")
        params.append(_decl(_write_ptr(rng, t, volatile and t != '__half'), "q"))
        args.append(f"d_{out}")
        seen[out] = "q"
        return ", ".join(params), args, seen

    def _scalar(self) -> tuple[str, str]:
        value = self.rng.choice([0.5, 2.0, -1.5, 0.25])
        decl = self.rng.choice(["", "const "])
        return f"{decl}{self.t.name} alpha", self.t.lit(value)

    def _guard1d(self, body: str) -> str:
        if self.rng.random() < 0.5:
            return f"    if (i < n)\n        {body}\n"
        return f"    if (i >= n)\n        return;\n    {body}\n"

    def _emit(self, name: str, params: str, body: str, args: list[str], template: bool = False,
              block_param: bool = False):
        """One kernel and its launch; a ``template`` takes the element type as ``T`` and,
        with ``block_param``, the block size as the non-type parameter ``B``."""
        head = f"__global__ void {name}({params})"
        extra = ", int B" if block_param else ""
        if template:
            head = (f"template <typename T{extra}>\n"
                    f"__global__ void {name}({params.replace(self.t.name, 'T')})")
            body = body.replace(self.t.name, "T")
        self.kernels.append(f"{head}\n{{\n{body}}}\n")
        callee = name
        if template:
            callee = f"{name}<{self.t.name}{f', {self.block}' if block_param else ''}>"
        if self.two_d:
            shape = f"dim3((w{self.k} + 15) / 16, (h{self.k} + 7) / 8), dim3(16, 8)"
        else:
            shape = f"(n{self.k} + {self.block} - 1) / {self.block}, {self.block}"
        self.launches.append(f"    {callee}<<<{shape}>>>({', '.join(args)});")

    def _index1d(self) -> str:
        return "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"

    def _map(self, name, out, a, b):
        t = self.t
        scalar, value = self._scalar()
        params, args, p = self._params(out, [a, b])
        expr = t.add(t.mul("alpha", f"{p[a]}[i]"), f"{p[b]}[i]")
        body = self._index1d() + self._guard1d(f"q[i] = {expr};")
        self._emit(name, f"{params}, {scalar}, int n", body,
                   [*args, value, f"n{self.k}"])

    def _map_return(self, name, out, a, b):
        t = self.t
        params, args, p = self._params(out, [a])
        body = self._index1d() + f"    if (i >= n)\n        return;\n    q[i] = {t.mul(f'{p[a]}[i]', f'{p[a]}[i]')};\n"
        self._emit(name, f"{params}, const int n", body, [*args, f"n{self.k}"])

    def _update(self, name, out, a, b):
        t = self.t
        scalar, value = self._scalar()
        params, args, p = self._params(out, [a, out])
        other = f"{p[a]}[i]" if a != out else "q[i]"
        body = self._index1d() + self._guard1d(f"q[i] = {t.add(t.mul('q[i]', 'alpha'), other)};")
        self._emit(name, f"{params}, {scalar}, int n", body, [*args, value, f"n{self.k}"])

    def _stencil(self, name, out, a, b):
        t = self.t
        params, args, p = self._params(out, [a])
        s = f"{p[a]}"
        expr = t.add(t.add(f"{s}[i - 1]", f"{s}[i]"), f"{s}[i + 1]")
        body = self._index1d() + f"    if (i > 0 && i < n - 1)\n        q[i] = {expr};\n"
        self._emit(name, f"{params}, int n", body, [*args, f"n{self.k}"])

    def _reduce(self, name, out, a, b):
        params, args, p = self._params(out, [a], volatile=False)
        body = self._index1d() + f"    if (i < n)\n        atomicAdd(&q[0], {p[a]}[i]);\n"
        self._emit(name, f"{params}, int n", body, [*args, f"n{self.k}"])

    def _helper(self, name, out, a, b):
        t = self.t
        fn = f"{name}_f"
        ref = self.rng.choice([f"const {t.name} &", f"{t.name} const &"])
        self.kernels.append(f"__device__ {t.name} {fn}({ref}x, {ref}y)\n{{\n"
                            f"    return {t.add(t.mul('x', 'y'), 'x')};\n}}\n")
        params, args, p = self._params(out, [a, b])
        body = self._index1d() + self._guard1d(f"q[i] = {fn}({p[a]}[i], {p[b]}[i]);")
        self._emit(name, f"{params}, int n", body, [*args, f"n{self.k}"])

    def _template(self, name, out, a, b):
        t = self.t
        params, args, p = self._params(out, [a], volatile=False)
        if self.two_d:
            body = ("    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                    f"    if (x < w && y < h)\n        q[y * w + x] = {t.add(f'{p[a]}[y * w + x]', f'{p[a]}[y * w + x]')};\n")
            self._emit(name, f"{params}, int w, int h", body,
                       [*args, f"w{self.k}", f"h{self.k}"], template=True)
            return
        body = "    int i = blockIdx.x * B + threadIdx.x;\n" + \
            self._guard1d(f"q[i] = {t.add(f'{p[a]}[i]', f'{p[a]}[i]')};")
        self._emit(name, f"{params}, int n", body, [*args, f"n{self.k}"], template=True,
                   block_param=True)

    def _map2d(self, name, out, a, b):
        t = self.t
        scalar, value = self._scalar()
        params, args, p = self._params(out, [a, b])
        expr = t.add(t.mul("alpha", f"{p[a]}[y * w + x]"), f"{p[b]}[y * w + x]")
        body = ("    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                f"    if (x < w && y < h)\n        q[y * w + x] = {expr};\n")
        self._emit(name, f"{params}, {scalar}, int w, int h", body,
                   [*args, value, f"w{self.k}", f"h{self.k}"])

    def _update2d(self, name, out, a, b):
        t = self.t
        params, args, p = self._params(out, [a, out])
        other = f"{p[a]}[y * w + x]" if a != out else "q[y * w + x]"
        body = ("    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                "    if (x >= w || y >= h)\n        return;\n"
                f"    q[y * w + x] = {t.add('q[y * w + x]', other)};\n")
        self._emit(name, f"{params}, int w, int h", body, [*args, f"w{self.k}", f"h{self.k}"])

    # -- host code -----------------------------------------------------------------------
    def host(self) -> list[str]:
        k, t = self.k, self.t.name
        size = f"n{k} * sizeof({t})"
        lines = [f"    // sequence {k}: {len(self.launches)} launches on {t}"]
        if self.two_d:
            lines += [f"    const int w{k} = {self.w};", f"    const int h{k} = {self.h};",
                      f"    const int n{k} = w{k} * h{k};"]
        else:
            lines.append(f"    const int n{k} = {self.n};")
        for buf in self.buffers:
            lines.append(f"    {t} *h_{buf} = ({t} *)malloc({size});")
        for buf in self.inputs:
            lines += [f"    for (int i = 0; i < n{k}; ++i)",
                      f"        h_{buf}[i] = ({t})(0.25f * (float)(i % 13 - 6));"]
        lines.append(f"    {t} " + ", ".join(f"*d_{b}" for b in self.buffers) + ";")
        for buf in self.buffers:
            lines.append(f"    cudaMalloc((void **)&d_{buf}, {size});")
        for buf in self.inputs:
            lines.append(f"    cudaMemcpy(d_{buf}, h_{buf}, {size}, cudaMemcpyHostToDevice);")
        for buf in self.buffers[len(self.inputs):]:  # no kernel reads memory nobody wrote
            lines.append(f"    cudaMemset(d_{buf}, 0, {size});")
        lines += self.launches
        outputs = [b for b in self.buffers if b not in self.inputs] or self.buffers[:1]
        for buf in outputs:
            lines.append(f"    cudaMemcpy(h_{buf}, d_{buf}, {size}, cudaMemcpyDeviceToHost);")
        lines.append(f'    printf("sequence {k}: %g\\n", (double)(float)h_{outputs[-1]}[n{k} / 2]);')
        lines += [f"    cudaFree(d_{b});" for b in self.buffers]
        lines += [f"    free(h_{b});" for b in self.buffers]
        return lines


def generate(seed: int, sequences: int = 10, dtype: str | None = None) -> Program:
    """The program of ``seed``: ``sequences`` sequences of 2-4 launches; ``dtype`` fixes the
    element type of every sequence (else float, double or half at random, no half when the
    program must run on cpu devices)."""
    rng = random.Random(seed)
    seqs = []
    for k in range(sequences):
        seq = _Sequence(rng, k, dtype or rng.choice(TYPES[:2]))
        for j in range(rng.randint(2, 4)):
            seq.add_kernel(j)
        seqs.append(seq)
    kernels = "\n".join(text for s in seqs for text in s.kernels)
    body = [line for s in seqs for line in s.host()]
    runnable = all(s.t.name != "__half" for s in seqs)
    head = HEAD if runnable else HEAD + HALF
    source = (f"// generated by s2s.verify.fuse_gen, seed {seed}\n{head}\n{kernels}\n"
              "int main()\n{\n" + "\n".join(body) + "\n    return 0;\n}\n")
    return Program(seed, source, sequences, sum(len(s.launches) for s in seqs), runnable)
