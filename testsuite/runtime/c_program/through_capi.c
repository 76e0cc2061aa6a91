/*
 * through_capi.c -- a host program driving the s2s runtime through its C
 * interface: allocate, copy, launch (a barrier-free kernel and one with
 * barriers and atomics, a template instantiation), device-to-device copy
 * with pointer offsets, memset, read back, check, free.
 *
 * usage: through_capi saxpy.cu block_reduction.cu template_launch.cu
 */
#include <stdio.h>
#include <stdlib.h>
#include "s2s_runtime.h"

#define CHECK(call)                                                           \
    do {                                                                      \
        if ((call) != 0) {                                                    \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,     \
                    #call, s2s_last_error());                                 \
            return 1;                                                         \
        }                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s saxpy.cu block_reduction.cu template_launch.cu\n", argv[0]);
        return 2;
    }
    int devices = 0;
    CHECK(s2s_get_device_count(&devices));

    int n = 100003;
    size_t bytes = (size_t)n * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes), *back = malloc(bytes);
    for (int i = 0; i < n; ++i) {
        x[i] = 0.25f * (float)(i % 16);
        y[i] = 0.5f * (float)(i % 7 - 3);
    }

    s2s_module_t saxpy_mod, reduce_mod, template_mod;
    CHECK(s2s_module_load(&saxpy_mod, argv[1], NULL));
    CHECK(s2s_module_load(&reduce_mod, argv[2], NULL));
    CHECK(s2s_module_load(&template_mod, argv[3], "axpy_kernel<float>"));

    float *d_x, *d_y, *d_sum, *d_copy;
    CHECK(s2s_malloc((void **)&d_x, bytes));
    CHECK(s2s_malloc((void **)&d_y, bytes));
    CHECK(s2s_malloc((void **)&d_sum, sizeof(float)));
    CHECK(s2s_malloc((void **)&d_copy, bytes));
    CHECK(s2s_memcpy(d_x, x, bytes, S2S_HOST_TO_DEVICE));
    CHECK(s2s_memcpy(d_y, y, bytes, S2S_DEFAULT));

    /* y = 2.5 x + y */
    float a = 2.5f;
    void *saxpy_args[] = {&n, &a, &d_x, &d_y};
    s2s_dim3 grid = {(unsigned)(n + 255) / 256, 1, 1}, block = {256, 1, 1};
    CHECK(s2s_launch(saxpy_mod, "saxpy", grid, block, 0, saxpy_args));

    /* sum(y) with shared-memory trees, __syncthreads and atomicAdd */
    CHECK(s2s_memset(d_sum, 0, sizeof(float)));
    void *sum_args[] = {&d_y, &d_sum, &n};
    CHECK(s2s_launch(reduce_mod, "block_sum_atomic", grid, block, 0, sum_args));

    /* the second half of y into the first half of d_copy, then y[k] += 1.5 * copy[k] there */
    int half = n / 2;
    CHECK(s2s_memcpy(d_copy, d_y + (n - half), (size_t)half * sizeof(float), S2S_DEVICE_TO_DEVICE));
    float b = 1.5f;
    void *axpy_args[] = {&b, &d_copy, &d_y, &half};
    s2s_dim3 grid2 = {(unsigned)(half + 255) / 256, 1, 1};
    CHECK(s2s_launch(template_mod, "axpy_kernel<float>", grid2, block, 0, axpy_args));
    CHECK(s2s_synchronize());

    float sum = 0.0f;
    CHECK(s2s_memcpy(&sum, d_sum, sizeof(float), S2S_DEVICE_TO_HOST));
    CHECK(s2s_memcpy(back, d_y, bytes, S2S_DEVICE_TO_HOST));

    double expect_sum = 0.0;
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        float yi = 2.5f * x[i] + y[i];
        expect_sum += yi;
        float expect = yi;
        if (i < half) {
            int j = i + (n - half);
            expect = 1.5f * (2.5f * x[j] + y[j]) + yi;
        }
        if (back[i] != expect) {
            if (bad < 5)
                fprintf(stderr, "y[%d] = %g, expected %g\n", i, back[i], expect);
            ++bad;
        }
    }
    if ((double)sum != expect_sum) {
        fprintf(stderr, "sum %.9g, expected %.9g\n", sum, expect_sum);
        ++bad;
    }

    /* errors come back as codes with a message */
    if (s2s_free((void *)0x10) == 0) {
        fprintf(stderr, "freeing a bogus pointer succeeded\n");
        ++bad;
    }
    printf("bogus free: %s\n", s2s_last_error());

    CHECK(s2s_free(d_x));
    CHECK(s2s_free(d_y));
    CHECK(s2s_free(d_sum));
    CHECK(s2s_free(d_copy));
    free(x);
    free(y);
    free(back);
    printf("devices=%d sum=%.9g mismatches=%d\n", devices, sum, bad);
    return bad ? 1 : 0;
}
