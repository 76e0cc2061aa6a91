/* jacobi.h -- mesh description and the solver's kernels (one file each) */
#ifndef JACOBI_H
#define JACOBI_H

typedef struct {
    int N;          /* points, boundary included */
    int Nx, Ny;     /* points per direction */
    double dx, dy;
} mesh_t;

void create_mesh(mesh_t *mesh, int nx, int ny);
void laplacian(mesh_t *mesh, double inv_dx2, double inv_dy2, const double *U, double *AU);
void update(mesh_t *mesh, double factor, double *U, const double *RHS, const double *AU,
            double *RES);
double norm(mesh_t *mesh, const double *RES);
double now_seconds(void);

#endif
