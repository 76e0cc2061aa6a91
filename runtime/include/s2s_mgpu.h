/*
 * s2s_mgpu.h -- what a CUDA source rewritten by `s2s mgpu` includes.
 *
 * The rewrite (s2s/transform/mgpu.py) leaves kernels and host code as they
 * are and changes three things:
 *
 *   - `k<<<grid, block, shared, stream>>>(args)` becomes
 *     `s2s_mgpu_launch(k, grid, block, shared, stream)(args)`: the launcher
 *     converts the arguments to the kernel's parameter types (as a launch
 *     does), finds the kernel in this file's table and calls s2s_launch with
 *     the kernel's access model, so the runtime partitions the grid over its
 *     devices;
 *   - the CUDA runtime calls the file makes are redirected, by macros placed
 *     after its #includes, to functions here with the same signatures
 *     (cudaMalloc -> s2s_mgpu::Malloc, ...); the AST decides which names are
 *     redirected and refuses the file if it calls one not listed here;
 *   - the end of the file keeps its __FILE__ (s2s_mgpu_source_file) and
 *     includes its kernel table, generated beside it (k.cu.s2s_mgpu.h), which
 *     defines s2s_mgpu_this_unit(): the original source text (the runtime
 *     compiles the kernels from it for its backend), the directory of its
 *     quoted includes and, per kernel, the host stub's address, the name and
 *     the access model (JSON).
 *
 * Streams are serialised (every operation is ordered on the runtime, which is
 * a legal schedule of any stream program); events record host time.  The
 * program sees one device (cudaGetDeviceCount gives 1): the runtime spreads
 * that device over S2S_DEVICES devices of S2S_BACKEND.  Errors of the runtime
 * are printed to stderr once and returned as the cudaError_t CUDA gives for
 * them (cudaErrorMemoryAllocation for an allocation that cannot fit,
 * cudaErrorInvalidValue for a freed or out-of-range pointer, ... else
 * cudaErrorUnknown; kept until cudaGetLastError), so CUDA_CHECK-style macros
 * in the program report them; cudaGetErrorString gives the runtime's message.
 *
 * Needs the CUDA runtime's types (dim3, cudaError_t, ...): nvcc includes
 * cuda_runtime.h before any source.  C++11 or later.
 */
#ifndef S2S_MGPU_H
#define S2S_MGPU_H

/* C headers only: every rewritten file of a build compiles this header twice (host and
   device), and <chrono>, <tuple> and <vector> made the rewritten file's nvcc -c about 0.3 s
   slower (docs/benchmarks.md); events read CLOCK_MONOTONIC, the registry is a list */
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <time.h>

#include <cuda_runtime.h>
/* (declared before the prologue's #define cudaProfilerStart ...: a later include of it by the
   program is then a no-op, not a declaration of s2s_mgpu::ProfilerStart) */
#include <cuda_profiler_api.h>

#include "s2s_runtime.h"
#include "s2s_device_prop.h"

struct s2s_mgpu_kernel {
    const void *stub;          /* address of the kernel's host stub: what the launch names */
    const char *name;          /* the name the runtime knows the kernel by */
    const char *access_json;   /* its access model (runtime.access contract); NULL: none, every
                                  launch runs whole on one device */
};

struct s2s_mgpu_symbol {
    const void *address;       /* the host shadow of a __constant__/__device__ variable */
    const char *name;          /* its name in the kernels the runtime compiles */
};

struct s2s_mgpu_unit {
    const char *name;          /* the source file's name (messages, compile cache) */
    const char *include_dirs;  /* ':'-separated, for the source's quoted includes */
    const char *source;        /* the original source text */
    const char *flags;         /* the program's -D/-U/-I/-std flags, '\n'-separated */
    const char *instantiate;   /* template kernels launched, ';'-separated ("k<256>;k<512>") */
    const s2s_mgpu_kernel *kernels;
    int count;
    const s2s_mgpu_symbol *symbols;   /* the variables cudaMemcpyTo/FromSymbol name */
    int symbol_count;
};

/* defined by the kernel table the rewritten file includes at its end */
static const s2s_mgpu_unit &s2s_mgpu_this_unit();

