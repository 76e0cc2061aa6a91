/* gemm.cuh: problem sizes and block shape of the GEMM port (polybench style). */
#ifndef GEMM_CUH
#define GEMM_CUH

#ifndef NI
#define NI 96
#endif
#ifndef NJ
#define NJ 80
#endif
#ifndef NK
#define NK 64
#endif

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

#define ALPHA 32412.0f
#define BETA 2123.0f
#define PERCENT_DIFF_ERROR_THRESHOLD 0.05

typedef float DATA_TYPE;

#endif
