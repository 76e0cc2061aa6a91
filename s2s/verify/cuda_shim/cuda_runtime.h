/*
 * cuda_runtime.h -- a stand-in for the CUDA runtime API that runs a CUDA host program on the
 * s2s runtime (runtime/include/s2s_runtime.h), e.g. on its emulated cpu devices.
 *
 * The host program is compiled by a C++ compiler with this directory first on the include
 * path; s2s.verify.cuda_host has replaced every launch `k<<<g, b, s>>>(args)` by
 * `s2s_shim::launcher<decltype(k)>::launch("k", g, b, s, args)` and blanked the kernel bodies
 * (the runtime compiles the kernels from the file named by S2S_SHIM_KERNELS).
 *
 * Counts of the calls made (cudaMalloc, cudaMemcpy, cudaFree, launches) and the bytes copied
 * are written at exit to the file named by the environment variable S2S_SHIM_COUNTS, if set.
 *
 * Streams are serialised (every operation runs in program order, a legal schedule of any
 * stream program) and events read the host clock, as in runtime/include/s2s_mgpu.h; pinned host
 * memory is plain malloc.  The program sees one device.  Vector types (float4 ...) come from
 * the runtime's cpu headers, so host and emulated kernels agree on their layout.
 */
#ifndef S2S_CUDA_SHIM_H
#define S2S_CUDA_SHIM_H

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

/* what nvcc's implicit include of the CUDA runtime header brings into every host file: host
   code calls sqrt, ceil, malloc or memcpy without including their headers and builds */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "s2s_device_prop.h"
#include "s2s_device_attr.h"
#include "s2s_runtime.h"
#include "s2s_vector_types.h"

#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __forceinline__ inline
#define __launch_bounds__(...)
/* nvcc's alignment of a struct (cuda-samples' alignedTypes: `typedef struct __align__(16)`),
   as the cpu backend spells it (runtime/cpu/include/s2s_simt.h) */
#define __align__(n) alignas(n)

/* the toolkit's include guards: programs test them (cuda-samples' helper_cuda.h defines
   checkCudaErrors under #ifdef __DRIVER_TYPES_H__) */
#define __DRIVER_TYPES_H__
#define __CUDA_RUNTIME_H__
enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
                 cudaErrorNotReady = 600,
                 cudaErrorInvalidDevice = 101, cudaErrorInvalidSymbol = 13, cudaErrorUnknown = 999 };
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1,
                     cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3 };
typedef struct s2s_shim_stream *cudaStream_t;
typedef struct s2s_shim_event *cudaEvent_t;
struct s2s_shim_stream { int unused; };
struct s2s_shim_event { std::chrono::steady_clock::time_point at; };
/* the flag constants (one home: runtime/include, on this compile's -I path) */
#include "s2s_cuda_flags.h"

/* the fields of CUDA 13's cudaDeviceProp that s2s_device_prop.h fills, plus common ones (zero),
   plus those CUDA 13 removed that older programs print (zero: the original builds as nvcc 12
   built it; s2s's parse headers declare them too) */
struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem, sharedMemPerBlock;
    int regsPerBlock, warpSize;
    size_t memPitch;
    int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
    size_t totalConstMem;
    int major, minor;
    size_t textureAlignment;
    int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory;
    int computeMode, concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, asyncEngineCount;
    int unifiedAddressing, memoryBusWidth, l2CacheSize, maxThreadsPerMultiProcessor;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor, managedMemory, isMultiGpuBoard;
    int clockRate, memoryClockRate, maxTexture1DLinear, singleToDoublePrecisionPerfRatio;
    int cooperativeMultiDeviceLaunch;
};

