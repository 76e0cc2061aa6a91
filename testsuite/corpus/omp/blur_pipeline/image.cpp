// image.cpp -- helpers that allocate, check and fill the pipeline's images
#include "image.hpp"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>

float *make_test_image(int width, int height, unsigned seed)
{
    float *img = new (std::nothrow) float[(std::size_t)width * height];
    if (!img) {
        std::fprintf(stderr, "make_test_image: out of memory (%dx%d)\n", width, height);
        std::exit(1);
    }
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            seed = seed * 1664525u + 1013904223u;
            float ramp = (float)((x / 16 + y / 16) % 2);
            img[(std::size_t)y * width + x] = 0.8f * ramp + 0.2f * (float)(seed >> 24) / 255.0f;
        }
    return img;
}

float *make_buffer(std::size_t pixels)
{
    std::size_t bytes;
    bytes = pixels * sizeof(float);
    float *buf = static_cast<float *>(std::malloc(bytes));
    if (buf == nullptr) {
        std::perror("make_buffer");
        std::exit(EXIT_FAILURE);
    }
    for (std::size_t i = 0; i < pixels; i++)
        buf[i] = 0.0f;
    return buf;
}

long long now_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double elapsed_ms(long long start_ns, long long stop_ns)
{
    return (stop_ns - start_ns) * 1e-6;
}
