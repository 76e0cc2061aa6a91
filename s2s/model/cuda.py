"""What the front end finds in CUDA code: kernels, launch sites and runtime API calls."""

from __future__ import annotations

from dataclasses import dataclass

from s2s.model.span import Expr, SourceSpan


@dataclass(frozen=True, slots=True)
class Param:
    """A function parameter with the qualifiers that access analysis cares about."""

    name: str
    type: str
    span: SourceSpan
    is_pointer: bool = False
    pointee_const: bool = False
    restrict: bool = False
    #: a reference to a ``std::vector`` (host functions): the caller's vector, whose
    #: element count ``name.size()`` the function can name (omp.plan's callee roots)
    vector: bool = False
    #: a record passed by value: byte offsets of the pointers it holds (s2s/frontend/cuda/
    #: held_pointers.py); the runtime translates the device pointers among them per device
    held_pointers: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class BuiltinUse:
    """One use of threadIdx / blockIdx / blockDim / gridDim (or warpSize) and its component."""

    var: str
    component: str
    span: SourceSpan


@dataclass(frozen=True, slots=True)
class SharedArray:
    """A ``__shared__`` (or ``extern __shared__``) array declared in a kernel or device function."""

    name: str
    element_type: str
    dims: tuple[str, ...]
    extern: bool
    span: SourceSpan


@dataclass(frozen=True, slots=True)
class DeviceCall:
    """A call made from device code, classified so later passes need not re-parse names.

    ``category`` is one of ``syncthreads``, ``atomic``, ``warp``, ``fence``, ``math``,
    ``device_function`` or ``other``.
    """

    name: str
    category: str
    args: tuple[Expr, ...]
    span: SourceSpan


@dataclass(frozen=True, slots=True)
class Kernel:
    """A ``__global__`` function (or a ``__device__`` function when ``is_global`` is False)."""

    name: str
    span: SourceSpan
    params: tuple[Param, ...]
    body_span: SourceSpan | None
    is_global: bool = True
    template_params: tuple[str, ...] = ()
    #: each template parameter's declaration as written (``typename T``, ``int BLOCK = 256``):
    #: ``s2s fuse`` declares its stage of an instantiation with the same parameter list
    template_decls: tuple[str, ...] = ()
    builtins: tuple[BuiltinUse, ...] = ()
    shared_arrays: tuple[SharedArray, ...] = ()
    calls: tuple[DeviceCall, ...] = ()
    side: str = "host"

    @property
    def is_template(self) -> bool:
        return bool(self.template_params)

    @property
    def held_pointer_table(self) -> dict[str, list[int]]:
        """``{"parameter index": [byte offsets]}`` of the by-value parameters that hold
        pointers (``Param.held_pointers``), as the runtime's ``s2s_set_access`` takes them."""
        return {str(i): list(p.held_pointers) for i, p in enumerate(self.params)
                if p.held_pointers}

    @property
    def syncthreads(self) -> tuple[DeviceCall, ...]:
        return tuple(c for c in self.calls if c.category == "syncthreads")

    @property
    def atomics(self) -> tuple[DeviceCall, ...]:
        return tuple(c for c in self.calls if c.category == "atomic")

    @property
    def warp_intrinsics(self) -> tuple[DeviceCall, ...]:
        return tuple(c for c in self.calls if c.category == "warp")

    @property
    def device_functions_called(self) -> tuple[str, ...]:
        names = (c.name for c in self.calls if c.category == "device_function")
        return tuple(dict.fromkeys(names))


@dataclass(frozen=True, slots=True)
class Launch:
    """A ``kernel<<<grid, block, shared, stream>>>(args)`` site in host code.

    ``config_span`` covers exactly the ``<<<...>>>`` text; ``shared_bytes`` and ``stream`` are
    None when omitted. ``function`` is the enclosing host function.
    """

    kernel: str
    span: SourceSpan
    config_span: SourceSpan
    grid: Expr
    block: Expr
    shared_bytes: Expr | None
    stream: Expr | None
    args: tuple[Expr, ...]
    function: str
    template_args: str | None = None
    #: the template arguments the compiler deduced when none are written (``k<<<g, b>>>(fp, n)``
    #: of ``template <typename T> __global__ void k(T *, int)``: 'float'); None when written
    #: out, not a template, or dependent (inside a template)
    deduced_args: str | None = None
    #: inside a function template: the kernel instantiations the file's instantiations of that
    #: template make this launch run ('double', 'float'), s2s/frontend/cuda/templates.py;
    #: ``deduced_args`` is then the deduced arguments in the template's terms ('T')
    instances: tuple[str, ...] = ()
    #: the arguments of the specialization libclang resolved the launch to, written out or
    #: deduced, defaults included ('float, 128'); None when the kernel is no template or the
    #: launch is dependent (inside a template)
    resolved_args: str | None = None
    #: that specialization's parameter types ('float *', 'float', 'int'); () when unresolved
    instance_types: tuple[str, ...] = ()
    #: the launch is the whole call of a function-like macro whose body is one launch and
    #: nothing else (``LAUNCH(k, g, b, x, n)`` of ``#define LAUNCH(k, g, b, ...)
    #: k<<<g, b>>>(__VA_ARGS__)``): its texts come from the expansion, and a rewrite may replace
    #: the call's text (``span``) by the rewritten launch
    forwarded: bool = False
    #: the whole call of a function-like macro that does more than the launch and whose
    #: body's launch names only the macro's parameters (``#define LAUNCH_CHECK(k, g, b, ...)
    #: do { k<<<g, b>>>(__VA_ARGS__); check(#k); } while (0)``): the body's text before and
    #: after the launch with the call's arguments in place of the parameters
    #: (s2s/frontend/cuda/macro_frame.py); a rewrite may replace the call's text (``span``)
    #: by these around the rewritten launch. None otherwise.
    macro_frame: tuple[str, str] | None = None
    #: for such a macro call without a frame: why the call cannot be replaced ('' otherwise)
    macro_why: str = ""
    #: a launch through a local function pointer (``kernel<<<g, b>>>(...)`` after ``kernel =
    #: &transposeNaive``; ``kernel`` is then the pointer's name): the functions it can hold,
    #: sorted, when the file shows every value it is given (s2s/frontend/host/callees.py);
    #: () for a launch of a named kernel or through a pointer that may hold anything
    targets: tuple[str, ...] = ()
    #: the callee is a variable, parameter or member holding a function pointer, not a
    #: kernel's name (``targets`` lists what it can hold where the file shows that)
    through_pointer: bool = False


@dataclass(frozen=True, slots=True)
class ApiCall:
    """A CUDA runtime API call (cudaMalloc, cudaMemcpy, ...) in host code.

    ``category`` is one of ``alloc``, ``free``, ``memcpy``, ``memset``, ``sync``, ``stream``,
    ``event``, ``device``, ``error`` or ``other``.
    """

    name: str
    category: str
    args: tuple[Expr, ...]
    span: SourceSpan
    function: str
