// main.cpp -- heat_plate: explicit heat equation on a HeatPlate object.
//
// Usage: heat_plate [nx] [ny] [steps]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "heat.hpp"

double WallSeconds()
{
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

void ReadArguments(int argc, char **argv, plate_dims &dims)
{
    dims.nx = argc > 1 ? std::atoi(argv[1]) : 200;
    dims.ny = argc > 2 ? std::atoi(argv[2]) : 150;
    dims.alpha = 0.8;
    if (dims.nx < 4 || dims.ny < 4) {
        std::fprintf(stderr, "the plate needs at least 4 x 4 points\n");
        std::exit(1);
    }
}

int main(int argc, char **argv)
{
    plate_dims dims;
    ReadArguments(argc, argv, dims);
    int steps = argc > 3 ? std::atoi(argv[3]) : 400;
    HeatPlate plate(dims);
    plate.Advance(steps, 100);
    plate.Summary();
    return 0;
}
