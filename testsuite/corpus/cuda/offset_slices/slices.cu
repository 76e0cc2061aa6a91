// slices.cu -- three fields packed in one allocation (d + k * n offsets), a partial copy of
// the middle of the result (&h[i]), per-field scaling kernels.
#include <cstdio>
#include <cstdlib>

__global__ void scale_field(float *f, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        f[i] *= s;
}

__global__ void combine(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] - b[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 512;
    float *h = (float *)malloc(3 * n * sizeof(float));
    for (int i = 0; i < 3 * n; i++)
        h[i] = (float)(i % 50) * 0.1f;
    float *d;
    cudaMalloc((void **)&d, 3 * n * sizeof(float));
    cudaMemcpy(d, h, 2 * n * sizeof(float), cudaMemcpyHostToDevice);
    int blocks = (n + 63) / 64;
    scale_field<<<blocks, 64>>>(d, 2.0f, n);
    scale_field<<<blocks, 64>>>(d + n, 0.5f, n);
    combine<<<blocks, 64>>>(d, d + n, d + 2 * n, n);
    int lo = n / 4, count = n / 2;
    cudaMemcpy(&h[2 * n + lo], d + 2 * n + lo, count * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0.0;
    for (int i = lo; i < lo + count; i++)
        sum += h[2 * n + i];
    printf("n = %d, middle sum = %.5f, h[2n+lo] = %.5f\n", n, sum, h[2 * n + lo]);
    cudaFree(d);
    free(h);
    return 0;
}
