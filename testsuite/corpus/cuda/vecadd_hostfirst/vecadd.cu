// Vector addition with a CPU reference, in the style of a teaching suite:
// host helpers come before the kernel, sizes are macros.
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N (1 << 16)
#define BLOCK 128
#define SCALE 2.0f

static void fill(float *x, int n, int seed)
{
    for (int i = 0; i < n; ++i)
        x[i] = (float)((i * 37 + seed) % 101) / 10.0f;
}

static int compare(const float *ref, const float *got, int n)
{
    int bad = 0;
    for (int i = 0; i < n; ++i)
        if (fabsf(ref[i] - got[i]) > 1e-5f)
            ++bad;
    return bad;
}

__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + SCALE * b[i];
}

int main(void)
{
    size_t bytes = N * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes);
    float *c = (float *)malloc(bytes), *ref = (float *)malloc(bytes);
    fill(a, N, 1);
    fill(b, N, 2);
    for (int i = 0; i < N; ++i)
        ref[i] = a[i] + SCALE * b[i];
    float *da, *db, *dc;
    cudaMalloc((void **)&da, bytes);
    cudaMalloc((void **)&db, bytes);
    cudaMalloc((void **)&dc, bytes);
    cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
    vecadd<<<(N + BLOCK - 1) / BLOCK, BLOCK>>>(da, db, dc, N);
    cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
    printf("c[0]=%.3f c[N-1]=%.3f\n", c[0], c[N - 1]);
    printf("mismatches: %d\n", compare(ref, c, N));
    cudaFree(da); cudaFree(db); cudaFree(dc);
    free(a); free(b); free(c); free(ref);
    return 0;
}