namespace s2s_shim {

struct Counts {
    long mallocs = 0, memcpys = 0, frees = 0, launches = 0, memsets = 0;
    size_t h2d_bytes = 0, d2h_bytes = 0;
    ~Counts() {
        const char *path = std::getenv("S2S_SHIM_COUNTS");
        if (!path) return;
        if (FILE *out = std::fopen(path, "w")) {
            std::fprintf(out, "cudaMalloc %ld\ncudaMemcpy %ld\ncudaFree %ld\nlaunch %ld\ncudaMemset %ld\n"
                         "h2d_bytes %zu\nd2h_bytes %zu\n", mallocs, memcpys, frees, launches, memsets,
                         h2d_bytes, d2h_bytes);
            std::fclose(out);
        }
    }
};

inline Counts &counts() { static Counts c; return c; }
inline cudaError_t &last_error() { static cudaError_t e = cudaSuccess; return e; }

inline cudaError_t check(int rc) {
    if (rc == 0) return cudaSuccess;
    std::fprintf(stderr, "s2s-shim: %s\n", s2s_last_error());
    return last_error() = cudaErrorUnknown;
}

#ifndef S2S_SHIM_INCLUDE_DIRS
#define S2S_SHIM_INCLUDE_DIRS ""   /* ':'-separated directories of the kernels' quoted includes */
#endif
#ifndef S2S_SHIM_INSTANTIATE
#define S2S_SHIM_INSTANTIATE NULL  /* ';'-separated template kernels the program launches */
#endif
#ifndef S2S_SHIM_NAME
#define S2S_SHIM_NAME S2S_SHIM_KERNELS
#endif
#ifndef S2S_SHIM_OWN_KERNELS
#define S2S_SHIM_OWN_KERNELS ""     /* ';'-separated kernels this unit defines */
#endif

/* Which unit's module holds a kernel, for launches of kernels another .cu file of the program
   defines (separate compilation): each unit registers its own kernels at start-up; one table for
   the whole program (an inline function's static). */
typedef s2s_module_t (*module_loader)();

inline std::map<std::string, module_loader> &kernel_owners() {
    static std::map<std::string, module_loader> owners;
    return owners;
}

inline int register_kernels(const char *names, module_loader load) {
    std::string all(names);
    for (size_t at = 0; at <= all.size();) {
        size_t end = all.find(';', at);
        if (end == std::string::npos) end = all.size();
        if (end > at) kernel_owners()[all.substr(at, end - at)] = load;
        at = end + 1;
    }
    return 0;
}

inline module_loader owner(const char *name) {
    auto found = kernel_owners().find(name);
    if (found == kernel_owners().end()) {
        std::fprintf(stderr, "s2s-shim: kernel '%s' is defined in no .cu file of the program\n", name);
        std::exit(3);
    }
    return found->second;
}

/* One translation unit's own kernels: in a program of several .cu files each host unit is
   built with its own S2S_SHIM_KERNELS, so what reads them lives in an unnamed namespace
   (one copy per unit; an inline function would be one for the whole program). */
namespace {

/* the kernels: the whole .cu text (the runtime blanks its host code), read once */
s2s_module_t module() {
    static s2s_module_t loaded = -1;
    if (loaded >= 0) return loaded;
    std::string text;
    if (FILE *in = std::fopen(S2S_SHIM_KERNELS, "rb")) {
        char chunk[65536];
        for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, in)) > 0;) text.append(chunk, n);
        std::fclose(in);
    } else {
        std::fprintf(stderr, "s2s-shim: cannot read the kernels from %s\n", S2S_SHIM_KERNELS);
        std::exit(3);
    }
    if (s2s_module_load_source_dirs(&loaded, S2S_SHIM_NAME, text.c_str(), S2S_SHIM_INSTANTIATE,
                                    S2S_SHIM_INCLUDE_DIRS) != 0) {
        std::fprintf(stderr, "s2s-shim: cannot load the kernels: %s\n", s2s_last_error());
        std::exit(3);
    }
    return loaded;
}

const int registered = register_kernels(S2S_SHIM_OWN_KERNELS, &module);

