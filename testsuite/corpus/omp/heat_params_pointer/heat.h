/* heat.h -- 1-D heat equation: run parameters and the field, set up in setup.c */
#ifndef HEAT_H
#define HEAT_H

typedef struct {
    int nx;         /* interior points */
    int steps;      /* time steps */
    int report;     /* print every `report` steps */
    double alpha;   /* diffusivity */
    double dt;      /* time step */
    double source;  /* heat added per step at the centre */
} Params;

typedef struct {
    int n;          /* nx + 2 points, boundaries included */
    double *u;      /* temperature */
    double *un;     /* next temperature */
} Field;

void params_init(Params *P, int nx, int steps);
void field_init(Field *F, const Params *P);
void field_free(Field *F);

void add_source(const Params *P, Field *F);
void diffuse(const Params *P, Field *F);
void copy_back(Field *F);
double heat_total(const Field *F);

#endif
