// jacobi.cpp -- weighted Jacobi on a CSR matrix object: the arrays are reached
// through the class's accessors (A.row_ptr(), A.values(), A.diag(r)).
//
// Usage: jacobi [grid] [iterations]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "sparse.hpp"

int main(int argc, char **argv)
{
    int grid = argc > 1 ? std::atoi(argv[1]) : 160;
    int iters = argc > 2 ? std::atoi(argv[2]) : 200;
    CsrMatrix A;
    build_laplacian(A, grid);
    const int n = A.rows();
    const int nnz = A.nonzeros();
    int *rp = A.row_ptr();
    int *ci = A.col_idx();
    double *val = A.values();

    std::vector<double> inv_diag(n), b(n), x(n, 0.0), xn(n);
    for (int r = 0; r < n; r++) {
        inv_diag[r] = 1.0 / A.diag(r);
        b[r] = 1.0 + (r % 7) * 0.1;
    }
    double *d = inv_diag.data(), *bp = b.data(), *xp = x.data(), *xnp = xn.data();

    double t0 = now_s();
    double res = 0.0;
#pragma omp target data map(to: rp[0:n + 1], ci[0:nnz], val[0:nnz], d[0:n], bp[0:n]) \
        map(tofrom: xp[0:n]) map(alloc: xnp[0:n])
    for (int it = 1; it <= iters; it++) {
#pragma omp target teams distribute parallel for
        for (int r = 0; r < n; r++) {
            double s = bp[r];
            for (int k = rp[r]; k < rp[r + 1]; k++)
                s -= val[k] * xp[ci[k]];
            xnp[r] = xp[r] + 0.8 * d[r] * s;
        }

        res = 0.0;
#pragma omp target teams distribute parallel for reduction(+: res)
        for (int r = 0; r < n; r++) {
            double diff = xnp[r] - xp[r];
            res += diff * diff;
            xp[r] = xnp[r];
        }
        if (it % 50 == 0)
            std::printf("iteration %4d: update norm %.8e\n", it, std::sqrt(res));
    }
    double t1 = now_s();

    double sum = 0.0;
    for (int r = 0; r < n; r++)
        sum += x[r];
    std::printf("n = %d, nnz = %d, sum(x) = %.10f, x[n/2] = %.10f\n", n, nnz, sum, x[n / 2]);
    std::fprintf(stderr, "jacobi: %.3f s\n", t1 - t0);
    return 0;
}
