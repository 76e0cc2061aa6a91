// particles.hpp -- particle arrays and the source that fills them
#pragma once
#include <cstddef>

struct ParticleArrays {
    int count;
    double *x;
    double *v;
    double *energy;
    int *alive;
};

ParticleArrays make_particles(int count, unsigned seed);
void release_particles(ParticleArrays &p);
double seconds_now();
