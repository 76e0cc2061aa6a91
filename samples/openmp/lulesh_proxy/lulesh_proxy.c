/*
 * lulesh_proxy.c -- a 1-D Lagrangian shock hydrodynamics proxy with the
 * structure of LULESH: a Domain struct of node- and element-centred arrays,
 * a leap-frog time step split into many small kernels spread over many
 * functions, and a Courant time constraint (a min reduction) that the host
 * reads every cycle to choose the next time step.
 *
 * Every function pulls the members it needs into local pointers
 * (`double *x = d->x;`) and the kernels use those locals.  The blast energy
 * deposited in element 0 drives a shock to the right; node 0 sits on a
 * symmetry plane.
 *
 * Mapping style: naive.  Each kernel maps every array it touches tofrom
 * (through the local pointers), so each cycle moves every array several
 * times although the host only reads dt and, every 20 cycles, e[0].
 *
 * Usage: lulesh_proxy [elements] [max_cycles]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define GAMMA 1.4
#define QLC 0.5       /* linear artificial viscosity coefficient    */
#define QQC 2.0       /* quadratic artificial viscosity coefficient */
#define U_CUT 1.0e-10
#define V_CUT 1.0e-10
#define SS_MIN 1.0e-12

typedef struct Domain {
    /* node-centred */
    double *x, *xd, *xdd, *fx, *nodalMass;
    /* element-centred */
    double *e, *p, *q, *v, *vnew, *delv, *vol0, *ss, *elemMass;
    int numNode, numElem;
    double time, deltatime, dtcourant, stoptime;
    int cycle;
} Domain;

static double *alloc_field(int n)
{
    double *f = (double *)malloc((size_t)n * sizeof(double));
    if (!f) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return f;
}

static void InitDomain(Domain *d, int numElem)
{
    d->numElem = numElem;
    d->numNode = numElem + 1;
    d->x = alloc_field(d->numNode);
    d->xd = alloc_field(d->numNode);
    d->xdd = alloc_field(d->numNode);
    d->fx = alloc_field(d->numNode);
    d->nodalMass = alloc_field(d->numNode);
    d->e = alloc_field(numElem);
    d->p = alloc_field(numElem);
    d->q = alloc_field(numElem);
    d->v = alloc_field(numElem);
    d->vnew = alloc_field(numElem);
    d->delv = alloc_field(numElem);
    d->vol0 = alloc_field(numElem);
    d->ss = alloc_field(numElem);
    d->elemMass = alloc_field(numElem);

    const double dx = 1.0 / numElem;
    for (int i = 0; i < d->numNode; ++i) {
        d->x[i] = i * dx;
        d->xd[i] = 0.0;
    }
    for (int k = 0; k < numElem; ++k) {
        d->vol0[k] = dx;
        d->v[k] = 1.0;
        d->elemMass[k] = 1.0 * dx;                      /* rho0 = 1 */
        d->e[k] = k == 0 ? 0.25 / dx : 1.0e-6;          /* blast in element 0 */
        d->p[k] = (GAMMA - 1.0) * d->e[k];
        d->q[k] = 0.0;
        d->ss[k] = sqrt(GAMMA * d->p[k]);
    }
    for (int i = 0; i < d->numNode; ++i) {
        double left = i > 0 ? d->elemMass[i - 1] : 0.0;
        double right = i < numElem ? d->elemMass[i] : 0.0;
        d->nodalMass[i] = 0.5 * (left + right);
    }
    d->time = 0.0;
    d->cycle = 0;
    d->deltatime = 1.0e-7;
    d->dtcourant = 1.0e20;
    d->stoptime = 1.0;
}

static void FreeDomain(Domain *d)
{
    double *fields[] = {d->x, d->xd, d->xdd, d->fx, d->nodalMass, d->e, d->p, d->q,
                        d->v, d->vnew, d->delv, d->vol0, d->ss, d->elemMass};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; ++k)
        free(fields[k]);
}

/* host: next time step from the Courant constraint of the last cycle */
static void TimeIncrement(Domain *d)
{
    double dt = 0.5 * d->dtcourant;
    if (dt > 1.2 * d->deltatime)
        dt = 1.2 * d->deltatime;
    d->deltatime = dt;
    d->time += dt;
    ++d->cycle;
}

