// heat2d.cu -- rodinia-style transient heat solver: the time loop lives in a helper that gets
// the power grid and the pair of temperature grids (an array of two device pointers) and
// returns which of the two holds the result; main copies that one back.
#include <cstdio>
#include <cstdlib>
#include <sys/time.h>

#define TILE 16
#include "stencil2d.cuh"

static double now_ms()
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1e3 + tv.tv_usec * 1e-3;
}

int advance(float *power, float *temp[2], int rows, int cols, int steps)
{
    dim3 block(TILE, TILE);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    int src = 0, dst = 1;
    for (int t = 0; t < steps; t++) {
        int tmp = src;
        src = dst;
        dst = tmp;
        heat_step<<<grid, block>>>(power, temp[dst], temp[src], rows, cols, 0.05f, 0.2f, 0.2f);
    }
    cudaDeviceSynchronize();
    return src;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <grid size> <steps>\n", argv[0]);
        return 1;
    }
    int n = atoi(argv[1]);
    int steps = atoi(argv[2]);
    int size = n * n;
    float *h_temp = (float *)malloc(size * sizeof(float));
    float *h_power = (float *)malloc(size * sizeof(float));
    float *h_out = (float *)malloc(size * sizeof(float));
    for (int i = 0; i < size; i++) {
        h_temp[i] = 300.0f + (i % 17) * 0.25f;
        h_power[i] = ((i / n) % 8 < 2) ? 0.5f : 0.0f;
    }

    float *d_temp[2], *d_power;
    cudaMalloc((void **)&d_temp[0], size * sizeof(float));
    cudaMalloc((void **)&d_temp[1], size * sizeof(float));
    cudaMemcpy(d_temp[0], h_temp, size * sizeof(float), cudaMemcpyHostToDevice);
    cudaMalloc((void **)&d_power, size * sizeof(float));
    cudaMemcpy(d_power, h_power, size * sizeof(float), cudaMemcpyHostToDevice);

    double t0 = now_ms();
    int last = advance(d_power, d_temp, n, n, steps);
    double t1 = now_ms();
    printf("Compute time: %.3f ms\n", t1 - t0);

    cudaMemcpy(h_out, d_temp[last], size * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0.0;
    float hottest = h_out[0];
    for (int i = 0; i < size; i++) {
        sum += h_out[i];
        if (h_out[i] > hottest)
            hottest = h_out[i];
    }
    printf("steps %d: mean %.5f, hottest %.5f, corner %.5f\n", steps, sum / size, hottest, h_out[0]);

    cudaFree(d_power);
    cudaFree(d_temp[0]);
    cudaFree(d_temp[1]);
    free(h_temp);
    free(h_power);
    free(h_out);
    return 0;
}
