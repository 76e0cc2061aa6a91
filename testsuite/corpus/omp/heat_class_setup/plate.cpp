// plate.cpp -- the HeatPlate class: geometry and fields set up by methods the constructor
// calls, the time loop in Advance().
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include "heat.hpp"

// the fields as the time loop names them
#define T_CUR temp
#define T_NEW temp_next

HeatPlate::HeatPlate(plate_dims &d) : dims(d), steps_done(0), seconds(0.0)
{
    SetupGeometry();
    AllocateFields();
}

HeatPlate::~HeatPlate()
{
    std::free(temp);
    std::free(temp_next);
    std::free(capacity);
}

void HeatPlate::SetupGeometry()
{
    dims.cells = dims.nx * dims.ny;
    dims.h = 1.0 / (dims.nx - 1);
}

void HeatPlate::AllocateFields()
{
    temp = (real_t *)std::malloc(dims.cells * sizeof(real_t));
    temp_next = (real_t *)std::malloc(dims.cells * sizeof(real_t));
    capacity = (real_t *)std::malloc(dims.cells * sizeof(real_t));
    if (!temp || !temp_next || !capacity) {
        std::fprintf(stderr, "out of memory for %d cells\n", dims.cells);
        std::exit(1);
    }
    for (int j = 0; j < dims.ny; j++)
        for (int i = 0; i < dims.nx; i++) {
            int c = j * dims.nx + i;
            real_t x = i * dims.h, y = j * dims.h;
            temp[c] = (i == 0 || j == 0) ? 1.0 : 0.25 * std::sin(3.0 * x) * std::cos(2.0 * y);
            temp_next[c] = temp[c];
            capacity[c] = 1.0 + 0.5 * x * y;
        }
}

void HeatPlate::Advance(int steps, int report_every)
{
    const real_t dt = 0.2 * dims.h * dims.h / dims.alpha;
    double t0 = WallSeconds();
    real_t change = 0.0;
    for (int s = 1; s <= steps; s++) {
        Diffuse(dims, dt, T_CUR, T_NEW);
        HoldEdges(dims, T_NEW);
        change = MaxChange(dims, T_CUR, T_NEW);
        CopyBack(dims, T_NEW, T_CUR);
        steps_done++;
        if (s % report_every == 0)
            std::printf("step %5d  max change %.6e  heat %.8f\n", s, change,
                        Heat(dims, T_CUR, capacity));
    }
    seconds += WallSeconds() - t0;
}

void HeatPlate::Summary() const
{
    std::printf("%d steps on %d x %d cells\n", steps_done, dims.nx, dims.ny);
    std::fprintf(stderr, "time loop: %.3f s\n", seconds);
}
