/*
 * memory_errors.c -- one misuse of device memory through the C interface per
 * run: impossible allocation sizes, use after free with every copy kind,
 * double free, copies running past the end of an allocation, device
 * addresses passed as host memory.  It prints the return code and message of
 * the misuse, then checks that the runtime still works (allocate, copy in,
 * copy out, compare) and prints "usable=1".  A crash is a failed run.
 *
 * usage: memory_errors CASE [SIZE] [saxpy.cu]
 *   malloc SIZE        s2s_malloc(SIZE) (decimal, e.g. 18446744073709551615)
 *   fill SIZE          s2s_malloc(SIZE) until it fails (S2S_DEVICE_MEMORY sets the
 *                      limit), then free them all
 *   load_file PATH     s2s_module_load of PATH (a FIFO, /dev/zero, a directory)
 *   null_*             a NULL pointer argument (issue 32); null_launch_* need saxpy.cu
 *   any other CASE     see the table below; freed_launch needs saxpy.cu
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "s2s_runtime.h"

#define N 1024                       /* floats in the buffers of the misuse */

static float host[N], back[N];

/* the runtime still allocates, copies both ways and frees correctly */
static int usable(void)
{
    float *d = NULL;
    for (int i = 0; i < N; ++i)
        host[i] = (float)i;
    memset(back, 0, sizeof back);
    if (s2s_malloc((void **)&d, sizeof host) || s2s_memcpy(d, host, sizeof host, S2S_HOST_TO_DEVICE) ||
        s2s_memcpy(back, d, sizeof back, S2S_DEVICE_TO_HOST) || s2s_free(d)) {
        fprintf(stderr, "runtime unusable after the misuse: %s\n", s2s_last_error());
        return 0;
    }
    return memcmp(host, back, sizeof host) == 0;
}

/* a device buffer of N floats, freed when `freed` is set */
static float *device_buffer(int freed)
{
    float *d = NULL;
    if (s2s_malloc((void **)&d, sizeof host) || s2s_memcpy(d, host, sizeof host, S2S_HOST_TO_DEVICE) ||
        (freed && s2s_free(d))) {
        fprintf(stderr, "setup failed: %s\n", s2s_last_error());
        exit(3);
    }
    return d;
}

/* s2s_launch of saxpy with `args` (NULL or with one NULL entry) or with kernel NULL */
static int null_launch(const char *source, const char *which)
{
    s2s_module_t mod;
    if (!source || s2s_module_load(&mod, source, NULL)) {
        fprintf(stderr, "no kernel: %s\n", source ? s2s_last_error() : "saxpy.cu not given");
        exit(3);
    }
    float *x = device_buffer(0), *y = device_buffer(0), a = 2.0f;
    int n = N;
    void *args[] = {&n, &a, &x, &y};
    s2s_dim3 grid = {N / 256, 1, 1}, block = {256, 1, 1};
    if (!strcmp(which, "args"))
        return s2s_launch(mod, "saxpy", grid, block, 0, NULL);
    if (!strcmp(which, "kernel"))
        return s2s_launch(mod, NULL, grid, block, 0, args);
    args[2] = NULL;
    return s2s_launch(mod, "saxpy", grid, block, 0, args);
}

