"""Floors only host code gives (issue 28: ``stride >= 1`` in AMD's Jacobi and TeaLeaf): a
5-point stencil through ``id = (i + 1) + (j + 1) * stride`` reads ``U[id - stride]`` and
``U[id - 1]``, whose lower bounds ``1`` and ``stride`` compare only when ``stride >= 1``.
``int stride = mesh->Nx; int localNx = mesh->Nx - 2;`` before the construct and the loop
``i < localNx`` (which runs only when ``localNx >= 1``) give ``stride >= 3``. The program has
no map clause and its plan is refused (the construct's ``if`` clause: it may run on the
host), so the safety net maps the construct; run on clang-16 host offload: same output, no unmapped pointer."""

from __future__ import annotations

from s2s.verify import omp_harness
from testsuite.omp.omp_runs import rewrite_source, run_both

STENCIL = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { int Nx, Ny; } mesh_t;

void laplacian(mesh_t *mesh, const double *U, double *AU)
{
    int stride = mesh->Nx;
    int localNx = mesh->Nx - 2;
    int localNy = mesh->Ny - 2;
    #pragma omp target teams distribute parallel for collapse(2) if(localNx > 8)
    for (int j = 0; j < localNy; j++)
        for (int i = 0; i < localNx; i++) {
            const int id = (i + 1) + (j + 1) * stride;
            AU[id] = 4.0 * U[id] - U[id - 1] - U[id + 1] - U[id - stride] - U[id + stride];
        }
}

int main(int argc, char **argv)
{
    mesh_t mesh;
    mesh.Nx = argc > 1 ? atoi(argv[1]) : 40;
    mesh.Ny = argc > 2 ? atoi(argv[2]) : 30;
    double *U = malloc(sizeof(double) * mesh.Nx * mesh.Ny);
    double *AU = calloc(mesh.Nx * mesh.Ny, sizeof(double));
    for (int k = 0; k < mesh.Nx * mesh.Ny; k++) U[k] = (k % 13) * 0.25;
    for (int it = 0; it < 3; it++) {
        laplacian(&mesh, U, AU);
        for (int k = 0; k < mesh.Nx * mesh.Ny; k++) U[k] = 0.5 * U[k] + 0.1 * AU[k];
    }
    double s = 0;
    for (int k = 0; k < mesh.Nx * mesh.Ny; k++) s += U[k];
    printf("%.6f\n", s);
    free(U); free(AU);
    return 0;
}
"""


def test_a_stride_known_only_from_host_definitions_bounds_the_stencil(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, STENCIL, name="prog.c")
    counts = dict(out.counts)
    assert counts["left unmapped"] == 0, [d.message for d in out.diagnostics]
    assert "map(to: U[1:localNy*stride + localNx + stride])" in rewritten, rewritten
    original, new = run_both(tmp_path, STENCIL, rewritten)
    assert original.unmapped and new.unmapped == ()
    assert new.returncode == 0 and new.stdout == original.stdout
    assert omp_harness.unmapped_constructs(new) == 0


def test_a_stride_the_function_reassigns_gives_no_floor(load_source):
    changed = STENCIL.replace("    int localNy = mesh->Ny - 2;\n",
                              "    int localNy = mesh->Ny - 2;\n    if (localNy > 4) stride = 0;\n")
    rewritten, out = rewrite_source(load_source, changed, name="prog.c")
    assert "U[1:" not in rewritten
    assert dict(out.counts)["left unmapped"] == 1
