/* mesh.c -- builds the mesh: lengths, connectivity, areas, initial field */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include "mesh.h"

double seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1.0e-6 * tv.tv_usec;
}

double *new_doubles(int count)
{
    double *p = (double *)malloc(sizeof(double) * count);
    if (p == NULL) {
        fprintf(stderr, "new_doubles(%d) failed\n", count);
        exit(1);
    }
    return p;
}

int *new_ints(int count)
{
    int *p = (int *)malloc(sizeof(int) * count);
    if (p == NULL) {
        fprintf(stderr, "new_ints(%d) failed\n", count);
        exit(1);
    }
    return p;
}

void mesh_build(Mesh *m, int nx)
{
    m->nx = nx;
    m->nelem = nx * nx;
    m->nnode = (nx + 1) * (nx + 1);
    m->conn = new_ints(4 * m->nelem);
    m->area = new_doubles(m->nelem);
    m->u = new_doubles(m->nnode);
    m->acc = new_doubles(m->nnode);
    for (int j = 0; j < nx; j++)
        for (int i = 0; i < nx; i++) {
            int e = j * nx + i, n0 = j * (nx + 1) + i;
            m->conn[4 * e + 0] = n0;
            m->conn[4 * e + 1] = n0 + 1;
            m->conn[4 * e + 2] = n0 + nx + 2;
            m->conn[4 * e + 3] = n0 + nx + 1;
            m->area[e] = 1.0 + 0.25 * ((i * 7 + j * 3) % 5);
        }
    for (int n = 0; n < m->nnode; n++)
        m->u[n] = (double)(n % 17) / 17.0;
}

void mesh_free(Mesh *m)
{
    free(m->conn);
    free(m->area);
    free(m->u);
    free(m->acc);
}
