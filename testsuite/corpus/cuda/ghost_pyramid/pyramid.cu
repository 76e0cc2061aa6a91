/* Ghost-zone ("pyramid") solvers: a min-plus path through a cost grid and an explicit heat
 * plate, each advanced several rows/steps per launch in shared memory, checked against a CPU
 * reference.  usage: pyramid WIDTH ROWS DEPTH PLATE HEAT_STEPS HEAT_DEPTH */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <sys/time.h>

#include "pyramid.h"
#include "pyramid_kernels.cuh"

#define CHECK(call)                                                               \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                    \
                    cudaGetErrorString(err_));                                    \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

int ceil_div(int a, int b) { return (a + b - 1) / b; }

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) & 0xffff;
}

static double now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1e3 + tv.tv_usec * 1e-3;
}

/* Rows 1..rows-1 of the path, `depth` rows per launch; the answer ends in d_row[final]. */
static int path_on_device(const int *d_cost, int *d_row[2], int width, int rows, int depth)
{
    int from = 0;
    for (int r = 1; r < rows; r += depth) {
        int steps = rows - r < depth ? rows - r : depth;
        int blocks = ceil_div(width, PATH_TILE - 2 * steps);
        path_band<<<blocks, PATH_TILE>>>(d_cost, d_row[from], d_row[1 - from], width, r, steps);
        CHECK(cudaGetLastError());
        from = 1 - from;
    }
    CHECK(cudaDeviceSynchronize());
    return from;
}

static void path_on_host(const int *cost, int *row, int width, int rows)
{
    int *next = (int *)malloc(width * sizeof(int));
    for (int r = 1; r < rows; r++) {
        for (int c = 0; c < width; c++) {
            int west = row[c > 0 ? c - 1 : 0], east = row[c < width - 1 ? c + 1 : width - 1];
            int best = LOWER(LOWER(west, row[c]), east);
            next[c] = best + cost[r * width + c];
        }
        for (int c = 0; c < width; c++)
            row[c] = next[c];
    }
    free(next);
}

static int run_path(int width, int rows, int depth)
{
    unsigned seed = 2024u;
    int *cost = (int *)malloc((size_t)width * rows * sizeof(int));
    int *expect = (int *)malloc(width * sizeof(int));
    int *got = (int *)malloc(width * sizeof(int));
    for (int i = 0; i < width * rows; i++)
        cost[i] = next_random(&seed) % 10;
    for (int c = 0; c < width; c++)
        expect[c] = cost[c];

    int *d_cost, *d_row[2];
    CHECK(cudaMalloc((void **)&d_cost, (size_t)width * rows * sizeof(int)));
    CHECK(cudaMalloc((void **)&d_row[0], width * sizeof(int)));
    CHECK(cudaMalloc((void **)&d_row[1], width * sizeof(int)));
    CHECK(cudaMemcpy(d_cost, cost, (size_t)width * rows * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_row[0], cost, width * sizeof(int), cudaMemcpyHostToDevice));

    double start = now_ms();
    int final = path_on_device(d_cost, d_row, width, rows, depth);
    printf("Path time: %.3f ms\n", now_ms() - start);
    CHECK(cudaMemcpy(got, d_row[final], width * sizeof(int), cudaMemcpyDeviceToHost));

    path_on_host(cost, expect, width, rows);
    int wrong = 0, cheapest = got[0];
    for (int c = 0; c < width; c++) {
        wrong += got[c] != expect[c];
        cheapest = LOWER(cheapest, got[c]);
    }
    printf("path: width %d rows %d depth %d cheapest %d mismatches %d\n", width, rows, depth,
           cheapest, wrong);
    CHECK(cudaFree(d_cost));
    CHECK(cudaFree(d_row[0]));
    CHECK(cudaFree(d_row[1]));
    free(cost);
    free(expect);
    free(got);
    return wrong;
}