/* kernels launched inside function templates: the launch names its instantiation by the
   kernel's name and function type; the host unit registers the instantiations its call chains
   make (s2s/verify/cuda_host.py) */
std::map<std::pair<std::string, std::string>, std::string> &instances() {
    static std::map<std::pair<std::string, std::string>, std::string> table;
    return table;
}

bool instance(const char *kernel, const std::type_info &type, const char *name) {
    instances()[{kernel, type.name()}] = name;
    return true;
}

const char *instance_name(const char *kernel, const std::type_info &type) {
    auto found = instances().find({kernel, type.name()});
    if (found == instances().end()) {
        std::fprintf(stderr, "s2s-shim: no instantiation of %s of this type was registered\n",
                     kernel);
        std::exit(3);
    }
    return found->second.c_str();
}

/* kernels whose by-value parameters hold pointers (a struct with `float *elements`): the byte
   offsets, from the s2s model's layout, as s2s_set_access's held_pointers; sent once per module
   before the kernel's first launch so the runtime translates the device pointers they hold */
std::map<std::string, std::string> &held_table() {
    static std::map<std::string, std::string> table;
    return table;
}

bool held(const char *kernel, const char *json) {
    held_table()[kernel] = json;
    return true;
}

cudaError_t send_held(s2s_module_t module, const char *name) {
    auto found = held_table().find(name);
    if (found == held_table().end()) return cudaSuccess;
    static std::map<std::pair<s2s_module_t, std::string>, bool> sent;
    if (sent[{module, found->first}]) return cudaSuccess;
    sent[{module, found->first}] = true;
    return check(s2s_set_access(module, name, found->second.c_str()));
}

template <class F> struct launcher;

template <class... P> struct launcher<void(P...)> {
    template <class... A>
    static cudaError_t launch(const char *name, dim3 grid, dim3 block, size_t shared, A &&...args) {
        return launch_in(&module, name, grid, block, shared, std::forward<A>(args)...);
    }

    /* a kernel of another .cu file: in the module of the unit that registered it */
    template <class... A>
    static cudaError_t launch_in(module_loader load, const char *name, dim3 grid, dim3 block,
                                 size_t shared, A &&...args) {
        static_assert(sizeof...(A) == sizeof...(P), "kernel argument count");
        std::tuple<typename std::decay<P>::type..., int> values(
            static_cast<typename std::decay<P>::type>(std::forward<A>(args))..., 0);
        return go(load, name, grid, block, shared, values, std::index_sequence_for<P...>{});
    }

    template <class T, size_t... I>
    static cudaError_t go(module_loader load, const char *name, dim3 grid, dim3 block,
                          size_t shared, T &values, std::index_sequence<I...>) {
        void *pointers[] = {static_cast<void *>(&std::get<I>(values))..., nullptr};
        counts().launches++;
        s2s_dim3 g = {grid.x, grid.y, grid.z}, b = {block.x, block.y, block.z};
        if (send_held(load(), name) != cudaSuccess) return last_error();
        return check(s2s_launch(load(), name, g, b, shared, pointers));
    }
};

}  // namespace

}  // namespace s2s_shim

