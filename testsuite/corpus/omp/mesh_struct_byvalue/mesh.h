/* mesh.h -- a structured quad mesh stored as an unstructured one */
#ifndef MESH_H
#define MESH_H

typedef struct {
    int nx;         /* cells per side */
    int nelem;      /* nx * nx quads */
    int nnode;      /* (nx + 1)^2 nodes */
    int *conn;      /* 4 node ids per element */
    double *area;   /* one per element */
    double *u;      /* nodal field */
    double *acc;    /* nodal accumulator */
} Mesh;

void mesh_build(Mesh *m, int nx);
void mesh_free(Mesh *m);
double *new_doubles(int count);
int *new_ints(int count);
double seconds(void);

#endif
