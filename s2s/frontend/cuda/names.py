"""Names of the CUDA language and runtime the front end classifies: builtin variables, the
launch configuration calls, attribute macros, device call categories (barriers, atomics, warp
operations, math) and CUDA runtime API categories."""

from __future__ import annotations

import re

BUILTIN_VARS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim"})
#: The hidden call clang builds for ``<<<...>>>`` (``cudaConfigureCall`` before CUDA 9.2).
CONFIG_CALLS = frozenset({"__cudaPushCallConfiguration", "cudaConfigureCall"})
#: Qualifier macros that only ever start declarations outside statements: no cursor hides there.
ATTRIBUTE_MACROS = frozenset({"__global__", "__device__", "__host__", "__forceinline__",
                              "__noinline__", "__restrict__", "__launch_bounds__", "__constant__",
                              "__managed__", "__align__", "__inline__"})
ARRAY_KINDS = frozenset({"CONSTANTARRAY", "INCOMPLETEARRAY", "VARIABLEARRAY",
                         "DEPENDENTSIZEDARRAY"})
TEMPLATE_PARAM_KINDS = frozenset({"TEMPLATE_TYPE_PARAMETER", "TEMPLATE_NON_TYPE_PARAMETER",
                                  "TEMPLATE_TEMPLATE_PARAMETER"})

# --- device call categories -------------------------------------------------------------

