// blur.cu -- repeated 1-D box blur of a signal, written like a vendor sample: device chosen
// by attributes through the helper header, the block size from the device, host min()/max()
// without std:: (nvcc declares them for host code), <omp.h> included by a build without
// -fopenmp (its host threads reported only where OpenMP is on), the profiler bracketing the
// timed loop, a CPU reference at the end.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <ctime>
#include <omp.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <gpu_check.h>

#define RADIUS 2

__global__ void blur_step(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; k++) {
        sum += in[max(0, min(n - 1, i + k))];
    }
    out[i] = sum / (2 * RADIUS + 1);
}

static void blur_reference(const float *in, float *out, int n)
{
    for (int i = 0; i < n; i++) {
        float sum = 0.0f;
        for (int k = -RADIUS; k <= RADIUS; k++) {
            int j = max(0, min(n - 1, i + k));
            sum += in[j];
        }
        out[i] = sum / (2 * RADIUS + 1);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int steps = max(1, argc > 2 ? atoi(argv[2]) : 5);
    int block = 0;
    pick_device(&block);
    size_t bytes = n * sizeof(float);
    float *h_signal = (float *)malloc(bytes);
    float *h_result = (float *)malloc(bytes);
    float *h_check = (float *)malloc(bytes);
    for (int i = 0; i < n; i++)
        h_signal[i] = (i % 97 == 0) ? 10.0f : sinf(0.01f * i);

    float *d_a, *d_b;
    checkGpu(cudaMalloc((void **)&d_a, bytes));
    checkGpu(cudaMalloc((void **)&d_b, bytes));
    checkGpu(cudaMemcpy(d_a, h_signal, bytes, cudaMemcpyHostToDevice));

    int grid = (n + block - 1) / block;
#ifdef _OPENMP
    fprintf(stderr, "host threads: %d\n", omp_get_max_threads());
#endif
    clock_t start = clock();
    checkGpu(cudaProfilerStart());
    for (int s = 0; s < steps; s++) {
        blur_step<<<grid, block>>>(d_a, d_b, n);
        checkGpu(cudaGetLastError());
        float *t = d_a;
        d_a = d_b;
        d_b = t;
    }
    checkGpu(cudaDeviceSynchronize());
    checkGpu(cudaProfilerStop());
    double elapsed = (double)(clock() - start) / CLOCKS_PER_SEC;
    checkGpu(cudaMemcpy(h_result, d_a, bytes, cudaMemcpyDeviceToHost));

    for (int s = 0; s < steps; s++) {
        blur_reference(h_signal, h_check, n);
        float *t = h_signal;
        h_signal = h_check;
        h_check = t;
    }
    int wrong = 0;
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        if (fabsf(h_result[i] - h_signal[i]) > 1e-4f)
            wrong++;
        total += h_result[i];
    }
    printf("n = %d, steps = %d, block = %d, sum = %.5f, mismatches = %d\n", n, steps, block,
           total, wrong);
    printf("Elapsed: %.3f ms\n", 1000.0 * elapsed);
    checkGpu(cudaFree(d_a));
    checkGpu(cudaFree(d_b));
    free(h_signal);
    free(h_result);
    free(h_check);
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
