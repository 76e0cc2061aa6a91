/* Kernels of the ghost-zone solvers; included by pyramid.cu after pyramid.h. */

/* One band of `steps` rows of a min-plus path: row r's cell c is the cheapest of the three
 * cells above it plus its own cost. Block b owns columns [b * owned, (b + 1) * owned). */
__global__ void path_band(const int *cost, const int *upper, int *lower,
                          int width, int first_row, int steps)
{
    __shared__ int have[PATH_TILE];
    __shared__ int made[PATH_TILE];

    const int lane = threadIdx.x;
    const int owned = PATH_TILE - 2 * steps;
    const int origin = blockIdx.x * owned - steps;       /* grid column of lane 0 */
    const int column = origin + lane;
    const int first_valid = origin < 0 ? -origin : 0;
    const int last_valid = (origin + PATH_TILE - 1 > width - 1) ? width - 1 - origin
                                                                  : PATH_TILE - 1;
    const bool on_grid = INSIDE(lane, first_valid, last_valid);

    if (INSIDE(column, 0, width - 1))
        have[lane] = upper[column];
    __syncthreads();

    bool done = false;
    for (int s = 0; s < steps; ++s) {
        done = false;
        if (INSIDE(lane, s + 1, PATH_TILE - 2 - s) && on_grid) {
            int west = lane - 1 < first_valid ? first_valid : lane - 1;
            int east = lane + 1 > last_valid ? last_valid : lane + 1;
            int best = LOWER(LOWER(have[west], have[lane]), have[east]);
            made[lane] = best + cost[(first_row + s) * width + column];
            done = true;
        }
        __syncthreads();
        if (s == steps - 1)
            break;
        if (done)
            have[lane] = made[lane];
        __syncthreads();
    }
    if (done)
        lower[column] = made[lane];
}

/* `steps` explicit heat steps on a rows x cols plate with insulated borders. */
__global__ void heat_band(const float *source, const float *before, float *after,
                          int rows, int cols, int steps, heat_coeffs k)
{
    __shared__ float now[HEAT_TILE][HEAT_TILE];
    __shared__ float gain[HEAT_TILE][HEAT_TILE];
    __shared__ float next[HEAT_TILE][HEAT_TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int owned = HEAT_TILE - 2 * steps;
    int x0 = blockIdx.x * owned - steps;
    int y0 = blockIdx.y * owned - steps;
    int x = x0 + tx, y = y0 + ty;

    if (INSIDE(y, 0, rows - 1) && INSIDE(x, 0, cols - 1)) {
        now[ty][tx] = before[y * cols + x];
        gain[ty][tx] = source[y * cols + x];
    }
    __syncthreads();

    int xmin = x0 < 0 ? -x0 : 0;
    int ymin = y0 < 0 ? -y0 : 0;
    int xmax = x0 + HEAT_TILE - 1 > cols - 1 ? cols - 1 - x0 : HEAT_TILE - 1;
    int ymax = y0 + HEAT_TILE - 1 > rows - 1 ? rows - 1 - y0 : HEAT_TILE - 1;
    int n = CLAMP_TO(ty - 1, ymin, ymax), s = CLAMP_TO(ty + 1, ymin, ymax);
    int w = CLAMP_TO(tx - 1, xmin, xmax), e = CLAMP_TO(tx + 1, xmin, xmax);

    bool valid = false;
    for (int it = 0; it < steps; it++) {
        valid = INSIDE(tx, it + 1, HEAT_TILE - 2 - it) && INSIDE(ty, it + 1, HEAT_TILE - 2 - it)
                && INSIDE(tx, xmin, xmax) && INSIDE(ty, ymin, ymax);
        if (valid)
            next[ty][tx] = k.self_w * now[ty][tx] + k.source_w * gain[ty][tx]
                         + k.side_w * (now[n][tx] + now[s][tx] + now[ty][w] + now[ty][e]);
        __syncthreads();
        if (it == steps - 1)
            break;
        if (valid)
            now[ty][tx] = next[ty][tx];
        __syncthreads();
    }
    if (valid)
        after[y * cols + x] = next[ty][tx];
}
