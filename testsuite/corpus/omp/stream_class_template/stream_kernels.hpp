// Device-resident STREAM arrays owned by a class template: the arrays are allocated in the
// constructor and released in the destructor; every kernel is a member function working on
// local copies of the member pointers (the usual first GPU port of a CPU class).
#ifndef STREAM_KERNELS_HPP
#define STREAM_KERNELS_HPP

#include <cstdint>

template <typename T>
class OffloadStream {
public:
    OffloadStream(std::intptr_t length, T init_a, T init_b, T init_c);
    ~OffloadStream();

    void initialise(T init_a, T init_b, T init_c);
    void copy();
    void scale(T factor);
    void add();
    void triad(T factor);
    T dot();
    void fetch(const T *&host_a, const T *&host_b, const T *&host_c);

private:
    std::intptr_t length;
    T *a;
    T *b;
    T *c;
};

#endif
