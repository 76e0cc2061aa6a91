/* s2s: texture references (`texture<T, dim, mode> tex;`, cudaBindTexture, tex1Dfetch(tex, i)),
 * which CUDA 12 removed and older programs still use (Rodinia's hybridsort, leukocyte, ...).
 * A kernel reading through one reads a buffer that only cudaBindTexture on the host names, a
 * use no pass of s2s can see, so the file is refused. Declared unavailable (rather than left
 * undeclared, when clang says only "no template named 'texture'") so the refusal says why.
 * Included by the shim's cuda_runtime.h only (a program written for CUDA 12 or later may name
 * a type of its own `texture`): a parse against a real toolkit that fails is parsed again
 * against the shim, whose error then names the reason (s2s.frontend.core.parse). */
#ifndef S2S_REMOVED_TEXTURE_REFS_H
#define S2S_REMOVED_TEXTURE_REFS_H
#if defined(__cplusplus) && defined(CUDART_VERSION) && CUDART_VERSION >= 12000
template <class T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((unavailable(
    "texture references were removed in CUDA 12 (nvcc of CUDA 12 or later rejects them too); "
    "s2s cannot see which buffer a kernel reads through one: use a texture object "
    "(cudaTextureObject_t) or plain loads"))) texture {};
#endif
#endif
