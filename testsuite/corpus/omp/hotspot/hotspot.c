/*
 * hotspot.c -- transient thermal simulation of a chip floorplan, in the
 * style of Rodinia's hotspot: a grid of temperatures and a grid of power
 * densities; each step computes the new temperature of every cell from its
 * four neighbours, then the two temperature buffers are swapped.
 *
 * Usage: hotspot [grid_rows] [grid_cols] [sim_time]
 */
#include <stdio.h>
#include <stdlib.h>

#define MAX_PD 3.0e6f
#define PRECISION 0.001f
#define SPEC_HEAT_SI 1.75e6f
#define K_SI 100.0f
#define FACTOR_CHIP 0.5f
#define T_CHIP 0.0005f
#define CHIP_HEIGHT 0.016f
#define CHIP_WIDTH 0.016f
#define AMB_TEMP 80.0f

typedef float FLOAT;

static void fatal(const char *msg)
{
    fprintf(stderr, "error: %s\n", msg);
    exit(1);
}

/* deterministic input: a few hot blocks on a cool die */
static void read_input(FLOAT *temp, FLOAT *power, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            int idx = r * cols + c;
            temp[idx] = 320.0f + (FLOAT)((r * 7 + c * 3) % 16) * 0.25f;
            int block = ((r / 16) + (c / 16)) % 5;
            power[idx] = block == 0 ? 64.0f : (block == 3 ? 16.0f : 0.0f);
        }
    }
}

static void single_iteration(FLOAT *result, const FLOAT *temp, const FLOAT *power, int row, int col,
                             FLOAT Cap_1, FLOAT Rx_1, FLOAT Ry_1, FLOAT Rz_1, FLOAT step)
{
    int size = row * col;
    (void)step;
#pragma omp target teams distribute parallel for collapse(2) \
        map(to: temp[0:size], power[0:size]) map(tofrom: result[0:size])
    for (int r = 0; r < row; r++) {
        for (int c = 0; c < col; c++) {
            int idx = r * col + c;
            FLOAT center = temp[idx];
            FLOAT north = r > 0 ? temp[idx - col] : center;
            FLOAT south = r < row - 1 ? temp[idx + col] : center;
            FLOAT west = c > 0 ? temp[idx - 1] : center;
            FLOAT east = c < col - 1 ? temp[idx + 1] : center;
            FLOAT delta = Cap_1 * (power[idx] + (south + north - 2.0f * center) * Ry_1 +
                                   (east + west - 2.0f * center) * Rx_1 +
                                   (AMB_TEMP - center) * Rz_1);
            result[idx] = center + delta;
        }
    }
}

/* returns the buffer that holds the final temperatures */
static FLOAT *compute_tran_temp(FLOAT *result, int num_iterations, FLOAT *temp, FLOAT *power,
                                int row, int col)
{
    FLOAT grid_height = CHIP_HEIGHT / row;
    FLOAT grid_width = CHIP_WIDTH / col;
    FLOAT Cap = FACTOR_CHIP * SPEC_HEAT_SI * T_CHIP * grid_width * grid_height;
    FLOAT Rx = grid_width / (2.0f * K_SI * T_CHIP * grid_height);
    FLOAT Ry = grid_height / (2.0f * K_SI * T_CHIP * grid_width);
    FLOAT Rz = T_CHIP / (K_SI * grid_height * grid_width);
    FLOAT max_slope = MAX_PD / (FACTOR_CHIP * T_CHIP * SPEC_HEAT_SI);
    FLOAT step = PRECISION / max_slope / 1000.0f;
    FLOAT Cap_1 = step / Cap, Rx_1 = 1.0f / Rx, Ry_1 = 1.0f / Ry, Rz_1 = 1.0f / Rz;

    FLOAT *r = result;
    FLOAT *t = temp;
    for (int i = 0; i < num_iterations; i++) {
        single_iteration(r, t, power, row, col, Cap_1, Rx_1, Ry_1, Rz_1, step);
        FLOAT *tmp = t;
        t = r;
        r = tmp;
    }
    return t;
}

int main(int argc, char **argv)
{
    int grid_rows = 128, grid_cols = 128, sim_time = 30;
    if (argc > 1)
        grid_rows = atoi(argv[1]);
    if (argc > 2)
        grid_cols = atoi(argv[2]);
    if (argc > 3)
        sim_time = atoi(argv[3]);
    if (grid_rows <= 0 || grid_cols <= 0 || sim_time <= 0)
        fatal("invalid argument");

    size_t size = (size_t)grid_rows * grid_cols;
    size_t bytes = size * sizeof(FLOAT);
    FLOAT *temp = (FLOAT *)malloc(bytes);
    FLOAT *power = (FLOAT *)malloc(bytes);
    FLOAT *result = (FLOAT *)calloc(size, sizeof(FLOAT));
    if (!temp || !power || !result)
        fatal("unable to allocate memory");

    read_input(temp, power, grid_rows, grid_cols);
    printf("Start computing the transient temperature (%dx%d, %d steps)\n", grid_rows, grid_cols,
           sim_time);
    FLOAT *final_temp = compute_tran_temp(result, sim_time, temp, power, grid_rows, grid_cols);
    printf("Ending simulation\n");

    double sum = 0.0;
    FLOAT tmin = final_temp[0], tmax = final_temp[0];
    for (size_t i = 0; i < size; i++) {
        sum += final_temp[i];
        if (final_temp[i] < tmin)
            tmin = final_temp[i];
        if (final_temp[i] > tmax)
            tmax = final_temp[i];
    }
    printf("mean %.6f  min %.6f  max %.6f\n", sum / size, tmin, tmax);
    for (int r = 0; r < grid_rows; r += grid_rows / 4)
        printf("row %3d: %.6f %.6f\n", r, final_temp[r * grid_cols], final_temp[r * grid_cols + grid_cols / 2]);

    free(temp);
    free(power);
    free(result);
    return 0;
}
