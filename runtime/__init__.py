"""s2s runtime: virtual buffers over several devices (emulated CPU devices or CUDA GPUs), see
runtime.api; kernel access enumerators in runtime.access. It never imports the s2s tool."""
