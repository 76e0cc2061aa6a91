/* atax.cuh: sizes of the ATAX port (y = A^T (A x)). */
#ifndef ATAX_CUH
#define ATAX_CUH
#define NX 200
#define NY 180
#define DIM_THREAD_BLOCK_X 64
#define PERCENT_DIFF_ERROR_THRESHOLD 0.5
#ifndef M_PI
#define M_PI 3.14159
#endif
typedef float DATA_TYPE;
#endif