inline cudaError_t cudaMalloc(void **ptr, size_t bytes) {
    s2s_shim::counts().mallocs++;
    return s2s_shim::check(s2s_malloc(ptr, bytes));
}
template <class T> inline cudaError_t cudaMalloc(T **ptr, size_t bytes) {
    return cudaMalloc(reinterpret_cast<void **>(ptr), bytes);
}
inline cudaError_t cudaFree(void *ptr) {
    s2s_shim::counts().frees++;
    return s2s_shim::check(s2s_free(ptr));
}
inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
    s2s_shim::Counts &c = s2s_shim::counts();
    c.memcpys++;
    if (kind == cudaMemcpyHostToDevice) c.h2d_bytes += bytes;
    if (kind == cudaMemcpyDeviceToHost) c.d2h_bytes += bytes;
    return s2s_shim::check(s2s_memcpy(dst, src, bytes, static_cast<int>(kind)));
}
inline cudaError_t cudaMemset(void *ptr, int value, size_t bytes) {
    s2s_shim::counts().memsets++;
    return s2s_shim::check(s2s_memset(ptr, value, bytes));
}
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                                   cudaStream_t = 0) {
    return cudaMemcpy(dst, src, bytes, kind);
}
inline cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t = 0) {
    return cudaMemset(ptr, value, bytes);
}
inline cudaError_t cudaDeviceSynchronize() { return s2s_shim::check(s2s_synchronize()); }
inline cudaError_t cudaGetDeviceCount(int *count) { *count = 1; return cudaSuccess; }
inline cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
inline cudaError_t cudaGetDevice(int *device) { *device = 0; return cudaSuccess; }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
    if (device != 0) return cudaErrorInvalidDevice;
    std::memset(prop, 0, sizeof *prop);
    S2S_FILL_DEVICE_PROP(prop);
    return cudaSuccess;
}
/* min()/max() for host code, as nvcc's math_functions.hpp declares them __host__ __device__
   (cuda-samples' transpose and simpleStreams call them without std::); s2s's parse has the
   same set (s2s/frontend/shim/nvcc_compat.h) */
#define S2S_SHIM_MINMAX(R, A, B)                                                              \
    static inline R min(const A a, const B b) { return (R)a < (R)b ? (R)a : (R)b; }          \
    static inline R max(const A a, const B b) { return (R)a < (R)b ? (R)b : (R)a; }
S2S_SHIM_MINMAX(int, int, int)
S2S_SHIM_MINMAX(unsigned int, unsigned int, unsigned int)
S2S_SHIM_MINMAX(unsigned int, int, unsigned int)
S2S_SHIM_MINMAX(unsigned int, unsigned int, int)
S2S_SHIM_MINMAX(long, long, long)
S2S_SHIM_MINMAX(unsigned long, unsigned long, unsigned long)
S2S_SHIM_MINMAX(unsigned long, long, unsigned long)
S2S_SHIM_MINMAX(unsigned long, unsigned long, long)
S2S_SHIM_MINMAX(long long, long long, long long)
S2S_SHIM_MINMAX(unsigned long long, unsigned long long, unsigned long long)
S2S_SHIM_MINMAX(unsigned long long, long long, unsigned long long)
S2S_SHIM_MINMAX(unsigned long long, unsigned long long, long long)
S2S_SHIM_MINMAX(float, float, float)
S2S_SHIM_MINMAX(double, double, double)
S2S_SHIM_MINMAX(double, float, double)
S2S_SHIM_MINMAX(double, double, float)
#undef S2S_SHIM_MINMAX

inline cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attribute, int device) {
    cudaDeviceProp prop;
    cudaError_t status = cudaGetDeviceProperties(&prop, device);
    if (status != cudaSuccess) return status;
    return s2s_device_attribute(prop, (int)attribute, value) ? cudaSuccess : cudaErrorInvalidValue;
}

/* __constant__/__device__ variables live in the runtime's module of the kernels: the symbol's
   name (stringized by the macros below) finds them there */
static inline cudaError_t s2s_shim_symbol(const char *name, void *ptr, size_t bytes, size_t offset, int to_symbol) {
    return s2s_shim::check(s2s_memcpy_symbol(s2s_shim::module(), name, ptr, bytes, offset, to_symbol));
}
static inline cudaError_t s2s_shim_to_symbol(const char *name, const void *src, size_t bytes, size_t offset = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice, cudaStream_t = 0) {
    return s2s_shim_symbol(name, const_cast<void *>(src), bytes, offset, 1);
}
static inline cudaError_t s2s_shim_from_symbol(void *dst, const char *name, size_t bytes, size_t offset = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost, cudaStream_t = 0) {
    return s2s_shim_symbol(name, dst, bytes, offset, 0);
}
#define cudaMemcpyToSymbol(symbol, ...) s2s_shim_to_symbol(#symbol, __VA_ARGS__)
#define cudaMemcpyToSymbolAsync(symbol, ...) s2s_shim_to_symbol(#symbol, __VA_ARGS__)
#define cudaMemcpyFromSymbol(dst, symbol, ...) s2s_shim_from_symbol(dst, #symbol, __VA_ARGS__)
#define cudaMemcpyFromSymbolAsync(dst, symbol, ...) s2s_shim_from_symbol(dst, #symbol, __VA_ARGS__)