namespace s2s_mgpu {

inline cudaError_t &sticky_error()
{
    static cudaError_t error = cudaSuccess;
    return error;
}

inline cudaError_t &last_code()
{
    static cudaError_t error = cudaSuccess;
    return error;
}

/* the cudaError_t of a runtime return code (the codes are cudaError_t values, enum s2s_error) */
inline cudaError_t to_cuda_error(int rc)
{
    switch (rc) {
    case S2S_SUCCESS: return cudaSuccess;
    case S2S_ERROR_INVALID_VALUE: return cudaErrorInvalidValue;
    case S2S_ERROR_MEMORY_ALLOCATION: return cudaErrorMemoryAllocation;
    case S2S_ERROR_INVALID_MEMCPY_DIRECTION: return cudaErrorInvalidMemcpyDirection;
    default: return cudaErrorUnknown;
    }
}

/* a runtime call failed: say why (the runtime's message), remember it, return its cudaError_t */
inline cudaError_t fail(const char *what, int rc = S2S_ERROR_UNKNOWN)
{
    std::fprintf(stderr, "s2s runtime: %s: %s\n", what, s2s_last_error());
    return sticky_error() = last_code() = to_cuda_error(rc);
}

inline cudaError_t check(int rc, const char *what) { return rc == 0 ? cudaSuccess : fail(what, rc); }

template <class T>
inline cudaError_t Malloc(T **ptr, size_t bytes)
{
    return check(s2s_malloc(reinterpret_cast<void **>(ptr), bytes), "cudaMalloc");
}

inline cudaError_t Free(void *ptr) { return ptr ? check(s2s_free(ptr), "cudaFree") : cudaSuccess; }

inline cudaError_t Memcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    return check(s2s_memcpy(dst, src, bytes, static_cast<int>(kind)), "cudaMemcpy");
}

inline cudaError_t MemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                               cudaStream_t = 0)
{
    return check(s2s_memcpy(dst, src, bytes, static_cast<int>(kind)), "cudaMemcpyAsync");
}

inline cudaError_t Memset(void *ptr, int value, size_t bytes)
{
    return check(s2s_memset(ptr, value, bytes), "cudaMemset");
}

inline cudaError_t MemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t = 0)
{
    return check(s2s_memset(ptr, value, bytes), "cudaMemsetAsync");
}

inline cudaError_t DeviceSynchronize() { return check(s2s_synchronize(), "cudaDeviceSynchronize"); }
inline cudaError_t DeviceReset() { return check(s2s_device_reset(), "cudaDeviceReset"); }

inline cudaError_t GetDeviceCount(int *count)
{
    *count = 1;                 /* one virtual device, spread over the runtime's devices */
    return cudaSuccess;
}

inline cudaError_t SetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

inline cudaError_t GetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

/* On cpu devices: documented values of a device of compute capability 7.0 with CUDA's limits
   (docs/mgpu.md), the same as the verify shim's, so a program that prints them prints the same
   before and after the rewrite. On the cuda backend: the first GPU's own name and properties. */
inline cudaError_t GetDeviceProperties(cudaDeviceProp *prop, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    std::memset(prop, 0, sizeof *prop);
    S2S_FILL_DEVICE_PROP(prop);
    long long values[S2S_DEVICE_PROP_COUNT];
    int own = 0;
    if (s2s_device_properties(prop->name, sizeof prop->name, values, S2S_DEVICE_PROP_COUNT, &own))
        return fail("cudaGetDeviceProperties");
    if (own)
        S2S_SET_DEVICE_PROP(prop, values);
    return cudaSuccess;
}

/* cudaProfilerStart/Stop: no profiler records the runtime's devices, nothing to bracket */
inline cudaError_t ProfilerStart() { return cudaSuccess; }
inline cudaError_t ProfilerStop() { return cudaSuccess; }

/* cudaDeviceGetAttribute: from the properties above (s2s_device_prop.h says which) */
inline cudaError_t DeviceGetAttribute(int *value, cudaDeviceAttr attribute, int device)
{
    cudaDeviceProp prop;
    cudaError_t status = GetDeviceProperties(&prop, device);
    if (status != cudaSuccess)
        return status;
    return s2s_device_attribute(prop, (int)attribute, value) ? cudaSuccess : cudaErrorInvalidValue;
}

