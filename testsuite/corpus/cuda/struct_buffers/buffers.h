// buffers.h -- the device state of the particle update, allocated and released together.
#ifndef BUFFERS_H
#define BUFFERS_H

struct Buffers {
    float *pos;
    float *vel;
    float *force;
    int n;
};

Buffers make_buffers(int n);
void free_buffers(Buffers &b);

#endif
