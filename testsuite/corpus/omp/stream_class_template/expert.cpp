#include <cstdio>
#include <cstdlib>

#include "stream_kernels.hpp"

#ifndef STREAM_ALIGN
#define STREAM_ALIGN 64
#endif

template <typename T>
static T *aligned_array(std::intptr_t count)
{
    std::size_t bytes = sizeof(T) * (std::size_t)count;
    bytes = (bytes + STREAM_ALIGN - 1) / STREAM_ALIGN * STREAM_ALIGN;
    T *p = (T *)std::aligned_alloc(STREAM_ALIGN, bytes);
    if (p == nullptr) {
        std::fprintf(stderr, "out of memory: %zu bytes\n", bytes);
        std::exit(1);
    }
    return p;
}

template <typename T>
OffloadStream<T>::OffloadStream(std::intptr_t length, T init_a, T init_b, T init_c)
    : length(length)
{
    this->a = aligned_array<T>(length);
    this->b = aligned_array<T>(length);
    this->c = aligned_array<T>(length);
    T *a = this->a, *b = this->b, *c = this->c;
#pragma omp target enter data map(alloc: a[0:length], b[0:length], c[0:length])
    initialise(init_a, init_b, init_c);
}

template <typename T>
OffloadStream<T>::~OffloadStream()
{
    std::intptr_t length = this->length;
    T *a = this->a, *b = this->b, *c = this->c;
#pragma omp target exit data map(release: a[0:length], b[0:length], c[0:length])
    std::free(a);
    std::free(b);
    std::free(c);
}

template <typename T>
void OffloadStream<T>::initialise(T init_a, T init_b, T init_c)
{
    std::intptr_t length = this->length;
    T *a = this->a;
    T *b = this->b;
    T *c = this->c;
#pragma omp target teams distribute parallel for simd
    for (std::intptr_t i = 0; i < length; i++) {
        a[i] = init_a;
        b[i] = init_b;
        c[i] = init_c;
    }
}

template <typename T>
void OffloadStream<T>::fetch(const T *&host_a, const T *&host_b, const T *&host_c)
{
    std::intptr_t length = this->length;
    T *a = this->a, *b = this->b, *c = this->c;
#pragma omp target update from(a[0:length], b[0:length], c[0:length])
    host_a = a;
    host_b = b;
    host_c = c;
}

template <typename T>
void OffloadStream<T>::copy()
{
    std::intptr_t length = this->length;
    T *a = this->a;
    T *c = this->c;
#pragma omp target teams distribute parallel for simd
    for (std::intptr_t i = 0; i < length; i++)
        c[i] = a[i];
}

template <typename T>
void OffloadStream<T>::scale(T factor)
{
    std::intptr_t length = this->length;
    T *b = this->b;
    T *c = this->c;
#pragma omp target teams distribute parallel for simd
    for (std::intptr_t i = 0; i < length; i++)
        b[i] = factor * c[i];
}

template <typename T>
void OffloadStream<T>::add()
{
    std::intptr_t length = this->length;
    T *a = this->a;
    T *b = this->b;
    T *c = this->c;
#pragma omp target teams distribute parallel for simd
    for (std::intptr_t i = 0; i < length; i++)
        c[i] = a[i] + b[i];
}

template <typename T>
void OffloadStream<T>::triad(T factor)
{
    std::intptr_t length = this->length;
    T *a = this->a;
    T *b = this->b;
    T *c = this->c;
#pragma omp target teams distribute parallel for simd
    for (std::intptr_t i = 0; i < length; i++)
        a[i] = b[i] + factor * c[i];
}

template <typename T>
T OffloadStream<T>::dot()
{
    std::intptr_t length = this->length;
    T *a = this->a;
    T *b = this->b;
    T sum = 0;
#pragma omp target teams distribute parallel for simd reduction(+: sum)
    for (std::intptr_t i = 0; i < length; i++)
        sum += a[i] * b[i];
    return sum;
}

template class OffloadStream<float>;
template class OffloadStream<double>;
