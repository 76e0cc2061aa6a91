// decay.cu -- radioactive decay chain of two species, written against the old runtime API:
// cudaThreadSynchronize after each step (removed in CUDA 13), exp/sqrt/floor in host code
// without <math.h> (nvcc's runtime header declares them), gettimeofday timing.
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

__global__ void decay_step(float *parent, float *daughter, float keep, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float lost = parent[i] * (1.0f - keep);
        parent[i] -= lost;
        daughter[i] += lost;
    }
}

static double seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 600;
    int steps = 4;
    float half_life = 3.0f;
    float keep = (float)exp(-0.693147 / half_life);
    float *h_p = (float *)malloc(n * sizeof(float));
    float *h_d = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        h_p[i] = (float)floor(sqrt((double)i) * 10.0);
        h_d[i] = 0.0f;
    }
    float *d_p, *d_d;
    cudaMalloc((void **)&d_p, n * sizeof(float));
    cudaMalloc((void **)&d_d, n * sizeof(float));
    cudaMemcpy(d_p, h_p, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_d, h_d, n * sizeof(float), cudaMemcpyHostToDevice);
    double t0 = seconds();
    for (int s = 0; s < steps; s++) {
        decay_step<<<(n + 255) / 256, 256>>>(d_p, d_d, keep, n);
        cudaThreadSynchronize();
    }
    double t1 = seconds();
    cudaMemcpy(h_p, d_p, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_d, d_d, n * sizeof(float), cudaMemcpyDeviceToHost);
    double parents = 0.0, daughters = 0.0;
    for (int i = 0; i < n; i++) {
        parents += h_p[i];
        daughters += h_d[i];
    }
    printf("parents = %.3f daughters = %.3f ratio = %.6f\n", parents, daughters,
           daughters / (parents + daughters));
    printf("Elapsed: %.6f s\n", t1 - t0);
    cudaFree(d_p);
    cudaFree(d_d);
    cudaThreadExit();
    free(h_p);
    free(h_d);
    return 0;
}
