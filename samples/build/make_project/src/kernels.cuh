/* kernels.cuh -- found through a quoted include next to kernels.cu */
#ifndef BUILD_SAMPLE_KERNELS_CUH
#define BUILD_SAMPLE_KERNELS_CUH

#define BLOCK 256

__global__ void axpy(float a, const float *x, float *y, int n);
void launch_axpy(float a, const float *x, float *y, int n);

#endif
