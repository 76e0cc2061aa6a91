// The solver: owns the fields, runs steps, hands the result back.
#pragma once

#include "mesh.hpp"

class Diffusion {
public:
    Diffusion(int nx, int ny, double r);
    ~Diffusion();
    double step();
    void sync(); // the host's copy of the field is current after this
    double probe(int i, int j) const { return u_[j * mesh_.nx + i]; }
    const Mesh &mesh() const { return mesh_; }

private:
    Mesh mesh_;
    double *u_;
    double *un_;
    double *change_;
};
