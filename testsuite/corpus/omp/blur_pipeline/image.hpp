// image.hpp -- synthetic images and buffers for the blur/edge pipeline
#pragma once
#include <cstddef>

float *make_test_image(int width, int height, unsigned seed);
float *make_buffer(std::size_t pixels);
double elapsed_ms(long long start_ns, long long stop_ns);
long long now_ns();
