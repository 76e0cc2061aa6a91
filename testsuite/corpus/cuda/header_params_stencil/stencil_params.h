// stencil_params.h -- the problem's parameters, shared by the host code and the kernels.
#ifndef STENCIL_PARAMS_H
#define STENCIL_PARAMS_H

struct Params {
    int n;
    float alpha;
    float beta;
};

#endif
