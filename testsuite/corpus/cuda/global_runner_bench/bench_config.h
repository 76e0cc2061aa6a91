#ifndef BENCH_CONFIG_H
#define BENCH_CONFIG_H
// Sizes and repetitions of the benchmark (override with -D)
#ifndef BENCH_BYTES
#define BENCH_BYTES (1 << 18)
#endif
#ifndef BENCH_REPEATS
#define BENCH_REPEATS 4
#endif
#define BENCH_BLOCK 128
#define BENCH_WORD_MASK 0x5a5a5a5au

#define BENCH_CHECK(call)                                                       \
    do {                                                                        \
        cudaError_t bench_status = (call);                                      \
        if (bench_status != cudaSuccess) {                                      \
            fprintf(stderr, "%s(%d): %s\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(bench_status));                          \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)
#endif