/* one NULL pointer argument of the C interface, by case name (null_NAME) */
static int null_argument(const char *name, float *d, const char *source)
{
    char text[64];
    long long values[4];
    int own = 0;
    s2s_module_t mod;
    if (!strcmp(name, "null_malloc"))
        return s2s_malloc(NULL, 16);
    if (!strcmp(name, "null_device_count"))
        return s2s_get_device_count(NULL);
    if (!strcmp(name, "null_properties_own"))
        return s2s_device_properties(text, sizeof text, values, 4, NULL);
    if (!strcmp(name, "null_properties_name"))
        return s2s_device_properties(NULL, sizeof text, values, 4, &own);
    if (!strcmp(name, "null_properties_values"))
        return s2s_device_properties(text, sizeof text, NULL, 4, &own);
    if (!strcmp(name, "null_h2d_src"))
        return s2s_memcpy(d, NULL, sizeof host, S2S_HOST_TO_DEVICE);
    if (!strcmp(name, "null_d2h_dst"))
        return s2s_memcpy(NULL, d, sizeof host, S2S_DEVICE_TO_HOST);
    if (!strcmp(name, "null_default_src"))
        return s2s_memcpy(d, NULL, sizeof host, S2S_DEFAULT);
    if (!strcmp(name, "null_h2h_dst"))
        return s2s_memcpy(NULL, host, sizeof host, S2S_HOST_TO_HOST);
    if (!strcmp(name, "null_memset"))
        return s2s_memset(NULL, 0, sizeof host);
    if (!strcmp(name, "null_module"))
        return s2s_module_load(NULL, source ? source : "saxpy.cu", NULL);
    if (!strcmp(name, "null_module_path"))
        return s2s_module_load(&mod, NULL, NULL);
    if (!strcmp(name, "null_module_source"))
        return s2s_module_load_source(&mod, "k.cu", NULL, NULL);
    if (!strcmp(name, "null_free_crlf_latin1_source")) /* not a NULL: CRLF ends and a byte that is not UTF-8, legal for nvcc */
        return s2s_module_load_source(&mod, "k.cu", "/* caf\xe9 */\r\n__global__ void k(int *p)\r\n"
                                      "{ p[threadIdx.x] = 1; }\r\n", NULL);
    if (!strcmp(name, "null_symbol"))
        return s2s_memcpy_symbol(0, NULL, host, sizeof host, 0, 1);
    if (!strcmp(name, "null_access"))
        return s2s_set_access(0, "saxpy", NULL);
    if (!strncmp(name, "null_launch_", 12))
        return null_launch(source, name + 12);
    fprintf(stderr, "unknown case %s\n", name);
    exit(2);
}

static int freed_launch(const char *source)
{
    s2s_module_t mod;
    if (!source || s2s_module_load(&mod, source, NULL)) {
        fprintf(stderr, "no kernel: %s\n", source ? s2s_last_error() : "saxpy.cu not given");
        exit(3);
    }
    float *x = device_buffer(0), *y = device_buffer(1), a = 2.0f;
    int n = N;
    void *args[] = {&n, &a, &x, &y};
    s2s_dim3 grid = {N / 256, 1, 1}, block = {256, 1, 1};
    return s2s_launch(mod, "saxpy", grid, block, 0, args);
}

/* allocate SIZE until it fails (at most 64 times); the code of the failure, freeing what was taken */
static int fill(size_t size)
{
    void *taken[64];
    int count = 0, rc = 0;
    while (count < 64 && (rc = s2s_malloc(&taken[count], size)) == 0)
        ++count;
    printf("allocations=%d\n", count);
    for (int k = 0; k < count; ++k)
        if (s2s_free(taken[k]))
            return -100;
    return rc;
}