static void CalcForceForNodes(Domain *d)
{
    double *fx = d->fx, *p = d->p, *q = d->q;
    const int numNode = d->numNode, numElem = d->numElem;
    #pragma omp target teams distribute parallel for \
            map(tofrom: fx[0:numNode], p[0:numElem], q[0:numElem])
    for (int i = 0; i < numNode; ++i) {
        double left = i > 0 ? p[i - 1] + q[i - 1] : 0.0;
        double right = i < numElem ? p[i] + q[i] : 0.0;
        fx[i] = left - right;
    }
}

static void CalcAccelerationForNodes(Domain *d)
{
    double *xdd = d->xdd, *fx = d->fx, *nodalMass = d->nodalMass;
    const int numNode = d->numNode;
    #pragma omp target teams distribute parallel for \
            map(tofrom: xdd[0:numNode], fx[0:numNode], nodalMass[0:numNode])
    for (int i = 0; i < numNode; ++i)
        xdd[i] = fx[i] / nodalMass[i];
}

/* node 0 lies on the symmetry plane: no acceleration there */
static void ApplyAccelerationBoundaryConditionsForNodes(Domain *d)
{
    double *xdd = d->xdd;
    const int numNode = d->numNode;
    #pragma omp target map(tofrom: xdd[0:numNode])
    {
        xdd[0] = 0.0;
    }
}

static void CalcVelocityForNodes(Domain *d, double dt)
{
    double *xd = d->xd, *xdd = d->xdd;
    const int numNode = d->numNode;
    #pragma omp target teams distribute parallel for \
            map(tofrom: xd[0:numNode], xdd[0:numNode])
    for (int i = 0; i < numNode; ++i) {
        double v = xd[i] + xdd[i] * dt;
        xd[i] = fabs(v) < U_CUT ? 0.0 : v;
    }
}

static void CalcPositionForNodes(Domain *d, double dt)
{
    double *x = d->x, *xd = d->xd;
    const int numNode = d->numNode;
    #pragma omp target teams distribute parallel for \
            map(tofrom: x[0:numNode], xd[0:numNode])
    for (int i = 0; i < numNode; ++i)
        x[i] += xd[i] * dt;
}

static void LagrangeNodal(Domain *d)
{
    CalcForceForNodes(d);
    CalcAccelerationForNodes(d);
    ApplyAccelerationBoundaryConditionsForNodes(d);
    CalcVelocityForNodes(d, d->deltatime);
    CalcPositionForNodes(d, d->deltatime);
}

static void CalcKinematicsForElems(Domain *d)
{
    double *x = d->x, *vol0 = d->vol0, *v = d->v, *vnew = d->vnew, *delv = d->delv;
    const int numNode = d->numNode, numElem = d->numElem;
    #pragma omp target teams distribute parallel for \
            map(tofrom: x[0:numNode], vol0[0:numElem], v[0:numElem], vnew[0:numElem], \
                        delv[0:numElem])
    for (int k = 0; k < numElem; ++k) {
        vnew[k] = (x[k + 1] - x[k]) / vol0[k];
        delv[k] = vnew[k] - v[k];
    }
}

static void CalcQForElems(Domain *d)
{
    double *xd = d->xd, *q = d->q, *ss = d->ss, *vnew = d->vnew, *delv = d->delv;
    double *vol0 = d->vol0, *elemMass = d->elemMass;
    const int numNode = d->numNode, numElem = d->numElem;
    #pragma omp target teams distribute parallel for \
            map(tofrom: xd[0:numNode], q[0:numElem], ss[0:numElem], vnew[0:numElem], \
                        delv[0:numElem], vol0[0:numElem], elemMass[0:numElem])
    for (int k = 0; k < numElem; ++k) {
        double du = xd[k + 1] - xd[k];
        double rho = elemMass[k] / (vnew[k] * vol0[k]);
        q[k] = delv[k] < 0.0 ? QLC * rho * ss[k] * fabs(du) + QQC * rho * du * du : 0.0;
    }
}

