// heap_runtime_sizes.cpp -- EXPERT mapping (reference for s2s omp).
//
// Same program as heap_runtime_sizes.cpp.  One data region around the
// sweeps and the binning kernel:
//   - a is read whole by the first sweep: it goes in once;
//   - b's interior b[1:n-2] is written by the device before any device
//     read, so b is only allocated there and just its two boundary values
//     b[0] and b[n-1] (set on the host, read by the binning kernel) go in;
//   - weight goes in, bin is written whole on the device and summed whole
//     on the host: it only comes out;
//   - the device never writes a[0] or a[n-1], so of the five printed
//     elements of a only a[1], a[n/2] and a[n-2] come back.
//
// Usage: heap_runtime_sizes [n] [nbins] [sweeps]
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 1000;      // signal length
    const int nbins = argc > 2 ? std::atoi(argv[2]) : 32;    // number of bins
    const int sweeps = argc > 3 ? std::atoi(argv[3]) : 8;    // smoothing sweeps
    if (n < 3 || nbins < 1 || nbins > n || sweeps < 1) {
        std::fprintf(stderr, "usage: %s [n>=3] [1<=nbins<=n] [sweeps>=1]\n", argv[0]);
        return 1;
    }

    double *a = static_cast<double *>(std::malloc(sizeof(double) * n));
    double *b = static_cast<double *>(std::calloc(n, sizeof(double)));   // zeroed
    double *bin = new double[nbins];
    double *weight = new double[nbins];
    if (!a || !b) {
        std::fprintf(stderr, "out of memory\n");
        return 1;
    }

    for (int i = 0; i < n; ++i)
        a[i] = static_cast<double>((i * 37) % 101) - 50.0;   // rough signal
    b[0] = a[0];
    b[n - 1] = a[n - 1];
    for (int k = 0; k < nbins; ++k)
        weight[k] = 1.0 + 0.5 * (k % 4);

    #pragma omp target data map(to: a[0:n], weight[0:nbins]) map(alloc: b[0:n]) \
                            map(from: bin[0:nbins])
    {
        // the only values of b the device reads before writing them
        #pragma omp target update to(b[0:1])
        #pragma omp target update to(b[n - 1:1])

        for (int s = 0; s < sweeps; ++s) {
            // 3-point smoothing, interior only: b[1:n-2] written
            #pragma omp target teams distribute parallel for
            for (int i = 1; i < n - 1; ++i)
                b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];

            // copy the interior back: a[1:n-2] written
            #pragma omp target teams distribute parallel for
            for (int i = 1; i < n - 1; ++i)
                a[i] = b[i];
        }

        // weighted bin sums of b: bin k collects b[k], b[k+nbins], ...
        #pragma omp target teams distribute parallel for
        for (int k = 0; k < nbins; ++k) {
            double s = 0.0;
            for (int i = k; i < n; i += nbins)
                s += b[i];
            bin[k] = weight[k] * s;
        }

        #pragma omp target update from(a[1:1])
        #pragma omp target update from(a[n / 2:1])
        #pragma omp target update from(a[n - 2:1])
    }

    double total = 0.0;
    for (int k = 0; k < nbins; ++k)
        total += bin[k];

    std::printf("heap_runtime_sizes: n=%d nbins=%d sweeps=%d\n", n, nbins, sweeps);
    std::printf("a[0] = %.6g  a[1] = %.6g  a[n/2] = %.6g  a[n-2] = %.6g  a[n-1] = %.6g\n",
                a[0], a[1], a[n / 2], a[n - 2], a[n - 1]);
    std::printf("sum(bins) = %.6g  bin[0] = %.6g  bin[nbins-1] = %.6g\n",
                total, bin[0], bin[nbins - 1]);

    delete[] bin;
    delete[] weight;
    std::free(a);
    std::free(b);
    return 0;
}
