// hotspot.cu: thermal simulation on a chip grid (rodinia style): reads the initial
// temperatures and the power map from files, iterates a 5-point stencil, writes the result.
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#define BLOCK_SIZE 16
#define MAX_PD (3.0e6)
#define PRECISION 0.001
#define SPEC_HEAT_SI 1.75e6
#define K_SI 100
#define FACTOR_CHIP 0.5

static const float t_chip = 0.0005f, chip_height = 0.016f, chip_width = 0.016f, amb_temp = 80.0f;

static void fatal(const char *s)
{
    fprintf(stderr, "error: %s\n", s);
    exit(1);
}

static void read_input(float *vect, int rows, int cols, const char *file)
{
    char line[256];
    FILE *fp = fopen(file, "r");
    if (!fp)
        fatal("file could not be opened for reading");
    for (int i = 0; i < rows * cols; i++) {
        if (!fgets(line, sizeof line, fp))
            fatal("not enough lines in file");
        float val;
        if (sscanf(line, "%f", &val) != 1)
            fatal("invalid file format");
        vect[i] = val;
    }
    fclose(fp);
}

__global__ void calculate_temp(int cols, int rows, const float *power, const float *temp_src,
                               float *temp_dst, float Cap_1, float Rx_1, float Ry_1, float Rz_1,
                               float step_div)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;
    int idx = r * cols + c;
    float center = temp_src[idx];
    float north = temp_src[(r > 0 ? r - 1 : r) * cols + c];
    float south = temp_src[(r < rows - 1 ? r + 1 : r) * cols + c];
    float west = temp_src[r * cols + (c > 0 ? c - 1 : c)];
    float east = temp_src[r * cols + (c < cols - 1 ? c + 1 : c)];
    temp_dst[idx] = center + step_div * Cap_1 *
        (power[idx] + (south + north - 2.0f * center) * Ry_1 +
         (east + west - 2.0f * center) * Rx_1 + (80.0f - center) * Rz_1);
}

static void write_output(const float *vect, int rows, int cols, const char *file)
{
    FILE *fp = fopen(file, "w");
    if (!fp)
        fatal("cannot write the output file");
    for (int i = 0; i < rows; i += rows / 8)
        for (int j = 0; j < cols; j += cols / 8)
            fprintf(fp, "%d\t%g\n", i * cols + j, vect[i * cols + j]);
    fclose(fp);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s <rows/cols> <iterations> <temp_file> <power_file> <out_file> <unused>\n",
                argv[0]);
        return 1;
    }
    int n = atoi(argv[1]);
    int iterations = atoi(argv[2]);
    int size = n * n;
    float *temp = (float *)malloc(size * sizeof(float));
    float *power = (float *)malloc(size * sizeof(float));
    float *result = (float *)malloc(size * sizeof(float));
    read_input(temp, n, n, argv[3]);
    read_input(power, n, n, argv[4]);

    float grid_height = chip_height / n, grid_width = chip_width / n;
    float Cap = FACTOR_CHIP * SPEC_HEAT_SI * t_chip * grid_width * grid_height;
    float Rx = grid_width / (2.0 * K_SI * t_chip * grid_height);
    float Ry = grid_height / (2.0 * K_SI * t_chip * grid_width);
    float Rz = t_chip / (K_SI * grid_height * grid_width);
    float max_slope = MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI);
    float step = PRECISION / max_slope;

    float *d_temp[2], *d_power;
    cudaMalloc((void **)&d_temp[0], size * sizeof(float));
    cudaMalloc((void **)&d_temp[1], size * sizeof(float));
    cudaMalloc((void **)&d_power, size * sizeof(float));
    cudaMemcpy(d_temp[0], temp, size * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_power, power, size * sizeof(float), cudaMemcpyHostToDevice);

    struct timeval t0, t1;
    gettimeofday(&t0, NULL);
    dim3 threads(BLOCK_SIZE, BLOCK_SIZE);
    dim3 blocks((n + BLOCK_SIZE - 1) / BLOCK_SIZE, (n + BLOCK_SIZE - 1) / BLOCK_SIZE);
    int src = 0;
    for (int t = 0; t < iterations; t++) {
        calculate_temp<<<blocks, threads>>>(n, n, d_power, d_temp[src], d_temp[1 - src], 1.0f / Cap,
                                            1.0f / Rx, 1.0f / Ry, 1.0f / Rz, step);
        src = 1 - src;
    }
    cudaDeviceSynchronize();
    gettimeofday(&t1, NULL);
    printf("Ending simulation\nTotal time: %.3f ms\n",
           (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_usec - t0.tv_usec) * 1e-3);
    cudaMemcpy(result, d_temp[src], size * sizeof(float), cudaMemcpyDeviceToHost);
    write_output(result, n, n, argv[5]);
    printf("center %.4f corner %.4f\n", result[(n / 2) * n + n / 2], result[0]);
    cudaFree(d_power);
    cudaFree(d_temp[0]);
    cudaFree(d_temp[1]);
    free(temp);
    free(power);
    free(result);
    return 0;
}