/* cudaDeviceProp with the members CUDA 13 removed (clockRate, deviceOverlap ...), zero as the
   verify shim reports them: a file written for an older toolkit (one that s2s parsed against
   its own headers, warning cuda-toolkit-rejects) gets `#define cudaDeviceProp
   s2s_mgpu::LegacyDeviceProp` after this header, and builds with nvcc 13 as it did with 12. */
#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000
struct LegacyDeviceProp : cudaDeviceProp {
    int clockRate, deviceOverlap, kernelExecTimeoutEnabled, computeMode, maxTexture1DLinear;
    int memoryClockRate, singleToDoublePrecisionPerfRatio, cooperativeMultiDeviceLaunch;
};

inline cudaError_t GetDeviceProperties(LegacyDeviceProp *prop, int device)
{
    std::memset(prop, 0, sizeof *prop);
    return GetDeviceProperties(static_cast<cudaDeviceProp *>(prop), device);
}
#else
typedef cudaDeviceProp LegacyDeviceProp;
#endif

inline cudaError_t GetLastError()
{
    cudaError_t error = sticky_error();
    sticky_error() = cudaSuccess;
    return error;
}

inline cudaError_t PeekAtLastError() { return sticky_error(); }

inline const char *GetErrorString(cudaError_t error)
{
    if (error != cudaSuccess && error == last_code())      /* the runtime's own message */
        return s2s_last_error();
    return ::cudaGetErrorString(error);
}

inline const char *GetErrorName(cudaError_t error) { return ::cudaGetErrorName(error); }

/* ---- host memory: page-locking means nothing to the runtime ---- */
template <class T>
inline cudaError_t MallocHost(T **ptr, size_t bytes)
{
    *ptr = static_cast<T *>(std::malloc(bytes ? bytes : 1));
    return *ptr ? cudaSuccess : cudaErrorMemoryAllocation;
}

template <class T>
inline cudaError_t HostAlloc(T **ptr, size_t bytes, unsigned int = 0) { return MallocHost(ptr, bytes); }

inline cudaError_t FreeHost(void *ptr)
{
    std::free(ptr);
    return cudaSuccess;
}

/* cudaHostRegister pins memory the program allocated: the runtime copies from any host memory.
   Mapping (cudaHostRegisterMapped, then cudaHostGetDevicePointer) is not offered: the device
   properties say canMapHostMemory = 0, and s2s mgpu refuses cudaHostGetDevicePointer */
inline cudaError_t HostRegister(void *ptr, size_t, unsigned int = 0)
{
    return ptr ? cudaSuccess : cudaErrorInvalidValue;
}

inline cudaError_t HostUnregister(void *ptr) { return ptr ? cudaSuccess : cudaErrorInvalidValue; }

/* scheduling flags (spin, yield, blocking sync) are hints; the runtime's calls return when done */
inline unsigned int &device_flags()
{
    static unsigned int flags = 0;
    return flags;
}

inline cudaError_t SetDeviceFlags(unsigned int flags)
{
    device_flags() = flags;
    return cudaSuccess;
}

inline cudaError_t GetDeviceFlags(unsigned int *flags)
{
    *flags = device_flags();
    return cudaSuccess;
}

/* ---- streams (serialised) and events (host clock) ---- */
struct stream_tag { int unused; };
struct event_state { double at_ms; };   /* CLOCK_MONOTONIC, as steady_clock reads it */

inline double monotonic_ms()
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1e3 + now.tv_nsec * 1e-6;
}

inline cudaError_t StreamCreate(cudaStream_t *stream)
{
    *stream = reinterpret_cast<cudaStream_t>(new stream_tag());
    return cudaSuccess;
}

inline cudaError_t StreamCreateWithFlags(cudaStream_t *stream, unsigned int) { return StreamCreate(stream); }

inline cudaError_t StreamDestroy(cudaStream_t stream)
{
    delete reinterpret_cast<stream_tag *>(stream);
    return cudaSuccess;
}

inline cudaError_t StreamSynchronize(cudaStream_t) { return check(s2s_synchronize(), "cudaStreamSynchronize"); }

