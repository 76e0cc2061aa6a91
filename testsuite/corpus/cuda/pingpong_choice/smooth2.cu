// smooth2.cu -- repeated smoothing with two device buffers chosen by the step's parity
// ((s % 2) ? a : b) and an array of device pointers for the two source terms.
#include <cstdio>
#include <cstdlib>

__global__ void smooth(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float left = i > 0 ? in[i - 1] : in[i];
    float right = i < n - 1 ? in[i + 1] : in[i];
    out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;
}

__global__ void add_term(float *u, const float *term, float w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        u[i] += w * term[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 900;
    int steps = argc > 2 ? atoi(argv[2]) : 5;
    size_t bytes = n * sizeof(float);
    float *h = (float *)malloc(bytes);
    for (int i = 0; i < n; i++)
        h[i] = (float)((i * 13) % 29);
    float *d_a, *d_b;
    float *d_terms[2];
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    for (int k = 0; k < 2; k++) {
        cudaMalloc((void **)&d_terms[k], bytes);
        cudaMemcpy(d_terms[k], h, bytes, cudaMemcpyHostToDevice);
    }
    cudaMemcpy(d_a, h, bytes, cudaMemcpyHostToDevice);
    int blocks = (n + 127) / 128;
    for (int s = 0; s < steps; s++) {
        float *src = (s % 2) ? d_b : d_a;
        float *dst = (s % 2) ? d_a : d_b;
        smooth<<<blocks, 128>>>(src, dst, n);
        add_term<<<blocks, 128>>>(dst, d_terms[s % 2], 0.01f, n);
    }
    cudaMemcpy(h, (steps % 2) ? d_b : d_a, bytes, cudaMemcpyDeviceToHost);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += h[i];
    printf("n = %d steps = %d sum = %.5f h[1] = %.5f\n", n, steps, sum, h[1]);
    cudaFree(d_a);
    cudaFree(d_b);
    for (int k = 0; k < 2; k++)
        cudaFree(d_terms[k]);
    free(h);
    return 0;
}
