/* Offload directives behind macros, so the same sources build with and without OpenMP
 * target support (the Parallel Research Kernels' prk_openmp.h does the same). */
#ifndef OFFLOAD_H
#define OFFLOAD_H

#define PRAGMA(x) _Pragma(#x)
#if defined(_OPENMP) && !defined(NO_OFFLOAD)
#  define OFFLOAD(x) PRAGMA(omp target x)
#  define HOST_PARALLEL_FOR PRAGMA(omp parallel for)
#else
#  define OFFLOAD(x)
#  define HOST_PARALLEL_FOR
#endif

#endif
