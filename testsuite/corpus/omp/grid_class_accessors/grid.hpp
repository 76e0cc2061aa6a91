// grid.hpp -- a 2-D field class: the arrays live in private std::vector members that
// allocate() sizes (not the constructor); callers reach them through accessors.
#pragma once
#include <vector>

class Grid {
public:
    Grid() : nx_(0), ny_(0) {}
    void allocate(int nx, int ny);
    int nx() const { return nx_; }
    int ny() const { return ny_; }
    double *u() { return u_.data(); }
    double *u_next() { return next_.data(); }
    double *source() { return src_.data(); }

private:
    int nx_, ny_;
    std::vector<double> u_, next_, src_;
};

void fill_source(Grid &g, double amplitude);
double wall_seconds();
