/*
 * smooth.c -- area-weighted nodal smoothing on a mesh whose arrays and lengths
 * are set up in mesh.c; the Mesh is passed to the solver by value.
 *
 * Usage: smooth [nx] [sweeps]
 */
#include <stdio.h>
#include <stdlib.h>
#include "mesh.h"

static double smooth(Mesh m, int sweeps)
{
    double change = 0.0;
    for (int s = 0; s < sweeps; s++) {
#pragma omp target teams distribute parallel for map(to: m.nnode) map(from: m.acc[0:m.nnode])
        for (int n = 0; n < m.nnode; n++)
            m.acc[n] = 0.0;

#pragma omp target teams distribute parallel for \
        map(to: m.nelem, m.conn[0:4 * m.nelem], m.area[0:m.nelem], m.u[0:m.nnode]) \
        map(tofrom: m.acc[0:m.nnode])
        for (int e = 0; e < m.nelem; e++) {
            double avg = 0.25 * (m.u[m.conn[4 * e]] + m.u[m.conn[4 * e + 1]] +
                                 m.u[m.conn[4 * e + 2]] + m.u[m.conn[4 * e + 3]]);
            for (int k = 0; k < 4; k++) {
#pragma omp atomic update
                m.acc[m.conn[4 * e + k]] += m.area[e] * avg;
            }
        }

        change = 0.0;
#pragma omp target teams distribute parallel for reduction(+: change) \
        map(to: m.nnode, m.nx, m.acc[0:m.nnode]) map(tofrom: m.u[0:m.nnode])
        for (int n = 0; n < m.nnode; n++) {
            double weight = 0.0;
            int i = n % (m.nx + 1), j = n / (m.nx + 1);
            weight += (i > 0 && j > 0) + (i < m.nx && j > 0) + (i > 0 && j < m.nx) + (i < m.nx && j < m.nx);
            double next = m.acc[n] / (weight * 1.375);
            change += (next - m.u[n]) * (next - m.u[n]);
            m.u[n] = next;
        }
        if (s % 10 == 0)
            printf("sweep %3d: change %.6e\n", s, change);
    }
    return change;
}

int main(int argc, char **argv)
{
    int nx = argc > 1 ? atoi(argv[1]) : 200;
    int sweeps = argc > 2 ? atoi(argv[2]) : 60;
    Mesh mesh;
    mesh_build(&mesh, nx);
    printf("mesh: %d elements, %d nodes\n", mesh.nelem, mesh.nnode);

    double t0 = seconds();
    double change = smooth(mesh, sweeps);
    double t1 = seconds();

    double sum = 0.0;
    for (int n = 0; n < mesh.nnode; n++)
        sum += mesh.u[n];
    printf("final change %.6e, field sum %.8f, u[center] %.8f\n", change, sum,
           mesh.u[mesh.nnode / 2]);
    fprintf(stderr, "smoothing: %.3f s\n", t1 - t0);
    mesh_free(&mesh);
    return 0;
}
