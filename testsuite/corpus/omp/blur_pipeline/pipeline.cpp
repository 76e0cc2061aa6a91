// pipeline.cpp -- separable Gaussian blur, Sobel magnitude and an edge count,
// run `frames` times on a synthetic image (the frame is perturbed on the host
// between runs, as a camera loop would).
//
// Usage: pipeline [width] [height] [frames]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include "image.hpp"

static const float kWeights[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

int main(int argc, char **argv)
{
    int width, height, frames;
    std::size_t npix;
    width = argc > 1 ? std::atoi(argv[1]) : 512;
    height = argc > 2 ? std::atoi(argv[2]) : 384;
    frames = argc > 3 ? std::atoi(argv[3]) : 12;
    npix = (std::size_t)width * height;

    float *src = make_test_image(width, height, 42u);
    float *tmp = make_buffer(npix);
    float *blur = make_buffer(npix);
    float *mag = make_buffer(npix);
    const float w0 = kWeights[0], w1 = kWeights[1], w2 = kWeights[2];

    double total_ms = 0.0;
    long edge_total = 0;
    for (int f = 0; f < frames; f++) {
        long long t0 = now_ns();
        src[f * width + f] += 0.5f;   // a hot pixel moves along the diagonal

#pragma omp target teams distribute parallel for collapse(2) \
        map(to: src[0:npix]) map(from: tmp[0:npix])
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) {
                int xm2 = x < 2 ? 0 : x - 2, xm1 = x < 1 ? 0 : x - 1;
                int xp1 = x + 1 >= width ? width - 1 : x + 1, xp2 = x + 2 >= width ? width - 1 : x + 2;
                const float *row = src + (std::size_t)y * width;
                tmp[y * width + x] =
                    w0 * row[xm2] + w1 * row[xm1] + w2 * row[x] + w1 * row[xp1] + w0 * row[xp2];
            }

#pragma omp target teams distribute parallel for collapse(2) \
        map(to: tmp[0:npix]) map(from: blur[0:npix])
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) {
                int ym2 = y < 2 ? 0 : y - 2, ym1 = y < 1 ? 0 : y - 1;
                int yp1 = y + 1 >= height ? height - 1 : y + 1, yp2 = y + 2 >= height ? height - 1 : y + 2;
                blur[y * width + x] =
                    w0 * tmp[(std::size_t)ym2 * width + x] + w1 * tmp[(std::size_t)ym1 * width + x] +
                    w2 * tmp[y * width + x] + w1 * tmp[(std::size_t)yp1 * width + x] +
                    w0 * tmp[(std::size_t)yp2 * width + x];
            }

        long edges = 0;
#pragma omp target teams distribute parallel for collapse(2) reduction(+: edges) \
        map(to: blur[0:npix]) map(tofrom: mag[0:npix])
        for (int y = 1; y < height - 1; y++)
            for (int x = 1; x < width - 1; x++) {
                std::size_t c = y * width + x;
                float gx = blur[c + 1] - blur[c - 1] + 0.5f * (blur[c - width + 1] - blur[c - width - 1] +
                                                                blur[c + width + 1] - blur[c + width - 1]);
                float gy = blur[c + width] - blur[c - width] + 0.5f * (blur[c + width + 1] - blur[c - width + 1] +
                                                                        blur[c + width - 1] - blur[c - width - 1]);
                float m = std::sqrt(gx * gx + gy * gy);
                mag[c] = m;
                if (m > 0.25f)
                    edges++;
            }
        long long t1 = now_ns();
        total_ms += elapsed_ms(t0, t1);
        edge_total += edges;
        std::printf("frame %2d: %ld edge pixels\n", f, edges);
    }

    double sum = 0.0;
    for (std::size_t i = 0; i < npix; i++)
        sum += mag[i];
    std::printf("edge pixels over %d frames: %ld\n", frames, edge_total);
    std::printf("gradient magnitude sum: %.4f\n", sum);
    std::fprintf(stderr, "pipeline: %.2f ms per frame\n", total_ms / frames);
    delete[] src;
    std::free(tmp);
    std::free(blur);
    std::free(mag);
    return 0;
}
