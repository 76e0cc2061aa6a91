/*
 * kernels.cuh -- interface between main.cu and kernels.cu.
 */
#ifndef TWO_FILES_KERNELS_CUH
#define TWO_FILES_KERNELS_CUH

#define SMOOTH_BLOCK 256

/* out[i] = (in[i-1] + 2 in[i] + in[i+1]) / 4, borders clamped */
__global__ void smooth_kernel(const float *in, float *out, int n);

/* a[i] += s * b[i] */
__global__ void scale_add_kernel(float *a, const float *b, float s, int n);

/*
 * Host-side launcher: 2*pairs smoothing sweeps, ping-ponging between
 * d_u and d_tmp; the result ends up back in d_u.
 */
void smooth_sweeps(float *d_u, float *d_tmp, int n, int pairs);

#endif /* TWO_FILES_KERNELS_CUH */
