/* s2s CUDA shim: profiler control (declared with the rest of the runtime API). */
#include "cuda_runtime_api.h"
