// relax.cu: damped relaxation of a 1-D field, each operation behind a small host wrapper
// (launch, then an error check) called from a time loop, as hand-written solvers often are.
// Host code calls ceil/sqrt/fabs without <cmath>; nvcc's runtime header provides them.
#include <cstdio>
#include <cstdlib>

static const int kBlock = 128;

static void check(const char *what)
{
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}

__global__ void smooth_kernel(const double *u, double *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0 || i == n - 1)
        v[i] = u[i];
    else if (i < n)
        v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
}

__global__ void damp_kernel(double *v, double factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = factor * v[i];
}

__global__ void add_source_kernel(double *v, const double *src, double dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] += dt * src[i];
}

static int blocks_for(int n)
{
    return (int)ceil(n / (double)kBlock);
}

static void smooth(const double *u, double *v, int n)
{
    smooth_kernel<<<blocks_for(n), kBlock>>>(u, v, n);
    check("smooth");
}

static void damp(double *v, double factor, int n)
{
    damp_kernel<<<blocks_for(n), kBlock>>>(v, factor, n);
    check("damp");
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int steps = argc > 2 ? atoi(argv[2]) : 10;
    double dt = 0.05;
    size_t bytes = n * sizeof(double);

    double *h_u = (double *)malloc(bytes);
    double *h_src = (double *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        h_u[i] = (i % 97) / 97.0;
        h_src[i] = (i % 13 == 0) ? 1.0 : 0.0;
    }

    double *d_u, *d_v, *d_src;
    cudaMalloc((void **)&d_u, bytes);
    cudaMalloc((void **)&d_v, bytes);
    cudaMalloc((void **)&d_src, bytes);
    cudaMemcpy(d_u, h_u, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_src, h_src, bytes, cudaMemcpyHostToDevice);

    for (int t = 0; t < steps; t++) {
        smooth(d_u, d_v, n);
        damp(d_v, 0.99, n);
        add_source_kernel<<<blocks_for(n), kBlock>>>(d_v, d_src, dt, n);
        add_source_kernel<<<blocks_for(n), kBlock>>>(d_v, d_src, dt, n);
        check("source");
        double *swap = d_u;
        d_u = d_v;
        d_v = swap;
    }
    cudaMemcpy(h_u, d_u, bytes, cudaMemcpyDeviceToHost);

    double norm = 0.0, peak = 0.0;
    for (int i = 0; i < n; i++) {
        norm += h_u[i] * h_u[i];
        if (fabs(h_u[i]) > peak)
            peak = fabs(h_u[i]);
    }
    printf("n = %d, steps = %d\n", n, steps);
    printf("norm = %.9f, peak = %.9f\n", sqrt(norm), peak);

    cudaFree(d_u);
    cudaFree(d_v);
    cudaFree(d_src);
    free(h_u);
    free(h_src);
    return 0;
}