/* L1/shared-memory preferences are hints a device may ignore (CUDA says so); the runtime's
   devices take none, and the program goes on as with any device that ignores them */
template <class F>
inline cudaError_t FuncSetCacheConfig(F *, cudaFuncCache) { return cudaSuccess; }
inline cudaError_t FuncSetCacheConfig(const void *, cudaFuncCache) { return cudaSuccess; }
inline cudaError_t DeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
inline cudaError_t DeviceGetCacheConfig(cudaFuncCache *config)
{
    *config = cudaFuncCachePreferNone;
    return cudaSuccess;
}

inline cudaError_t EventCreate(cudaEvent_t *event)
{
    *event = reinterpret_cast<cudaEvent_t>(new event_state());
    return cudaSuccess;
}

inline cudaError_t EventCreateWithFlags(cudaEvent_t *event, unsigned int) { return EventCreate(event); }

inline cudaError_t EventRecord(cudaEvent_t event, cudaStream_t = 0)
{
    cudaError_t error = check(s2s_synchronize(), "cudaEventRecord");
    reinterpret_cast<event_state *>(event)->at_ms = monotonic_ms();
    return error;
}

inline cudaError_t EventSynchronize(cudaEvent_t) { return cudaSuccess; }

/* an event is recorded after the work before it has finished (EventRecord synchronises):
   asking whether it completed always says it has (cuda-samples' asyncAPI polls it) */
inline cudaError_t EventQuery(cudaEvent_t) { return cudaSuccess; }

inline cudaError_t EventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    *ms = static_cast<float>(reinterpret_cast<event_state *>(stop)->at_ms -
                             reinterpret_cast<event_state *>(start)->at_ms);
    return cudaSuccess;
}

inline cudaError_t EventDestroy(cudaEvent_t event)
{
    delete reinterpret_cast<event_state *>(event);
    return cudaSuccess;
}

/* ---- the program's rewritten files ----
   Each rewritten file registers its table at start-up, so a launch in one file of a kernel
   defined in another (separate compilation) finds the kernel, and the module to run it
   with, in the file that defines it. */
struct registered_unit {
    const s2s_mgpu_unit &(*unit)();
    int (*module)(s2s_module_t *);
    registered_unit *next;      /* the file registered after this one */
};

/* the first registered file; the list keeps the order of registration */
inline registered_unit *&registry()
{
    static registered_unit *first = NULL;
    return first;
}

inline int register_unit(const s2s_mgpu_unit &(*unit)(), int (*module)(s2s_module_t *))
{
    registered_unit **end = &registry();
    while (*end)
        end = &(*end)->next;
    *end = new registered_unit{unit, module, NULL};
    return 0;
}

/* ---- launches and symbols ---- */
namespace {

inline int unit_module(s2s_module_t *module);

/* the name of the variable at `address` in this file's symbol table (NULL if absent) */
inline const char *symbol_name(const void *address)
{
    const s2s_mgpu_unit &unit = s2s_mgpu_this_unit();
    for (int i = 0; i < unit.symbol_count; ++i)
        if (unit.symbols[i].address == address)
            return unit.symbols[i].name;
    return NULL;
}

inline cudaError_t copy_symbol(const void *symbol, void *ptr, size_t bytes, size_t offset, int to_symbol,
                               const char *what)
{
    const char *name = symbol_name(symbol);
    s2s_module_t module;
    if (!name) {
        std::fprintf(stderr, "s2s runtime: %s of a variable that is not in this file's table\n", what);
        return sticky_error() = last_code() = cudaErrorInvalidSymbol;
    }
    if (unit_module(&module) != 0)
        return sticky_error() = cudaErrorUnknown;
    return check(s2s_memcpy_symbol(module, name, ptr, bytes, offset, to_symbol), what);
}

}  // namespace

template <class T>
inline cudaError_t MemcpyToSymbol(const T &symbol, const void *src, size_t bytes, size_t offset = 0,
                                  cudaMemcpyKind = cudaMemcpyHostToDevice)
{
    return copy_symbol(&symbol, const_cast<void *>(src), bytes, offset, 1, "cudaMemcpyToSymbol");
}

