#include <stdlib.h>

#include "tables.h"

#define STEPS_PER_RAY 24

#pragma omp declare target
/* Linear interpolation of one channel's coefficient at energy x in a material's segment
 * of the energy grid (binary search). */
static double coefficient(const double *energy, const double *mu, int first, int count,
                          double x, int channel)
{
    int lo = 0, hi = count - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (energy[first + mid] > x)
            hi = mid;
        else
            lo = mid;
    }
    double e0 = energy[first + lo], e1 = energy[first + hi];
    double f = (x - e0) / (e1 - e0);
    double m0 = mu[(long)(first + lo) * N_CHANNELS + channel];
    double m1 = mu[(long)(first + hi) * N_CHANNELS + channel];
    return m0 + f * (m1 - m0);
}
#pragma omp end declare target

/* Each ray enters at a voxel chosen from its index, loses energy along STEPS_PER_RAY
 * voxels and deposits what the tables say; returns the total deposited this step. */
double march_rays(Tables t, double *dose, int n_rays, int step)
{
    double total = 0.0;
#pragma omp target teams distribute parallel for reduction(+: total) \
        map(to: t.n_points, t.n_voxels, t.n_materials) \
        map(to: t.energy[0:t.len_energy], t.mu[0:t.len_mu], t.material_of[0:t.len_material_of], \
                t.density[0:t.len_density]) \
        map(from: dose[0:n_rays])
    for (int r = 0; r < n_rays; r++) {
        unsigned h = (unsigned)(r * 2654435761u) ^ (unsigned)(step * 40503u);
        int voxel = (int)(h % (unsigned)t.n_voxels);
        double energy = 0.05 + (h >> 20) / 4096.0;
        double deposited = 0.0;
        for (int s = 0; s < STEPS_PER_RAY; s++) {
            int m = t.material_of[voxel];
            int first = m * t.n_points;
            double lo = t.energy[first], hi = t.energy[first + t.n_points - 1];
            double x = energy < lo ? lo : (energy > hi ? hi : energy);
            double loss = 0.0;
            for (int c = 0; c < N_CHANNELS; c++)
                loss += coefficient(t.energy, t.mu, first, t.n_points, x, c);
            loss *= t.density[voxel] * 0.01;
            if (loss > energy * 0.5)
                loss = energy * 0.5;
            energy -= loss;
            deposited += loss;
            voxel = (voxel + 17 + (int)(h % 5)) % t.n_voxels;
        }
        dose[r] = deposited;
        total += deposited;
    }
    return total;
}