static void heat_on_host(const float *source, float *plate, int n, int steps, heat_coeffs k)
{
    float *next = (float *)malloc((size_t)n * n * sizeof(float));
    for (int t = 0; t < steps; t++) {
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                int up = y > 0 ? y - 1 : 0, down = y < n - 1 ? y + 1 : n - 1;
                int left = x > 0 ? x - 1 : 0, right = x < n - 1 ? x + 1 : n - 1;
                next[y * n + x] = k.self_w * plate[y * n + x] + k.source_w * source[y * n + x]
                    + k.side_w * (plate[up * n + x] + plate[down * n + x]
                                  + plate[y * n + left] + plate[y * n + right]);
            }
        for (int i = 0; i < n * n; i++)
            plate[i] = next[i];
    }
    free(next);
}

static int run_heat(int n, int total_steps, int depth)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    float *source = (float *)malloc(bytes), *plate = (float *)malloc(bytes);
    float *expect = (float *)malloc(bytes);
    unsigned seed = 77u;
    for (int i = 0; i < n * n; i++) {
        source[i] = (next_random(&seed) % 100) * 0.01f;
        plate[i] = expect[i] = 20.0f + (next_random(&seed) % 50) * 0.1f;
    }
    heat_coeffs k = {0.5f, 0.1f, 0.25f};

    float *d_source, *d_plate[2];
    CHECK(cudaMalloc((void **)&d_source, bytes));
    CHECK(cudaMalloc((void **)&d_plate[0], bytes));
    CHECK(cudaMalloc((void **)&d_plate[1], bytes));
    CHECK(cudaMemcpy(d_source, source, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_plate[0], plate, bytes, cudaMemcpyHostToDevice));

    double start = now_ms();
    int from = 0;
    for (int t = 0; t < total_steps; t += depth) {
        int steps = total_steps - t < depth ? total_steps - t : depth;
        dim3 block(HEAT_TILE, HEAT_TILE);
        dim3 grid(ceil_div(n, HEAT_TILE - 2 * steps), ceil_div(n, HEAT_TILE - 2 * steps));
        heat_band<<<grid, block>>>(d_source, d_plate[from], d_plate[1 - from], n, n, steps, k);
        from = 1 - from;
    }
    CHECK(cudaDeviceSynchronize());
    printf("Heat time: %.3f ms\n", now_ms() - start);
    CHECK(cudaMemcpy(plate, d_plate[from], bytes, cudaMemcpyDeviceToHost));

    heat_on_host(source, expect, n, total_steps, k);
    int wrong = 0;
    double sum = 0.0;
    for (int i = 0; i < n * n; i++) {
        float diff = plate[i] - expect[i];
        wrong += diff > 1e-3f || diff < -1e-3f;
        sum += plate[i];
    }
    printf("heat: plate %d steps %d depth %d mean %.4f mismatches %d\n", n, total_steps, depth,
           sum / (n * n), wrong);
    CHECK(cudaFree(d_source));
    CHECK(cudaFree(d_plate[0]));
    CHECK(cudaFree(d_plate[1]));
    free(source);
    free(plate);
    free(expect);
    return wrong;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s WIDTH ROWS DEPTH PLATE HEAT_STEPS HEAT_DEPTH\n", argv[0]);
        return 2;
    }
    int width = atoi(argv[1]), rows = atoi(argv[2]), depth = atoi(argv[3]);
    int plate = atoi(argv[4]), heat_steps = atoi(argv[5]), heat_depth = atoi(argv[6]);
    if (width < 1 || rows < 2 || depth < 1 || 2 * depth >= PATH_TILE || plate < 1 ||
        heat_steps < 1 || heat_depth < 1 || 2 * heat_depth >= HEAT_TILE) {
        fprintf(stderr, "bad sizes\n");
        return 2;
    }
    int wrong = run_path(width, rows, depth) + run_heat(plate, heat_steps, heat_depth);
    printf("%s\n", wrong ? "FAILED" : "PASSED");
    return wrong ? 1 : 0;
}
