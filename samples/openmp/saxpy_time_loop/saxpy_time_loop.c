/*
 * saxpy_time_loop.c -- repeated SAXPY-style update inside a time loop.
 *
 * Fixed-size global arrays and NO map clauses: every target region below
 * implicitly maps x, y and z tofrom, so each kernel launch copies all three
 * arrays to the device and back again, even though the host only looks at
 * the data once the time loop is over.
 *
 * Usage: saxpy_time_loop [n] [steps]     (n <= N)
 */
#include <stdio.h>
#include <stdlib.h>

#define N 8192

double x[N];
double y[N];
double z[N];

static void init(int n)
{
    for (int i = 0; i < n; ++i) {
        x[i] = 0.25 * (i % 16);      /* dyadic: sums stay exact */
        y[i] = (double)(i % 7);
        z[i] = 0.0;
    }
}

int main(int argc, char **argv)
{
    int n = N;
    int steps = 20;
    if (argc > 1)
        n = atoi(argv[1]);
    if (argc > 2)
        steps = atoi(argv[2]);
    if (n < 1 || n > N) {
        fprintf(stderr, "n must be in [1, %d]\n", N);
        return 1;
    }

    const double a = 0.5;
    init(n);

    for (int step = 0; step < steps; ++step) {
        /* y <- a*x + y */
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; ++i)
            y[i] = a * x[i] + y[i];

        /* z accumulates the running difference, x decays on even steps */
        #pragma omp target teams distribute \
                parallel for
        for (int i = 0; i < n; ++i) {
            z[i] += y[i] - x[i];
            if (step % 2 == 0)
                x[i] = 0.5 * x[i];
        }
    }

    /* checksum on the device */
    double sum_y = 0.0, sum_z = 0.0;
    #pragma omp target teams distribute parallel for reduction(+:sum_y, sum_z)
    for (int i = 0; i < n; ++i) {
        sum_y += y[i];
        sum_z += z[i];
    }

    printf("saxpy_time_loop: n=%d steps=%d a=%g\n", n, steps, a);
    printf("sum(y) = %.6g\n", sum_y);
    printf("sum(z) = %.6g\n", sum_z);
    const int probe[4] = {3, n / 4 + 1, n / 2 + 5, n - 1};
    for (int k = 0; k < 4; ++k) {
        int i = probe[k] < n ? probe[k] : n - 1;
        printf("i=%d  x=%.6g  y=%.6g  z=%.6g\n", i, x[i], y[i], z[i]);
    }
    return 0;
}
