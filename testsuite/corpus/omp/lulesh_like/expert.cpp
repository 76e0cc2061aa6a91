// lulesh.cpp -- a 1-D Lagrangian hydro proxy in the style of LULESH 2.0's
// C++ code: a Domain class owns its fields as std::vector<double>; every
// phase is a member function that takes the raw pointers with .data() into
// locals and runs a target region over them.  The Courant time constraint
// is a min reduction that the host reads every cycle.
//
// EXPERT mapping: the Domain maps its fields once (AllocateDevice, target
// enter data on the .data() pointers) and unmaps them at the end (ReleaseDevice,
// energy and positions come back); the kernels find everything present and
// only the Courant minimum travels each cycle.
//
// Usage: lulesh [elements] [cycles]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define GAMMA 1.4
#define QCOEF 1.0
#define CFL 0.5

class Domain {
public:
    explicit Domain(int numElem)
        : m_numElem(numElem), m_numNode(numElem + 1), m_x(numElem + 1), m_xd(numElem + 1),
          m_fx(numElem + 1), m_nodalMass(numElem + 1), m_e(numElem), m_p(numElem), m_q(numElem),
          m_v(numElem), m_elemMass(numElem)
    {
        const double dx = 1.0 / numElem;
        for (int i = 0; i < m_numNode; ++i) {
            m_x[i] = i * dx;
            m_xd[i] = 0.0;
            m_nodalMass[i] = (i == 0 || i == numElem) ? 0.5 * dx : dx;
        }
        for (int k = 0; k < numElem; ++k) {
            m_elemMass[k] = dx;
            m_v[k] = 1.0;
            m_e[k] = k < numElem / 16 ? 1.0 : 0.125;
            m_q[k] = 0.0;
        }
        m_dt = 1.0e-4;
        m_time = 0.0;
    }

    int numElem() const { return m_numElem; }
    double time() const { return m_time; }
    double dt() const { return m_dt; }
    const std::vector<double> &energy() const { return m_e; }
    const std::vector<double> &position() const { return m_x; }

    void CalcPressureForElems()
    {
        double *e = m_e.data(), *p = m_p.data(), *v = m_v.data();
        const int numElem = m_numElem;
#pragma omp target teams distribute parallel for
        for (int k = 0; k < numElem; ++k)
            p[k] = (GAMMA - 1.0) * e[k] / v[k];
    }

    void CalcForceForNodes()
    {
        double *fx = m_fx.data();
        const double *p = m_p.data(), *q = m_q.data();
        const int numNode = m_numNode, numElem = m_numElem;
#pragma omp target teams distribute parallel for
        for (int i = 0; i < numNode; ++i) {
            double left = i > 0 ? p[i - 1] + q[i - 1] : p[0] + q[0];
            double right = i < numElem ? p[i] + q[i] : 0.0;
            fx[i] = i == 0 ? 0.0 : left - right;
        }
    }

    void AdvanceNodes()
    {
        double *x = m_x.data(), *xd = m_xd.data();
        const double *fx = m_fx.data(), *mass = m_nodalMass.data();
        const int numNode = m_numNode;
        const double dt = m_dt;
#pragma omp target teams distribute parallel for
        for (int i = 0; i < numNode; ++i) {
            xd[i] += dt * fx[i] / mass[i];
            x[i] += dt * xd[i];
        }
    }

    void UpdateElems()
    {
        const double *x = m_x.data(), *xd = m_xd.data(), *emass = m_elemMass.data();
        double *e = m_e.data(), *p = m_p.data(), *q = m_q.data(), *v = m_v.data();
        const int numElem = m_numElem;
#pragma omp target teams distribute parallel for
        for (int k = 0; k < numElem; ++k) {
            double vnew = (x[k + 1] - x[k]) / (emass[k]);
            double dv = vnew - v[k];
            double du = xd[k + 1] - xd[k];
            q[k] = du < 0.0 ? QCOEF * du * du / vnew : 0.0;
            e[k] -= (p[k] + q[k]) * dv;
            if (e[k] < 0.0)
                e[k] = 0.0;
            v[k] = vnew;
        }
    }

