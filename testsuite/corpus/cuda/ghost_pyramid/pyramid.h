/* Shared definitions of the ghost-zone ("pyramid") solvers: each block loads a tile with a
 * skirt of `steps` cells on every side, advances the tile `steps` times in shared memory and
 * writes back only the cells that stayed valid (the tile minus its skirt). */
#ifndef PYRAMID_H
#define PYRAMID_H

#define PATH_TILE 64
#define HEAT_TILE 16

#define INSIDE(v, lo, hi) ((v) >= (lo) && (v) <= (hi))
#define LOWER(a, b) ((a) <= (b) ? (a) : (b))
#define CLAMP_TO(v, lo, hi) ((v) < (lo) ? (lo) : ((v) > (hi) ? (hi) : (v)))

struct heat_coeffs {
    float self_w;
    float side_w;
    float source_w;
};

int ceil_div(int a, int b);

#endif
