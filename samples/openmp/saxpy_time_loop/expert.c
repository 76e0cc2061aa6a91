/*
 * saxpy_time_loop.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as saxpy_time_loop.c.  The three global arrays go to the
 * device once, before the time loop, and stay there; the kernels find them
 * present.  The host never looks at whole arrays: it reads two reduction
 * scalars and three elements at each of four probe indices, so only those
 * single elements come back (one `target update` per element).
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

    /* whole global arrays: the kernels map them implicitly as x[0:N] */
    #pragma omp target data map(to: x, y, z)
    {
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

        /* checksum on the device (the reduction scalars travel tofrom) */
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
            #pragma omp target update from(x[i:1], y[i:1], z[i:1])
            printf("i=%d  x=%.6g  y=%.6g  z=%.6g\n", i, x[i], y[i], z[i]);
        }
    }
    return 0;
}
