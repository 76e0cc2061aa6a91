// simulation.hpp -- direct-sum gravitational N-body, OpenMP offload.
#pragma once

struct Bodies {
    double *x, *y, *z;
    double *vx, *vy, *vz;
    double *mass;
    int count;
};

void simulate(double *x, double *y, double *z, double *vx, double *vy, double *vz,
              const double *mass, int n, int steps, int every);
