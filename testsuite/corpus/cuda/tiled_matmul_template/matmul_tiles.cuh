// matmul_tiles.cuh: the tiled product as a template on the tile width, compiled inside
// tiled_matmul.cu (it uses its value_t). Each block computes one TILE x TILE tile of C; the
// write C[ldc * TILE * by + TILE * bx + ldc * ty + tx] is injective only when ldc covers the
// grid's columns, which the launch's sizes decide.
#pragma once

template <int TILE>
__global__ void tile_product(value_t *C, const value_t *A, const value_t *B, int wA, int wB)
{
    __shared__ value_t As[TILE][TILE];
    __shared__ value_t Bs[TILE][TILE];
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int a_first = wA * TILE * by, a_last = a_first + wA - 1;
    int b_first = TILE * bx, b_step = TILE * wB;
    value_t sum = 0;
    for (int a = a_first, b = b_first; a <= a_last; a += TILE, b += b_step) {
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    int c = wB * TILE * by + TILE * bx;
    C[c + wB * ty + tx] = sum;
}
