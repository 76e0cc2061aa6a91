// sparse.cpp -- 2-D 5-point Laplacian (plus a small shift) on a grid x grid mesh
#include "sparse.hpp"
#include <chrono>

void CsrMatrix::reserve_pattern(int rows, int nnz)
{
    nrows_ = rows;
    nnz_ = nnz;
    row_ptr_.resize(rows + 1);
    col_idx_.resize(nnz);
    values_.resize(nnz);
    diag_pos_.resize(rows);
}

void build_laplacian(CsrMatrix &A, int grid)
{
    int n = grid * grid;
    A.reserve_pattern(n, 5 * n - 4 * grid);
    int *rp = A.row_ptr();
    int *ci = A.col_idx();
    double *v = A.values();
    std::vector<int> &dp = A.diagonal_positions();
    int k = 0;
    for (int r = 0; r < n; r++) {
        int i = r % grid, j = r / grid;
        rp[r] = k;
        if (j > 0) { ci[k] = r - grid; v[k++] = -1.0; }
        if (i > 0) { ci[k] = r - 1; v[k++] = -1.0; }
        dp[r] = k;
        ci[k] = r; v[k++] = 4.05;
        if (i < grid - 1) { ci[k] = r + 1; v[k++] = -1.0; }
        if (j < grid - 1) { ci[k] = r + grid; v[k++] = -1.0; }
    }
    rp[n] = k;
}

double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
