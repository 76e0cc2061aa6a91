/*
 * heat.c -- an explicit 1-D heat step in a time loop, offloaded with OpenMP.
 *
 * The kernels have no data directives, so every launch copies u and v to the device and back
 * (implicit tofrom of global arrays). `s2s omp` (run by the wrapper during the build) keeps
 * them on the device for the whole time loop; the output must stay the same.
 */
#include <stdio.h>
#include "params.h"

double u[N];
double v[N];

int main(void)
{
    for (int i = 0; i < N; ++i)
        u[i] = initial(i);

    for (int step = 0; step < STEPS; ++step) {
        #pragma omp target teams distribute parallel for
        for (int i = 1; i < N - 1; ++i)
            v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);

        #pragma omp target teams distribute parallel for
        for (int i = 1; i < N - 1; ++i)
            u[i] = v[i];
    }

    double sum = 0.0;
    for (int i = 0; i < N; ++i)
        sum += u[i];
    printf("heat: n=%d steps=%d\n", N, STEPS);
    printf("sum(u) = %.6f\n", sum);
    printf("u[1] = %.6f  u[%d] = %.6f\n", u[1], N / 2, u[N / 2]);
    return 0;
}