    double CalcCourantConstraint()
    {
        const double *x = m_x.data(), *e = m_e.data(), *v = m_v.data();
        const int numElem = m_numElem;
        double dtmin = 1.0e20;
#pragma omp target teams distribute parallel for reduction(min: dtmin) \
        map(to: x[0:numElem + 1], e[0:numElem], v[0:numElem])
        for (int k = 0; k < numElem; ++k) {
            double ss = std::sqrt(GAMMA * (GAMMA - 1.0) * e[k] / v[k]) + 1.0e-12;
            double dtk = CFL * (x[k + 1] - x[k]) / ss;
            if (dtk < dtmin)
                dtmin = dtk;
        }
        return dtmin;
    }

    void AllocateDevice()
    {
        double *x = m_x.data(), *xd = m_xd.data(), *fx = m_fx.data(), *mass = m_nodalMass.data();
        double *e = m_e.data(), *p = m_p.data(), *q = m_q.data(), *v = m_v.data();
        double *emass = m_elemMass.data();
        const int numNode = m_numNode, numElem = m_numElem;
#pragma omp target enter data map(to: x[0:numNode], xd[0:numNode], mass[0:numNode], e[0:numElem], \
                                      q[0:numElem], v[0:numElem], emass[0:numElem]) \
                              map(alloc: fx[0:numNode], p[0:numElem])
    }

    void ReleaseDevice()
    {
        double *x = m_x.data(), *xd = m_xd.data(), *fx = m_fx.data(), *mass = m_nodalMass.data();
        double *e = m_e.data(), *p = m_p.data(), *q = m_q.data(), *v = m_v.data();
        double *emass = m_elemMass.data();
        const int numNode = m_numNode, numElem = m_numElem;
#pragma omp target exit data map(from: x[numNode - 1:1], e[0:numElem]) \
                             map(release: xd[0:numNode], mass[0:numNode], q[0:numElem], v[0:numElem], \
                                          emass[0:numElem], fx[0:numNode], p[0:numElem])
    }

    void LagrangeLeapFrog()
    {
        CalcPressureForElems();
        CalcForceForNodes();
        AdvanceNodes();
        UpdateElems();
        double dtc = CalcCourantConstraint();
        m_time += m_dt;
        m_dt = dtc < 1.1 * m_dt ? dtc : 1.1 * m_dt;
    }

private:
    int m_numElem, m_numNode;
    std::vector<double> m_x, m_xd, m_fx, m_nodalMass;
    std::vector<double> m_e, m_p, m_q, m_v, m_elemMass;
    double m_dt, m_time;
};

int main(int argc, char **argv)
{
    int numElem = 4096, cycles = 60;
    if (argc > 1)
        numElem = std::atoi(argv[1]);
    if (argc > 2)
        cycles = std::atoi(argv[2]);
    if (numElem < 16 || cycles < 1) {
        std::fprintf(stderr, "usage: %s [elements>=16] [cycles>=1]\n", argv[0]);
        return 1;
    }
    Domain domain(numElem);
    domain.AllocateDevice();
    for (int cycle = 1; cycle <= cycles; ++cycle) {
        domain.LagrangeLeapFrog();
        if (cycle % 20 == 0)
            std::printf("cycle %3d  time %.6e  dt %.6e\n", cycle, domain.time(), domain.dt());
    }
    domain.ReleaseDevice();
    const std::vector<double> &e = domain.energy();
    double etot = 0.0;
    for (int k = 0; k < domain.numElem(); ++k)
        etot += e[k];
    std::printf("final energy sum %.8e  e[0] %.8e  x[n] %.8e\n", etot, e[0],
                domain.position()[domain.numElem()]);
    return 0;
}
