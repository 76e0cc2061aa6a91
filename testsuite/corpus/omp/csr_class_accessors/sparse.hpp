// sparse.hpp -- a CSR matrix class with accessors, filled by build_laplacian()
#pragma once
#include <vector>

class CsrMatrix {
public:
    CsrMatrix() : nrows_(0), nnz_(0) {}
    void reserve_pattern(int rows, int nnz);   // resizes the member vectors
    int rows() const { return nrows_; }
    int nonzeros() const { return nnz_; }
    int *row_ptr() { return row_ptr_.data(); }
    int *col_idx() { return col_idx_.data(); }
    double *values() { return values_.data(); }
    double diag(int r) const { return values_[diag_pos_[r]]; }
    std::vector<int> &diagonal_positions() { return diag_pos_; }

private:
    int nrows_, nnz_;
    std::vector<int> row_ptr_, col_idx_, diag_pos_;
    std::vector<double> values_;
};

void build_laplacian(CsrMatrix &A, int grid);
double now_s();
