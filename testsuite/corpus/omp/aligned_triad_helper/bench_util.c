#include <stdlib.h>

#include "bench_util.h"

/* The usual posix_memalign wrapper: a null result on failure, never an error exit, so that
 * each caller reports what it could not get. */
void *bench_malloc(size_t bytes)
{
    void *ptr = NULL;
    int ret = posix_memalign(&ptr, BENCH_ALIGNMENT, bytes);
    if (ret != 0)
        ptr = NULL;
    return ptr;
}
