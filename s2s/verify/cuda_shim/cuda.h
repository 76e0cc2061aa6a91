/* cuda.h -- the driver API header: programs include it for the runtime's types; the shim
   offers the runtime API only (cuda_runtime.h), which is what such programs call. */
#ifndef S2S_CUDA_SHIM_DRIVER_H
#define S2S_CUDA_SHIM_DRIVER_H
#include "cuda_runtime.h"
#endif