/* pinned host memory: plain malloc */
template <class T> inline cudaError_t cudaMallocHost(T **ptr, size_t bytes) {
    *ptr = static_cast<T *>(std::malloc(bytes ? bytes : 1));
    return *ptr ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T> inline cudaError_t cudaHostAlloc(T **ptr, size_t bytes, unsigned int = 0) {
    return cudaMallocHost(ptr, bytes);
}
inline cudaError_t cudaFreeHost(void *ptr) { std::free(ptr); return cudaSuccess; }
/* pinning memory the program allocated: nothing to do (as s2s_mgpu::HostRegister; the device
   cannot map host memory, canMapHostMemory is 0) */
inline cudaError_t cudaHostRegister(void *ptr, size_t, unsigned int = 0) {
    return ptr ? cudaSuccess : cudaErrorInvalidValue;
}
inline cudaError_t cudaHostUnregister(void *ptr) { return ptr ? cudaSuccess : cudaErrorInvalidValue; }
/* scheduling flags are hints: kept for cudaGetDeviceFlags only */
inline unsigned int &s2s_shim_device_flags() { static unsigned int flags = 0; return flags; }
inline cudaError_t cudaSetDeviceFlags(unsigned int flags) { s2s_shim_device_flags() = flags; return cudaSuccess; }
inline cudaError_t cudaGetDeviceFlags(unsigned int *flags) { *flags = s2s_shim_device_flags(); return cudaSuccess; }

/* streams run in program order; events read the host clock */
inline cudaError_t cudaStreamCreate(cudaStream_t *stream) { *stream = new s2s_shim_stream(); return cudaSuccess; }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int) { return cudaStreamCreate(stream); }
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) { delete stream; return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaDeviceSynchronize(); }
inline cudaError_t cudaEventCreate(cudaEvent_t *event) { *event = new s2s_shim_event(); return cudaSuccess; }
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int) { return cudaEventCreate(event); }
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t = 0) {
    cudaError_t error = cudaDeviceSynchronize();
    event->at = std::chrono::steady_clock::now();
    return error;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
/* (as the runtime's: a recorded event has completed) */
inline cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop) {
    *ms = std::chrono::duration<float, std::milli>(stop->at - start->at).count();
    return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t event) { delete event; return cudaSuccess; }
/* the allocations are freed, as a GPU frees them: a later use of one is reported */
inline cudaError_t cudaDeviceReset() { return s2s_shim::check(s2s_device_reset()); }
/* cache preferences are hints a device may ignore; the emulated device does */
template <class F>
inline cudaError_t cudaFuncSetCacheConfig(F *, cudaFuncCache) { return cudaSuccess; }
inline cudaError_t cudaFuncSetCacheConfig(const void *, cudaFuncCache) { return cudaSuccess; }
inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
inline cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *config) {
  *config = cudaFuncCachePreferNone;
  return cudaSuccess;
}
inline cudaError_t cudaGetLastError() {
    cudaError_t e = s2s_shim::last_error();
    s2s_shim::last_error() = cudaSuccess;
    return e;
}
inline cudaError_t cudaPeekAtLastError() { return s2s_shim::last_error(); }
inline const char *cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : s2s_last_error(); }
inline const char *cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorUnknown"; }

#endif
