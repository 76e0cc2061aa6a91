// grid.h -- the host-side description of the square grid and its initial state.
#ifndef GRID_H
#define GRID_H

struct Grid {
    int nx, ny;
};

static inline int grid_cells(Grid g) { return g.nx * g.ny; }

#endif
