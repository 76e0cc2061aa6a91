// particles.cpp -- allocation and a reproducible initial state
#include "particles.hpp"
#include <chrono>
#include <cstdio>
#include <cstdlib>

double seconds_now()
{
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

ParticleArrays make_particles(int count, unsigned seed)
{
    ParticleArrays p;
    p.count = count;
    p.x = new double[count];
    p.v = new double[count];
    p.energy = new double[count];
    p.alive = new int[count];
    for (int i = 0; i < count; i++) {
        seed = seed * 1103515245u + 12345u;
        p.x[i] = (seed >> 8) % 1000 / 1000.0;
        p.v[i] = 0.5 + (seed >> 4) % 97 / 97.0;
        p.energy[i] = 1.0 + (seed >> 12) % 1000 / 250.0;
        p.alive[i] = 1;
    }
    return p;
}

void release_particles(ParticleArrays &p)
{
    delete[] p.x;
    delete[] p.v;
    delete[] p.energy;
    delete[] p.alive;
}
