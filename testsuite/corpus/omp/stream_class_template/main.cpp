// STREAM-style bandwidth driver: copy, scale, add, triad and dot timed over several
// repetitions for float and double, results checked against a host recurrence.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "stream_kernels.hpp"

static double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <typename T>
static int run(const char *name, std::intptr_t length, int reps)
{
    const T start_a = (T)0.1, start_b = (T)0.2, start_c = (T)0.0, factor = (T)0.4;
    OffloadStream<T> stream(length, start_a, start_b, start_c);
    double best[5] = {1e30, 1e30, 1e30, 1e30, 1e30};
    T sum = 0;
    for (int k = 0; k < reps; k++) {
        auto t0 = std::chrono::steady_clock::now();
        stream.copy();
        best[0] = std::fmin(best[0], seconds_since(t0));
        t0 = std::chrono::steady_clock::now();
        stream.scale(factor);
        best[1] = std::fmin(best[1], seconds_since(t0));
        t0 = std::chrono::steady_clock::now();
        stream.add();
        best[2] = std::fmin(best[2], seconds_since(t0));
        t0 = std::chrono::steady_clock::now();
        stream.triad(factor);
        best[3] = std::fmin(best[3], seconds_since(t0));
        t0 = std::chrono::steady_clock::now();
        sum = stream.dot();
        best[4] = std::fmin(best[4], seconds_since(t0));
    }
    const T *a, *b, *c;
    stream.fetch(a, b, c);

    T ga = start_a, gb = start_b, gc = start_c;
    for (int k = 0; k < reps; k++) {
        gc = ga;
        gb = factor * gc;
        gc = ga + gb;
        ga = gb + factor * gc;
    }
    double err_a = 0, err_b = 0, err_c = 0;
    for (std::intptr_t i = 0; i < length; i++) {
        err_a += std::fabs((double)a[i] - ga);
        err_b += std::fabs((double)b[i] - gb);
        err_c += std::fabs((double)c[i] - gc);
    }
    err_a /= length;
    err_b /= length;
    err_c /= length;
    double gold_sum = (double)ga * gb * length;
    double tolerance = sizeof(T) == sizeof(float) ? 1e-4 : 1e-10;
    int failed = err_a > tolerance || err_b > tolerance || err_c > tolerance ||
                 std::fabs(sum - gold_sum) / gold_sum > tolerance * 10;
    std::printf("%s: a %.8f b %.8f c %.8f dot %.6e %s\n", name, (double)a[length / 2],
                (double)b[length - 1], (double)c[0], (double)sum,
                failed ? "FAILED validation" : "validated");
    const char *labels[5] = {"copy", "scale", "add", "triad", "dot"};
    const int arrays[5] = {2, 2, 3, 3, 2};
    for (int k = 0; k < 5; k++)
        std::fprintf(stderr, "%-6s %-6s %10.1f MB/s\n", name, labels[k],
                     1e-6 * arrays[k] * sizeof(T) * length / best[k]);
    return failed;
}

int main(int argc, char **argv)
{
    std::intptr_t length = argc > 1 ? std::atol(argv[1]) : 1 << 16;
    int reps = argc > 2 ? std::atoi(argv[2]) : 5;
    std::printf("STREAM class template: %ld elements, %d repetitions\n", (long)length, reps);
    int failed = run<float>("float", length, reps);
    failed |= run<double>("double", length, reps);
    return failed;
}
