// census.cpp -- slab transport with absorption; the host keeps a census of the
// live particles after every step through a one-element device counter.
//
// Usage: census [particles] [max_steps] [seed]
#include <cstdio>
#include <cstdlib>
#include "particles.hpp"

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 100000;
    int max_steps = argc > 2 ? std::atoi(argv[2]) : 400;
    unsigned seed = argc > 3 ? (unsigned)std::atoi(argv[3]) : 5u;
    const double dt = 0.01, loss = 0.015, cutoff = 0.35;

    ParticleArrays p = make_particles(n, seed);
    double *x = p.x, *v = p.v, *energy = p.energy;
    int *alive = p.alive;
    int *census = new int[1];
    int *escaped = new int[1];
    census[0] = n;
    escaped[0] = 0;

    double t0 = seconds_now();
    int step = 0;
    while (census[0] > n / 4 && step < max_steps) {
        census[0] = 0;

#pragma omp target teams distribute parallel for \
        map(tofrom: x[0:n], energy[0:n]) map(to: v[0:n], alive[0:n])
        for (int i = 0; i < n; i++) {
            if (alive[i]) {
                x[i] += v[i] * dt;
                energy[i] -= loss * (1.0 + x[i]);
            }
        }

#pragma omp target teams distribute parallel for \
        map(to: x[0:n], energy[0:n]) map(tofrom: alive[0:n], census[0:1], escaped[0:1])
        for (int i = 0; i < n; i++) {
            if (!alive[i])
                continue;
            if (x[i] > 1.6) {
                alive[i] = 0;
#pragma omp atomic update
                escaped[0] += 1;
            } else if (energy[i] < cutoff) {
                alive[i] = 0;
            } else {
#pragma omp atomic update
                census[0] += 1;
            }
        }
        step++;
        if (step % 25 == 0)
            std::printf("step %4d: %d particles alive\n", step, census[0]);
    }
    double t1 = seconds_now();

    double esum = 0.0, xsum = 0.0;
    for (int i = 0; i < n; i++) {
        esum += energy[i];
        xsum += x[i];
    }
    std::printf("stopped after %d steps: %d alive, %d escaped\n", step, census[0], escaped[0]);
    std::printf("energy sum %.6f, position sum %.6f\n", esum, xsum);
    std::fprintf(stderr, "transport: %.3f s\n", t1 - t0);
    delete[] census;
    delete[] escaped;
    release_particles(p);
    return 0;
}