template <class T>
inline cudaError_t MemcpyFromSymbol(void *dst, const T &symbol, size_t bytes, size_t offset = 0,
                                    cudaMemcpyKind = cudaMemcpyDeviceToHost)
{
    return copy_symbol(&symbol, dst, bytes, offset, 0, "cudaMemcpyFromSymbol");
}

template <class T>
inline cudaError_t MemcpyToSymbolAsync(const T &symbol, const void *src, size_t bytes, size_t offset = 0,
                                       cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = 0)
{
    return MemcpyToSymbol(symbol, src, bytes, offset, kind);
}

template <class T>
inline cudaError_t MemcpyFromSymbolAsync(void *dst, const T &symbol, size_t bytes, size_t offset = 0,
                                         cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t = 0)
{
    return MemcpyFromSymbol(dst, symbol, bytes, offset, kind);
}

namespace {

/* the module of this file's kernels, loaded (and given the access models) at the first launch */
inline int unit_module(s2s_module_t *module)
{
    static int state = 0;            /* 0: not tried, 1: loaded, -1: failed */
    static s2s_module_t loaded = 0;
    if (state == 0) {
        const s2s_mgpu_unit &unit = s2s_mgpu_this_unit();
        state = -1;
        if (s2s_module_load_source_flags(&loaded, unit.name, unit.source, unit.instantiate, unit.include_dirs,
                                         unit.flags) != 0) {
            /* no kernel can run: going on would print results no kernel computed */
            fail("loading the kernels");
            std::exit(EXIT_FAILURE);
        }
        for (int i = 0; i < unit.count; ++i)
            if (unit.kernels[i].access_json && s2s_set_access(loaded, unit.kernels[i].name, unit.kernels[i].access_json) != 0) {
                fail(unit.kernels[i].name);
                std::exit(EXIT_FAILURE);
            }
        state = 1;
    }
    *module = loaded;
    return state == 1 ? 0 : -1;
}

inline const char *kernel_name(const void *stub)
{
    const s2s_mgpu_unit &unit = s2s_mgpu_this_unit();
    for (int i = 0; i < unit.count; ++i)
        if (unit.kernels[i].stub == stub)
            return unit.kernels[i].name;
    return NULL;
}

inline s2s_dim3 to_dim3(dim3 d)
{
    s2s_dim3 out = {d.x, d.y, d.z};
    return out;
}

template <typename... P>
struct launcher {
    const void *stub;
    dim3 grid, block;
    size_t shared;

    /* the arguments converted to the kernel's parameter types by the call, as a launch
       converts them (copy-initialised), each then a local with an address */
    cudaError_t operator()(P... args) const
    {
        void *argv[sizeof...(P) + 1] = {static_cast<void *>(&args)...};
        const char *name = kernel_name(stub);
        int (*load)(s2s_module_t *) = unit_module;
        for (registered_unit *u = registry(); !name && u; u = u->next) {   /* defined in another file */
            const s2s_mgpu_unit &other = u->unit();
            for (int i = 0; !name && i < other.count; ++i)
                if (other.kernels[i].stub == stub) {
                    name = other.kernels[i].name;
                    load = u->module;
                }
        }
        s2s_module_t module;
        if (!name) {
            /* no rewritten file defines it: running nothing and going on would be wrong silently */
            std::fprintf(stderr, "s2s runtime: launch of a kernel that no file rewritten by s2s mgpu "
                                 "defines (rewrite the file that defines it too)\n");
            std::exit(EXIT_FAILURE);
        }
        if (load(&module) != 0)
            return sticky_error() = cudaErrorUnknown;
        return check(s2s_launch(module, name, to_dim3(grid), to_dim3(block), shared, argv), name);
    }
};

}  // namespace

}  // namespace s2s_mgpu

/* k<<<grid, block, shared, stream>>>(args) -> s2s_mgpu_launch(k, grid, block, shared, stream)(args) */
template <typename... P>
static s2s_mgpu::launcher<P...> s2s_mgpu_launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t shared = 0,
                                                cudaStream_t = 0)
{
    s2s_mgpu::launcher<P...> out = {reinterpret_cast<const void *>(kernel), grid, block, shared};
    return out;
}

#endif
