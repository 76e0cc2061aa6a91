"""The cpu backend: CUDA kernels compiled with the host C++ compiler under a SIMT emulation."""
