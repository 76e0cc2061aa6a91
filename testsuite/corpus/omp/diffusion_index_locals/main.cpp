// Explicit diffusion on a 2-D mesh, relaxed toward the smoothed field each step.
// Usage: diffusion [nx] [ny] [steps]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "diffusion.hpp"

int main(int argc, char **argv)
{
    const int nx = argc > 1 ? std::atoi(argv[1]) : 256;
    const int ny = argc > 2 ? std::atoi(argv[2]) : 192;
    const int steps = argc > 3 ? std::atoi(argv[3]) : 40;
    if (nx < 4 || ny < 4 || steps < 1) {
        std::fprintf(stderr, "usage: %s [nx>=4] [ny>=4] [steps>=1]\n", argv[0]);
        return 1;
    }
    Diffusion solver(nx, ny, 0.2);
    const auto start = std::chrono::steady_clock::now();
    double change = 0.0;
    for (int s = 0; s < steps; s++) {
        change = solver.step();
        if (s % 10 == 0)
            std::printf("step %3d change %.9f\n", s, change);
    }
    const double ms = std::chrono::duration<double, std::milli>(
        std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "diffusion: %.3f ms per step\n", ms / steps);
    solver.sync();
    std::printf("final change %.9f probe %.9f %.9f\n", change, solver.probe(nx / 3, ny / 3),
                solver.probe(nx / 2, ny / 4 + 1));
    return 0;
}
