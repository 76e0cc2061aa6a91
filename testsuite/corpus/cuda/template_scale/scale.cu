// Template kernels next to plain ones: an explicit instantiation per precision.
#include <cstdio>
#include <cstdlib>

template <typename T, int BLOCK>
__global__ void scale(T *x, T factor, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n)
        x[i] = x[i] * factor;
}

__global__ void offset(float *x, float by, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += by;
}

int main()
{
    const int n = 4000;
    float *hf = (float *)malloc(n * sizeof(float));
    double *hd = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; ++i) {
        hf[i] = i * 0.25f;
        hd[i] = i * 0.125;
    }
    float *df;
    double *dd;
    cudaMalloc(&df, n * sizeof(float));
    cudaMalloc(&dd, n * sizeof(double));
    cudaMemcpy(df, hf, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dd, hd, n * sizeof(double), cudaMemcpyHostToDevice);
    scale<float, 128><<<(n + 127) / 128, 128>>>(df, 3.0f, n);
    offset<<<(n + 255) / 256, 256>>>(df, 1.0f, n);
    scale<double, 256><<<(n + 255) / 256, 256>>>(dd, 0.5, n);
    cudaMemcpy(hf, df, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(hd, dd, n * sizeof(double), cudaMemcpyDeviceToHost);
    double sf = 0, sd = 0;
    for (int i = 0; i < n; ++i) {
        sf += hf[i];
        sd += hd[i];
    }
    printf("float sum %.2f double sum %.4f\n", sf, sd);
    cudaFree(df);
    cudaFree(dd);
    free(hf);
    free(hd);
    return 0;
}
