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
 */
#ifndef S2S_CUDA_SHIM_H
#define S2S_CUDA_SHIM_H

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <utility>

#include "s2s_runtime.h"

#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __forceinline__ inline
#define __launch_bounds__(...)

enum cudaError { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorUnknown = 999 };
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
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

inline s2s_module_t module() {
    static s2s_module_t loaded = -1;
    if (loaded < 0 && s2s_module_load(&loaded, S2S_SHIM_KERNELS, NULL) != 0) {
        std::fprintf(stderr, "s2s-shim: cannot load the kernels: %s\n", s2s_last_error());
        std::exit(3);
    }
    return loaded;
}

template <class F> struct launcher;

template <class... P> struct launcher<void(P...)> {
    template <class... A>
    static cudaError_t launch(const char *name, dim3 grid, dim3 block, size_t shared, A &&...args) {
        static_assert(sizeof...(A) == sizeof...(P), "kernel argument count");
        std::tuple<typename std::decay<P>::type..., int> values(
            static_cast<typename std::decay<P>::type>(std::forward<A>(args))..., 0);
        return go(name, grid, block, shared, values, std::index_sequence_for<P...>{});
    }

    template <class T, size_t... I>
    static cudaError_t go(const char *name, dim3 grid, dim3 block, size_t shared, T &values,
                          std::index_sequence<I...>) {
        void *pointers[] = {static_cast<void *>(&std::get<I>(values))..., nullptr};
        counts().launches++;
        s2s_dim3 g = {grid.x, grid.y, grid.z}, b = {block.x, block.y, block.z};
        return check(s2s_launch(module(), name, g, b, shared, pointers));
    }
};

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
inline cudaError_t cudaDeviceSynchronize() { return s2s_shim::check(s2s_synchronize()); }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaGetLastError() {
    cudaError_t e = s2s_shim::last_error();
    s2s_shim::last_error() = cudaSuccess;
    return e;
}
inline cudaError_t cudaPeekAtLastError() { return s2s_shim::last_error(); }
inline const char *cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : s2s_last_error(); }
inline const char *cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorUnknown"; }

#endif