SYNC_CALLS = frozenset({"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                        "__syncthreads_or", "__syncwarp"})
_ATOMIC_OPS = ("Add", "Sub", "Min", "Max", "Exch", "CAS", "Inc", "Dec", "And", "Or", "Xor")
ATOMIC_CALLS = frozenset(f"atomic{op}{scope}" for op in _ATOMIC_OPS
                         for scope in ("", "_block", "_system"))
WARP_CALLS = frozenset({"__ballot_sync", "__any_sync", "__all_sync", "__uni_sync",
                        "__activemask", "__ballot", "__any", "__all"})
_MATH_BASES = (
    "acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi cyl_bessel_i0 "
    "cyl_bessel_i1 erf erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fabs fdim floor fma "
    "fmax fmin fmod frexp hypot ilogb j0 j1 jn ldexp lgamma llrint llround log log10 log1p "
    "log2 logb lrint lround modf nan nearbyint nextafter norm norm3d norm4d normcdf "
    "normcdfinv pow rcbrt remainder remquo rhypot rint rnorm rnorm3d rnorm4d round rsqrt "
    "scalbln scalbn sin sincos sincospi sinh sinpi sqrt tan tanh tgamma trunc y0 y1 yn").split()
MATH_CALLS = frozenset(
    [*_MATH_BASES, *(b + "f" for b in _MATH_BASES)]
    + ("abs labs llabs min max umin umax llmin llmax ullmin ullmax isnan isinf isfinite "
       "signbit __expf __exp10f __logf __log2f __log10f __sinf __cosf __tanf __powf "
       "__sincosf __fdividef __fdivide __saturatef __frsqrt_rn __popc __popcll __clz __clzll "
       "__ffs __ffsll __brev __brevll __byte_perm __mul24 __umul24 __mulhi __umulhi "
       "__mul64hi __umul64hi __sad __usad __hadd __rhadd __uhadd __urhadd __funnelshift_l "
       "__funnelshift_lc __funnelshift_r __funnelshift_rc __fns").split())
#: Correctly rounded arithmetic and conversion intrinsics (__fadd_rn, __float2int_rz, ...).
MATH_PATTERN = re.compile(r"__(?:[fd](?:add|sub|mul|div|rcp|sqrt|fma|fmaf)|fmaf?|frcp|fsqrt|"
                          r"[a-z0-9]+2[a-z0-9]+)_r[nzud]$|__(?:float|double|int|uint|ll|ull|"
                          r"half|float2half|half2float)\w*2\w+$")
#: Headers whose functions are the math library; other CUDA-header functions are ``other``.
MATH_HEADERS = frozenset({
    "__clang_cuda_math.h", "__clang_cuda_cmath.h", "__clang_cuda_math_forward_declares.h",
    "__clang_cuda_device_functions.h", "__clang_cuda_libdevice_declares.h",
    "math_functions.h", "math_functions.hpp", "device_functions.h", "device_functions.hpp",
    "cmath", "math.h", "mathcalls.h", "std_abs.h", "cuda_fp16.hpp", "cuda_bf16.hpp",
    "cuda_fp16.h", "cuda_bf16.h", "sm_20_intrinsics.h", "sm_20_intrinsics.hpp"})
NOT_MATH = frozenset({"__trap", "__brkpt", "__nanosleep", "__prof_trigger", "clock",
                      "clock64", "printf", "malloc", "free", "memcpy", "memset", "assert",
                      "__assertfail", "__ldg"})


def device_call_category(name: str, user_device: bool = False) -> str:
    """Category of a call made in device code (``user_device``: a user ``__device__`` function).

    The fixed tables win over user definitions: a user ``atomicAdd(double*, double)`` written
    for old GPUs is still an atomic.
    """
    if name in SYNC_CALLS:
        return "syncthreads"
    if name in ATOMIC_CALLS:
        return "atomic"
    if name in WARP_CALLS or (name.startswith("__shfl")) or name.startswith("__match") or (
            name.startswith("__reduce") and name.endswith("_sync")):
        return "warp"
    if name.startswith("__threadfence"):
        return "fence"
    if user_device:
        return "device_function"
    if name in MATH_CALLS or MATH_PATTERN.match(name):
        return "math"
    return "other"


# --- runtime API categories -------------------------------------------------------------

API_CATEGORIES = {
    "alloc": "cudaMalloc cudaMallocManaged cudaMallocHost cudaHostAlloc cudaMallocPitch "
             "cudaMalloc3D cudaMallocAsync cudaMallocArray cudaMalloc3DArray "
             "cudaMallocFromPoolAsync cudaMallocMipmappedArray",
    "free": "cudaFree cudaFreeHost cudaFreeAsync cudaFreeArray cudaFreeMipmappedArray",
    "memcpy": "cudaMemcpy cudaMemcpyAsync cudaMemcpy2D cudaMemcpy2DAsync cudaMemcpy3D "
              "cudaMemcpy3DAsync cudaMemcpyToSymbol cudaMemcpyToSymbolAsync "
              "cudaMemcpyFromSymbol cudaMemcpyFromSymbolAsync cudaMemcpyPeer "
              "cudaMemcpyPeerAsync cudaMemcpy3DPeer cudaMemcpy3DPeerAsync cudaMemPrefetchAsync "
              "cudaMemcpyToArray cudaMemcpyFromArray cudaMemcpy2DToArray cudaMemcpy2DFromArray "
              "cudaMemcpy2DToArrayAsync cudaMemcpy2DFromArrayAsync cudaMemcpyBatchAsync",
    "memset": "cudaMemset cudaMemsetAsync cudaMemset2D cudaMemset2DAsync cudaMemset3D "
              "cudaMemset3DAsync",
    "sync": "cudaDeviceSynchronize cudaStreamSynchronize cudaEventSynchronize "
            "cudaThreadSynchronize cudaStreamWaitEvent",
    "device": "cudaSetDevice cudaGetDevice cudaGetDeviceCount cudaGetDeviceProperties "
              "cudaDeviceReset cudaThreadExit cudaSetDeviceFlags cudaGetDeviceFlags "
              "cudaChooseDevice cudaMemGetInfo cudaDriverGetVersion cudaRuntimeGetVersion "
              "cudaInitDevice",
    "error": "cudaGetLastError cudaPeekAtLastError cudaGetErrorString cudaGetErrorName",
    "launch": "cudaLaunchKernel cudaLaunchCooperativeKernel cudaLaunchKernelEx "
              "cudaLaunchCooperativeKernelMultiDevice",
}
API_CATEGORY = {name: cat for cat, names in API_CATEGORIES.items() for name in names.split()}


def api_category(name: str) -> str:
    """Category of a CUDA runtime function (``other`` when not one of the known families)."""
    category = API_CATEGORY.get(name)
    if category is not None:
        return category
    if name.startswith("cudaStream") or name == "cudaLaunchHostFunc":
        return "stream"
    if name.startswith("cudaEvent"):
        return "event"
    if name.startswith("cudaDevice"):
        return "device"
    return "other"