static int misuse(const char *name, size_t size, const char *source)
{
    void *p = NULL;
    float *d = device_buffer(!strncmp(name, "freed_", 6) || !strcmp(name, "double_free"));
    if (!strcmp(name, "malloc"))
        return s2s_malloc(&p, size);
    if (!strcmp(name, "fill"))
        return fill(size);
    if (!strncmp(name, "null_", 5))
        return null_argument(name, d, source);
    if (!strcmp(name, "load_file")) {
        s2s_module_t mod;
        return s2s_module_load(&mod, source, NULL);
    }
    if (!strcmp(name, "freed_h2d"))
        return s2s_memcpy(d, host, sizeof host, S2S_HOST_TO_DEVICE);
    if (!strcmp(name, "freed_d2h"))
        return s2s_memcpy(back, d, sizeof back, S2S_DEVICE_TO_HOST);
    if (!strcmp(name, "freed_d2d_src"))
        return s2s_memcpy(device_buffer(0), d, sizeof host, S2S_DEVICE_TO_DEVICE);
    if (!strcmp(name, "freed_d2d_dst"))
        return s2s_memcpy(d, device_buffer(0), sizeof host, S2S_DEVICE_TO_DEVICE);
    if (!strcmp(name, "freed_default_src"))
        return s2s_memcpy(back, d, sizeof back, S2S_DEFAULT);
    if (!strcmp(name, "freed_default_dst"))
        return s2s_memcpy(d, host, sizeof host, S2S_DEFAULT);
    if (!strcmp(name, "freed_default_d2d"))
        return s2s_memcpy(d, device_buffer(0), sizeof host, S2S_DEFAULT);
    if (!strcmp(name, "freed_memset"))
        return s2s_memset(d, 0, sizeof host);
    if (!strcmp(name, "freed_launch"))
        return freed_launch(source);
    if (!strcmp(name, "double_free"))
        return s2s_free(d);
    if (!strcmp(name, "free_inside"))
        return s2s_free(d + 1);
    if (!strcmp(name, "past_end_h2d"))
        return s2s_memcpy(d + 1, host, sizeof host, S2S_HOST_TO_DEVICE);
    if (!strcmp(name, "past_end_d2h"))
        return s2s_memcpy(back, d + N - 1, 2 * sizeof(float), S2S_DEVICE_TO_HOST);
    if (!strcmp(name, "past_end_d2d"))
        return s2s_memcpy(device_buffer(0), d + 1, sizeof host, S2S_DEVICE_TO_DEVICE);
    if (!strcmp(name, "past_end_memset"))
        return s2s_memset(d + N / 2, 0, sizeof host);
    if (!strcmp(name, "past_end_default"))      /* an address in the gap after the allocation */
        return s2s_memcpy(back, d + N + 16, sizeof(float), S2S_DEFAULT);
    if (!strcmp(name, "size_max_h2d"))
        return s2s_memcpy(d, host, SIZE_MAX, S2S_HOST_TO_DEVICE);
    if (!strcmp(name, "size_max_d2h"))
        return s2s_memcpy(back, d, SIZE_MAX, S2S_DEVICE_TO_HOST);
    if (!strcmp(name, "size_max_d2d"))
        return s2s_memcpy(device_buffer(0), d, SIZE_MAX, S2S_DEVICE_TO_DEVICE);
    if (!strcmp(name, "size_max_memset"))
        return s2s_memset(d, 0, SIZE_MAX);
    if (!strcmp(name, "wrapped_offset"))        /* d + (2^64 - 8) bytes: 8 bytes before d */
        return s2s_memcpy(back, (char *)d + (SIZE_MAX - 7), 4, S2S_DEVICE_TO_HOST);
    if (!strcmp(name, "h2h_device"))            /* a device address used as host memory */
        return s2s_memcpy(d, host, sizeof host, S2S_HOST_TO_HOST);
    if (!strcmp(name, "d2h_into_device"))
        return s2s_memcpy(device_buffer(0), d, sizeof host, S2S_DEVICE_TO_HOST);
    if (!strcmp(name, "h2d_from_device"))
        return s2s_memcpy(d, device_buffer(0), sizeof host, S2S_HOST_TO_DEVICE);
    if (!strcmp(name, "bad_kind"))
        return s2s_memcpy(d, host, sizeof host, 7);
    fprintf(stderr, "unknown case %s\n", name);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CASE [SIZE] [saxpy.cu]\n", argv[0]);
        return 2;
    }
    int sized = !strcmp(argv[1], "malloc") || !strcmp(argv[1], "fill");
    size_t size = sized && argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 0;
    const char *source = argc > 2 + sized ? argv[2 + sized] : NULL;
    int rc = misuse(argv[1], size, source);
    printf("case=%s\nrc=%d\n", argv[1], rc);
    printf("error=%s\n", rc ? s2s_last_error() : "");
    printf("usable=%d\n", usable());
    return 0;
}
