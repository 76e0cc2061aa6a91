/*
 * vla_and_static.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as vla_and_static.c, with these changes to the mapping:
 *  - device_finalize() brings back only f[1:n-2] (relax() never writes the
 *    two end points, so the host copies of f[0] and f[n-1] are current)
 *    and then releases the device copy;
 *  - the static table `weights` is put on the device once, right after the
 *    host fills it, and stays there (the kernel finds it present);
 *  - the VLA `coarse` is written whole by the kernel before any read: it
 *    only comes out (whole: nb doubles in one copy; the host reads its two
 *    ends and its middle, and three element copies would cost more copies
 *    than the 256 bytes they save);
 *  - the 2-D VLA `tile` is only read on the device: in only.
 *
 * The original program:
 *
 *  - The heap field `f` is put on the device by device_init() with
 *    `target enter data` and brought back by device_finalize() with
 *    `target exit data`; the kernels in between (relax, coarsen) use it
 *    with no map clause, relying on it being present.
 *  - coarsen() uses a C99 variable-length array `coarse[nb]` and a static
 *    local table `weights[16]`, both implicitly mapped tofrom on each call.
 *  - summary() uses a 2-D VLA `tile[rows][cols]` built on the host.
 *
 * Usage: vla_and_static [n] [nb] [iters]
 */
#include <stdio.h>
#include <stdlib.h>

/* allocate and fill the field on the host, then create its device copy */
static double *device_init(int n)
{
    double *f = (double *)malloc((size_t)n * sizeof(double));
    if (!f) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int i = 0; i < n; ++i)
        f[i] = (double)((i * 13) % 64);
    #pragma omp target enter data map(to: f[0:n])
    return f;
}

/* bring the field back, release the device copy, return a host checksum */
static double device_finalize(double *f, int n)
{
    #pragma omp target update from(f[1:n-2])
    #pragma omp target exit data map(release: f[0:n])
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += f[i];
    return sum;
}

/* f[i] <- (f[i-1] + 2 f[i] + f[i+1]) / 4 on odd i, then on even i */
static void relax(double *f, int n)
{
    for (int parity = 1; parity >= 0; --parity) {
        #pragma omp target teams distribute parallel for
        for (int i = 1; i < n - 1; ++i)
            if (i % 2 == parity)
                f[i] = 0.25 * (f[i - 1] + 2.0 * f[i] + f[i + 1]);
    }
}

/* block averages of f, weighted by a static table; printed by the caller */
static void coarsen(const double *f, int n, int nb, int it)
{
    double coarse[nb];                       /* VLA */
    static double weights[16];               /* static local */
    static int have_weights = 0;
    if (!have_weights) {
        for (int k = 0; k < 16; ++k)
            weights[k] = 1.0 + 0.25 * (k % 4);
        have_weights = 1;
        #pragma omp target enter data map(to: weights)
    }
    const int bs = n / nb;

    #pragma omp target teams distribute parallel for map(from: coarse[0:nb])
    for (int b = 0; b < nb; ++b) {
        double s = 0.0;
        for (int i = b * bs; i < (b + 1) * bs; ++i)
            s += f[i];
        coarse[b] = weights[b % 16] * s / bs;
    }

    printf("iter %2d  coarse[0] = %.6g  coarse[1] = %.6g  coarse[nb/2] = %.6g  coarse[nb-1] = %.6g\n",
           it, coarse[0], coarse[1], coarse[nb / 2], coarse[nb - 1]);
}

/* min/max over a small 2-D tile kept in a VLA */
static void summary(const double *f, int n)
{
    const int rows = 4, cols = n / 4 < 64 ? n / 4 : 64;
    double tile[rows][cols];                 /* 2-D VLA */
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            tile[r][c] = f[r * (n / rows) + c];

    double lo = 1.0e300, hi = -1.0e300;
    #pragma omp target teams distribute parallel for collapse(2) \
            reduction(min:lo) reduction(max:hi) map(to: tile)
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            lo = tile[r][c] < lo ? tile[r][c] : lo;
            hi = tile[r][c] > hi ? tile[r][c] : hi;
        }
    printf("tile %dx%d  min %.6g  max %.6g\n", rows, cols, lo, hi);
}

int main(int argc, char **argv)
{
    int n = 4096, nb = 32, iters = 12;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) nb = atoi(argv[2]);
    if (argc > 3) iters = atoi(argv[3]);
    if (n < 16 || nb < 2 || nb > n || iters < 1) {
        fprintf(stderr, "usage: %s [n>=16] [2<=nb<=n] [iters>=1]\n", argv[0]);
        return 1;
    }

    double *f = device_init(n);
    for (int it = 1; it <= iters; ++it) {
        relax(f, n);
        if (it % 4 == 0)
            coarsen(f, n, nb, it);
    }
    double sum = device_finalize(f, n);

    summary(f, n);
    printf("vla_and_static: n=%d nb=%d iters=%d  sum(f) = %.6g  f[1] = %.6g  f[n/2] = %.6g\n",
           n, nb, iters, sum, f[1], f[n / 2]);

    free(f);
    return 0;
}
