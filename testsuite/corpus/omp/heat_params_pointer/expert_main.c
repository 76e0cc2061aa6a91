/*
 * expert_main.c -- (the expert's mapping) explicit 1-D heat diffusion with a heat source at the centre.
 *
 * Usage: heat [nx] [steps]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include "heat.h"

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1.0e-6 * (double)tv.tv_usec;
}

int main(int argc, char **argv)
{
    Params P;
    Field F;
    params_init(&P, argc > 1 ? atoi(argv[1]) : 20000, argc > 2 ? atoi(argv[2]) : 100);
    field_init(&F, &P);

    double t0 = now();
    /* the parameters and the field stay on the device for the whole run */
#pragma omp target data map(to: P, F.n) map(tofrom: F.u[0:F.n]) map(alloc: F.un[0:F.n])
    for (int step = 1; step <= P.steps; step++) {
        add_source(&P, &F);
        diffuse(&P, &F);
        copy_back(&F);
        if (step % P.report == 0)
            printf("step %4d: total heat %.9f\n", step, heat_total(&F));
    }
    double t1 = now();

    printf("u[centre] %.9f, u[1] %.9f\n", F.u[F.n / 2], F.u[1]);
    fprintf(stderr, "time: %.3f s\n", t1 - t0);
    field_free(&F);
    return 0;
}
