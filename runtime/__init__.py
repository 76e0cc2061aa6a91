"""s2s runtime: virtual buffers over several devices (emulated CPU devices or CUDA GPUs); see runtime.api."""
