// pathfinder.cu: dynamic programming over the rows of a grid (rodinia style), one
// kernel launch per row with shared memory and barriers; seed and sizes from argv.
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_SIZE 128
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

__global__ void dynproc_row(int cols, const int *wall_row, const int *src, int *dst)
{
    __shared__ int prev[BLOCK_SIZE + 2];
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int tx = threadIdx.x + 1;
    if (x < cols)
        prev[tx] = src[x];
    if (threadIdx.x == 0)
        prev[0] = x > 0 ? src[x - 1] : 1 << 30;
    if (threadIdx.x == blockDim.x - 1 || x == cols - 1)
        prev[tx + 1] = x + 1 < cols ? src[x + 1] : 1 << 30;
    __syncthreads();
    if (x < cols) {
        int best = MIN(prev[tx - 1], MIN(prev[tx], prev[tx + 1]));
        dst[x] = wall_row[x] + best;
    }
}

int main(int argc, char **argv)
{
    int cols = argc > 1 ? atoi(argv[1]) : 1000;
    int rows = argc > 2 ? atoi(argv[2]) : 50;
    int seed = argc > 3 ? atoi(argv[3]) : 7;
    int *wall = (int *)malloc(sizeof(int) * rows * cols);
    srand(seed);
    for (int i = 0; i < rows * cols; i++)
        wall[i] = rand() % 10;
    int *d_wall, *d_buf[2];
    cudaMalloc((void **)&d_wall, sizeof(int) * rows * cols);
    cudaMalloc((void **)&d_buf[0], sizeof(int) * cols);
    cudaMalloc((void **)&d_buf[1], sizeof(int) * cols);
    cudaMemcpy(d_wall, wall, sizeof(int) * rows * cols, cudaMemcpyHostToDevice);
    cudaMemcpy(d_buf[0], wall, sizeof(int) * cols, cudaMemcpyHostToDevice);
    int blocks = (cols + BLOCK_SIZE - 1) / BLOCK_SIZE;
    int cur = 0;
    for (int r = 1; r < rows; r++) {
        dynproc_row<<<blocks, BLOCK_SIZE>>>(cols, d_wall + r * cols, d_buf[cur], d_buf[1 - cur]);
        cur = 1 - cur;
    }
    int *result = (int *)malloc(sizeof(int) * cols);
    cudaMemcpy(result, d_buf[cur], sizeof(int) * cols, cudaMemcpyDeviceToHost);
    // CPU check
    int *a = (int *)malloc(sizeof(int) * cols), *b = (int *)malloc(sizeof(int) * cols);
    for (int x = 0; x < cols; x++)
        a[x] = wall[x];
    for (int r = 1; r < rows; r++) {
        for (int x = 0; x < cols; x++) {
            int best = a[x];
            if (x > 0) best = MIN(best, a[x - 1]);
            if (x < cols - 1) best = MIN(best, a[x + 1]);
            b[x] = wall[r * cols + x] + best;
        }
        int *t = a; a = b; b = t;
    }
    int bad = 0, shortest = 1 << 30;
    for (int x = 0; x < cols; x++) {
        bad += a[x] != result[x];
        shortest = MIN(shortest, result[x]);
    }
    printf("shortest path %d, mismatches %d\n", shortest, bad);
    for (int x = 0; x < cols; x += cols / 10)
        printf("%d ", result[x]);
    printf("\n");
    cudaFree(d_wall); cudaFree(d_buf[0]); cudaFree(d_buf[1]);
    free(wall); free(result); free(a); free(b);
    return 0;
}
