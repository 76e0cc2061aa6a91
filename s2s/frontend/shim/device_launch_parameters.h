/* s2s CUDA shim: threadIdx, blockIdx, blockDim, gridDim and warpSize (all in cuda_runtime.h). */
#include "cuda_runtime.h"