static void EvalEOSForElems(Domain *d)
{
    double *e = d->e, *p = d->p, *q = d->q, *ss = d->ss, *vnew = d->vnew;
    double *delv = d->delv, *vol0 = d->vol0, *elemMass = d->elemMass;
    const int numElem = d->numElem;
    #pragma omp target teams distribute parallel for \
            map(tofrom: e[0:numElem], p[0:numElem], q[0:numElem], ss[0:numElem], \
                        vnew[0:numElem], delv[0:numElem], vol0[0:numElem], elemMass[0:numElem])
    for (int k = 0; k < numElem; ++k) {
        double en = e[k] - (p[k] + q[k]) * delv[k] * vol0[k] / elemMass[k];
        if (en < 0.0)
            en = 0.0;
        double rho = elemMass[k] / (vnew[k] * vol0[k]);
        p[k] = (GAMMA - 1.0) * rho * en;
        e[k] = en;
        double c2 = GAMMA * p[k] / rho;
        ss[k] = sqrt(c2 > SS_MIN ? c2 : SS_MIN);
    }
}

static void UpdateVolumesForElems(Domain *d)
{
    double *v = d->v, *vnew = d->vnew;
    const int numElem = d->numElem;
    #pragma omp target teams distribute parallel for \
            map(tofrom: v[0:numElem], vnew[0:numElem])
    for (int k = 0; k < numElem; ++k)
        v[k] = fabs(vnew[k] - 1.0) < V_CUT ? 1.0 : vnew[k];
}

static void LagrangeElements(Domain *d)
{
    CalcKinematicsForElems(d);
    CalcQForElems(d);
    EvalEOSForElems(d);
    UpdateVolumesForElems(d);
}

static void CalcTimeConstraintsForElems(Domain *d)
{
    double *x = d->x, *xd = d->xd, *ss = d->ss;
    const int numNode = d->numNode, numElem = d->numElem;
    double dtc = 1.0e20;
    #pragma omp target teams distribute parallel for reduction(min:dtc) \
            map(tofrom: x[0:numNode], xd[0:numNode], ss[0:numElem])
    for (int k = 0; k < numElem; ++k) {
        double len = x[k + 1] - x[k];
        double t = len / (ss[k] + fabs(xd[k + 1] - xd[k]));
        dtc = t < dtc ? t : dtc;
    }
    d->dtcourant = dtc;
}

static void LagrangeLeapFrog(Domain *d)
{
    LagrangeNodal(d);
    LagrangeElements(d);
    CalcTimeConstraintsForElems(d);
}

int main(int argc, char **argv)
{
    int numElem = 2000, maxCycles = 240;
    if (argc > 1) numElem = atoi(argv[1]);
    if (argc > 2) maxCycles = atoi(argv[2]);
    if (numElem < 8 || maxCycles < 1) {
        fprintf(stderr, "usage: %s [elements>=8] [max_cycles>=1]\n", argv[0]);
        return 1;
    }

    Domain dom;
    Domain *d = &dom;
    InitDomain(d, numElem);

    while (d->time < d->stoptime && d->cycle < maxCycles) {
        TimeIncrement(d);
        LagrangeLeapFrog(d);
        if (d->cycle % 20 == 0)
            printf("cycle %4d  time %.6e  dt %.6e  e(0) %.6e\n",
                   d->cycle, d->time, d->deltatime, d->e[0]);
    }

    /* host summary: total energy and the shock position */
    double eint = 0.0, ekin = 0.0, pmax = 0.0;
    int kmax = 0;
    for (int k = 0; k < d->numElem; ++k) {
        eint += d->e[k] * d->elemMass[k];
        if (d->p[k] > pmax) {
            pmax = d->p[k];
            kmax = k;
        }
    }
    for (int i = 0; i < d->numNode; ++i)
        ekin += 0.5 * d->nodalMass[i] * d->xd[i] * d->xd[i];
    printf("lulesh_proxy: elements=%d cycles=%d time=%.6e\n", d->numElem, d->cycle, d->time);
    printf("final origin energy %.6e  total energy %.6e (internal %.6e, kinetic %.6e)\n",
           d->e[0], eint + ekin, eint, ekin);
    printf("shock at element %d  p max %.6e  outer node x %.6e\n",
           kmax, pmax, d->x[d->numNode - 1]);

    FreeDomain(d);
    return 0;
}
