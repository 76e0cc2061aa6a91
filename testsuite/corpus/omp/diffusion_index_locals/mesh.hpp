// A 2-D mesh of nx x ny points (row-major, a ring of boundary points) and the kernels that
// work on its fields; each kernel names its flat index first, as TeaLeaf and Jacobi ports do.
#pragma once

struct Mesh {
    int nx, ny;
    double r; // diffusion number dt * kappa / h^2
};

void smooth(const Mesh &m, const double *u, double *un);
void relax(const Mesh &m, const double *un, double *u, double *change);
double total_change(const Mesh &m, const double *change);
