// main.cpp -- builds a deterministic cloud of bodies and runs the N-body simulation.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "simulation.hpp"

static Bodies make_bodies(int n)
{
    Bodies b;
    b.count = n;
    b.x = new double[n];
    b.y = new double[n];
    b.z = new double[n];
    b.vx = new double[n];
    b.vy = new double[n];
    b.vz = new double[n];
    b.mass = new double[n];
    unsigned seed = 12345u;
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        b.x[i] = (seed % 10000) / 5000.0 - 1.0;
        seed = seed * 1103515245u + 12345u;
        b.y[i] = (seed % 10000) / 5000.0 - 1.0;
        seed = seed * 1103515245u + 12345u;
        b.z[i] = (seed % 10000) / 5000.0 - 1.0;
        b.vx[i] = b.vy[i] = b.vz[i] = 0.0;
        b.mass[i] = 1.0 / n;
    }
    return b;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 1024;
    int steps = argc > 2 ? std::atoi(argv[2]) : 40;
    int every = argc > 3 ? std::atoi(argv[3]) : 10;
    if (n < 2 || steps < 1 || every < 1) {
        std::fprintf(stderr, "usage: %s [bodies] [steps] [report every]\n", argv[0]);
        return 1;
    }
    Bodies b = make_bodies(n);
    std::printf("n-body: %d bodies, %d steps\n", n, steps);
    auto start = std::chrono::steady_clock::now();
    simulate(b.x, b.y, b.z, b.vx, b.vy, b.vz, b.mass, n, steps, every);
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::fprintf(stderr, "simulation time: %.3f s\n", took.count());

    double cx = 0, cy = 0, cz = 0;
    for (int i = 0; i < n; i++) {
        cx += b.mass[i] * b.x[i];
        cy += b.mass[i] * b.y[i];
        cz += b.mass[i] * b.z[i];
    }
    std::printf("centre of mass %.9f %.9f %.9f\n", cx, cy, cz);
    std::printf("body 0 at %.9f %.9f %.9f\n", b.x[0], b.y[0], b.z[0]);
    delete[] b.x; delete[] b.y; delete[] b.z;
    delete[] b.vx; delete[] b.vy; delete[] b.vz;
    delete[] b.mass;
    return 0;
}
