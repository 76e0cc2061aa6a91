// heat.hpp -- explicit heat equation on a plate, held by a HeatPlate object.
#pragma once
#include <cstddef>

#define PLATE_REAL double
typedef PLATE_REAL real_t;

// what the command line sets; the solver fills in the derived sizes
struct plate_dims {
    int nx, ny;       // grid points per direction
    int cells;        // nx * ny, set by HeatPlate::SetupGeometry
    real_t h;         // grid spacing
    real_t alpha;     // diffusivity
};

void ReadArguments(int argc, char **argv, plate_dims &dims);
double WallSeconds();

// kernels (kernels.cpp): free functions on raw arrays
void Diffuse(const plate_dims &dims, real_t dt, const real_t *t, real_t *t_next);
void HoldEdges(const plate_dims &dims, real_t *t_next);
real_t MaxChange(const plate_dims &dims, const real_t *t, const real_t *t_next);
void CopyBack(const plate_dims &dims, const real_t *t_next, real_t *t);
real_t Heat(const plate_dims &dims, const real_t *t, const real_t *cap);

class HeatPlate {
    plate_dims &dims;
    real_t *temp;       // current temperature
    real_t *temp_next;  // next step
    real_t *capacity;   // heat capacity per cell
    int steps_done;
    double seconds;

    void SetupGeometry();
    void AllocateFields();

public:
    explicit HeatPlate(plate_dims &d);
    ~HeatPlate();
    void Advance(int steps, int report_every);
    void Summary() const;
};
