// jacobi2d.cu: 2-D Jacobi relaxation, two kernels per time step, C++ with a timer class.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <chrono>

#define N 130
#define TSTEPS 12
#define BX 32
#define BY 4

class Timer {
public:
    void start() { t0 = std::chrono::steady_clock::now(); }
    double seconds() const
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }

private:
    std::chrono::steady_clock::time_point t0;
};

__global__ void jacobi_step1(const float *A, float *B)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= 1 && i < N - 1 && j >= 1 && j < N - 1)
        B[i * N + j] = 0.2f * (A[i * N + j] + A[i * N + j - 1] + A[i * N + j + 1] +
                               A[(i + 1) * N + j] + A[(i - 1) * N + j]);
}

__global__ void jacobi_step2(float *A, const float *B)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= 1 && i < N - 1 && j >= 1 && j < N - 1)
        A[i * N + j] = B[i * N + j];
}

static void reference(float *A, float *B)
{
    for (int t = 0; t < TSTEPS; t++) {
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                B[i * N + j] = 0.2f * (A[i * N + j] + A[i * N + j - 1] + A[i * N + j + 1] +
                                       A[(i + 1) * N + j] + A[(i - 1) * N + j]);
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                A[i * N + j] = B[i * N + j];
    }
}

int main()
{
    float *A = new float[N * N], *B = new float[N * N], *out = new float[N * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i * N + j] = ((float)i * (j + 2) + 2) / N;
            B[i * N + j] = ((float)i * (j + 3) + 3) / N;
        }
    float *dA, *dB;
    cudaMalloc(&dA, N * N * sizeof(float));
    cudaMalloc(&dB, N * N * sizeof(float));
    cudaMemcpy(dA, A, N * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, N * N * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(BX, BY);
    dim3 grid((N + BX - 1) / BX, (N + BY - 1) / BY);
    Timer timer;
    timer.start();
    for (int t = 0; t < TSTEPS; t++) {
        jacobi_step1<<<grid, block>>>(dA, dB);
        jacobi_step2<<<grid, block>>>(dA, dB);
    }
    cudaDeviceSynchronize();
    std::printf("GPU time: %.6f s\n", timer.seconds());
    cudaMemcpy(out, dA, N * N * sizeof(float), cudaMemcpyDeviceToHost);
    reference(A, B);
    int bad = 0;
    for (int k = 0; k < N * N; k++)
        if (std::fabs(A[k] - out[k]) > 1e-3f * std::fabs(A[k]) + 1e-5f)
            ++bad;
    std::printf("A[64][64] = %.5f, mismatches: %d\n", out[64 * N + 64], bad);
    cudaFree(dA);
    cudaFree(dB);
    delete[] A;
    delete[] B;
    delete[] out;
    return 0;
}
