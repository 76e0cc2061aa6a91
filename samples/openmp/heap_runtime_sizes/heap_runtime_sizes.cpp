// heap_runtime_sizes.cpp -- 1-D smoothing and binning with run-time sizes.
//
// Array lengths come from the command line (defaults if absent) and the
// buffers are allocated three different ways: malloc, calloc and new[].
// The smoothing kernel only WRITES the interior b[1 : n-2] (the two end
// points are boundary values that never change), and the copy-back kernel
// only touches a[1 : n-2] as well; the weighted binning kernel reads all of b.
//
// Mapping style: naive, every region maps whole arrays tofrom.
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

    for (int s = 0; s < sweeps; ++s) {
        // 3-point smoothing, interior only: b[1:n-2] written
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
        for (int i = 1; i < n - 1; ++i)
            b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];

        // copy the interior back: a[1:n-2] written
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
        for (int i = 1; i < n - 1; ++i)
            a[i] = b[i];
    }

    // weighted bin sums of b: bin k collects b[k], b[k+nbins], ...
    #pragma omp target teams distribute parallel for \
            map(tofrom: b[0:n], bin[0:nbins], weight[0:nbins])
    for (int k = 0; k < nbins; ++k) {
        double s = 0.0;
        for (int i = k; i < n; i += nbins)
            s += b[i];
        bin[k] = weight[k] * s;
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
