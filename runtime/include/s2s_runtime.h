/*
 * s2s_runtime.h -- C interface of the s2s multi-device runtime.
 *
 * A program rewritten by s2s calls these functions in place of the CUDA
 * runtime API.  Device pointers are virtual addresses: pointer arithmetic
 * on them works as with cudaMalloc'd pointers, but they must not be
 * dereferenced on the host.  The same binary runs on emulated CPU devices
 * or on GPUs; the backend and device count come from the environment:
 *
 *   S2S_BACKEND = cpu | cuda | auto (default auto: cuda where a GPU is found)
 *   S2S_DEVICES = number of devices (cpu default 1, cuda default all GPUs)
 *
 * Every function returns 0 on success and a non-zero code on failure, the
 * cudaError_t value CUDA returns for the same failure (enum s2s_error);
 * s2s_last_error() then returns a message (valid until the next call).
 * A failed call changes nothing: the runtime stays usable.
 *
 * Memory errors: an allocation the devices cannot hold (the live
 * allocations together beyond one device's memory, or S2S_DEVICE_MEMORY
 * bytes) or that the runtime's virtual address space cannot name is
 * S2S_ERROR_MEMORY_ALLOCATION; a freed pointer (use after free, double free),
 * an address in no allocation, a copy or memset running past the end of
 * one, or a device address given as host memory is S2S_ERROR_INVALID_VALUE;
 * a memcpy kind that is no cudaMemcpyKind is
 * S2S_ERROR_INVALID_MEMCPY_DIRECTION.  s2s_free(NULL) does nothing.
 *
 * Pointer arguments: every one is checked before it is used.  A NULL where
 * the call reads or writes memory (an out-parameter, a name, a host or
 * device pointer of a copy of more than 0 bytes, the args of a launch of a
 * kernel that has parameters, or one of those args) is
 * S2S_ERROR_INVALID_VALUE with a message naming the argument, never a crash.
 * s2s_module_load reads regular files only, of at most 64 MiB: a FIFO, a
 * device (/dev/zero) or a directory is S2S_ERROR_INVALID_VALUE at once.
 * Link with the library built by `python -m runtime.capi_build`.
 */
#ifndef S2S_RUNTIME_H
#define S2S_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct s2s_dim3 { unsigned int x, y, z; } s2s_dim3;
typedef int s2s_module_t;

enum s2s_memcpy_kind {            /* same values as cudaMemcpyKind */
    S2S_HOST_TO_HOST = 0,
    S2S_HOST_TO_DEVICE = 1,
    S2S_DEVICE_TO_HOST = 2,
    S2S_DEVICE_TO_DEVICE = 3,
    S2S_DEFAULT = 4                 /* inferred from the pointers */
};

enum s2s_error {                  /* same values as cudaError_t */
    S2S_SUCCESS = 0,
    S2S_ERROR_INVALID_VALUE = 1,
    S2S_ERROR_MEMORY_ALLOCATION = 2,
    S2S_ERROR_INVALID_MEMCPY_DIRECTION = 21,
    S2S_ERROR_UNKNOWN = 999         /* any other failure: compile errors, launch failures, ... */
};

int s2s_get_device_count(int *count);
/* the first GPU's own properties on the cuda backend: its name into name[0..name_len), the values
   of S2S_SET_DEVICE_PROP (s2s_device_prop.h) into values[0..count), *own = 1; on cpu devices
   *own = 0 and nothing is written (the documented fixed values stand) */
int s2s_device_properties(char *name, size_t name_len, long long *values, int count, int *own);
int s2s_malloc(void **ptr, size_t bytes);
int s2s_free(void *ptr);
int s2s_memcpy(void *dst, const void *src, size_t bytes, int kind);
int s2s_memset(void *ptr, int value, size_t bytes);
int s2s_synchronize(void);
/* cudaDeviceReset: every allocation freed (a later use of one of its pointers is a use after free) */
int s2s_device_reset(void);

/* kernels: a .cu file (its host code is ignored) or source text; `instantiate`
   lists template kernels to build, separated by ';' (NULL for none) */
int s2s_module_load(s2s_module_t *module, const char *path, const char *instantiate);
int s2s_module_load_source(s2s_module_t *module, const char *name, const char *source,
                           const char *instantiate);
/* the same, with directories (separated by ':') searched for the quoted includes of `source` */
int s2s_module_load_source_dirs(s2s_module_t *module, const char *name, const char *source,
                                const char *instantiate, const char *include_dirs);
/* the same, with the program's compile flags for its kernels (separated by '\n'): -D, -U, -I
   and -std= are used (-std below c++17 counts as c++17), others ignored */
int s2s_module_load_source_flags(s2s_module_t *module, const char *name, const char *source,
                                 const char *instantiate, const char *include_dirs, const char *flags);
/* access model of one kernel (JSON of the access contract) enabling partitioned launches */
int s2s_set_access(s2s_module_t module, const char *kernel, const char *access_json);
/* cudaMemcpyToSymbol (to_symbol 1) / FromSymbol (0): `symbol` names a __constant__ or
   __device__ variable of the module's kernels; `ptr` is host memory or a runtime pointer */
int s2s_memcpy_symbol(s2s_module_t module, const char *symbol, void *ptr, size_t bytes, size_t offset,
                      int to_symbol);
/* args as for cudaLaunchKernel: one pointer to each argument's value */
int s2s_launch(s2s_module_t module, const char *kernel, s2s_dim3 grid, s2s_dim3 block,
               size_t shared_bytes, void **args);

const char *s2s_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
