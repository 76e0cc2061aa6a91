// pinned_buffer.h: page-aligned host memory the program allocates itself and then pins with
// cudaHostRegister (how vendor samples show "generic" pinned memory), released in reverse.
#pragma once
#include <cstdio>
#include <cstdlib>

#define PAGE_BYTES 4096

struct PinnedBuffer {
    int *data;
    size_t bytes;
    bool registered;
};

static int pin_buffer(PinnedBuffer *buffer, size_t bytes, unsigned int flags)
{
    void *raw = NULL;
    if (posix_memalign(&raw, PAGE_BYTES, bytes) != 0) {
        fprintf(stderr, "posix_memalign of %zu bytes failed\n", bytes);
        return 1;
    }
    buffer->data = (int *)raw;
    buffer->bytes = bytes;
    buffer->registered = cudaHostRegister(raw, bytes, flags) == cudaSuccess;
    printf("> registered %zu bytes of host memory: %s\n", bytes,
           buffer->registered ? "yes" : "no");
    return buffer->registered ? 0 : 1;
}

static void unpin_buffer(PinnedBuffer *buffer)
{
    if (buffer->registered) cudaHostUnregister(buffer->data);
    free(buffer->data);
    buffer->data = NULL;
}
