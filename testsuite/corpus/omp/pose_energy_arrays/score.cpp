// score.cpp -- scores every pose of the deck on the device: the pose's rigid transform of
// the ligand, then a soft-sphere energy against every protein atom.
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "deck.hpp"

#pragma omp declare target
static inline float pose_energy(int p, const float *rx, const float *ry, const float *rz,
                                const float *tx, const float *ty, const float *tz,
                                const Atom *protein, int nprotein, const Atom *ligand,
                                int nligand, const float *radius)
{
    const float sx = sinf(rx[p]), cx = cosf(rx[p]);
    const float sy = sinf(ry[p]), cy = cosf(ry[p]);
    const float sz = sinf(rz[p]), cz = cosf(rz[p]);
    float energy = 0.0f;
    for (int l = 0; l < nligand; l++) {
        const Atom a = ligand[l];
        // rotate about x, then y, then z, then translate
        float y1 = cx * a.y - sx * a.z, z1 = sx * a.y + cx * a.z;
        float x2 = cy * a.x + sy * z1, z2 = -sy * a.x + cy * z1;
        float x3 = cz * x2 - sz * y1, y3 = sz * x2 + cz * y1;
        x3 += tx[p];
        y3 += ty[p];
        z2 += tz[p];
        for (int q = 0; q < nprotein; q++) {
            const Atom b = protein[q];
            const float dx = x3 - b.x, dy = y3 - b.y, dz = z2 - b.z;
            const float r2 = dx * dx + dy * dy + dz * dz;
            const float reach = radius[a.type] + radius[b.type];
            if (r2 < reach * reach)
                energy += (reach * reach - r2) / (reach * reach);
            else
                energy -= 0.01f / (1.0f + r2);
        }
    }
    return energy;
}
#pragma omp end declare target

std::vector<float> score_poses(const Deck &deck, int iterations, double &kernel_seconds)
{
    const int nposes = (int)deck.poses();
    const int nprotein = (int)deck.protein.size();
    const int nligand = (int)deck.ligand.size();
    const int ntypes = (int)deck.radius.size();

    // plain arrays for the device, one per degree of freedom
    std::array<float *, 6> dof{};
    Atom *protein = static_cast<Atom *>(std::malloc(sizeof(Atom) * nprotein));
    Atom *ligand = static_cast<Atom *>(std::malloc(sizeof(Atom) * nligand));
    float *radius = static_cast<float *>(std::malloc(sizeof(float) * ntypes));
    float *energies = static_cast<float *>(std::malloc(sizeof(float) * nposes));
    for (int d = 0; d < 6; d++)
        dof[d] = static_cast<float *>(std::malloc(sizeof(float) * nposes));

    for (int d = 0; d < 6; d++)
        std::memcpy(dof[d], deck.dof[d].data(), sizeof(float) * nposes);
    std::memcpy(protein, deck.protein.data(), sizeof(Atom) * nprotein);
    std::memcpy(ligand, deck.ligand.data(), sizeof(Atom) * nligand);
    std::memcpy(radius, deck.radius.data(), sizeof(float) * ntypes);
    for (int p = 0; p < nposes; p++)
        energies[p] = 0.0f;

    auto rx = dof[0];
    auto ry = dof[1];
    auto rz = dof[2];
    auto tx = dof[3];
    auto ty = dof[4];
    auto tz = dof[5];

    kernel_seconds = 0.0;
    float first = 0.0f;
    for (int it = 0; it < iterations; it++) {
        auto start = std::chrono::steady_clock::now();
#pragma omp target teams distribute parallel for \
    map(to: rx[0:nposes], ry[0:nposes], rz[0:nposes], tx[0:nposes], ty[0:nposes], tz[0:nposes]) \
    map(to: protein[0:nprotein], ligand[0:nligand], radius[0:ntypes]) map(tofrom: energies[0:nposes])
        for (int p = 0; p < nposes; p++)
            energies[p] = pose_energy(p, rx, ry, rz, tx, ty, tz, protein, nprotein, ligand,
                                      nligand, radius);
        first = energies[0];
        auto stop = std::chrono::steady_clock::now();
        kernel_seconds += std::chrono::duration<double>(stop - start).count();
    }
    std::printf("energy of pose 0 after %d iterations: %.5f\n", iterations, first);

    std::vector<float> out(energies, energies + nposes);
    std::free(protein);
    std::free(ligand);
    std::free(radius);
    std::free(energies);
    for (auto &d : dof)
        std::free(d);
    return out;
}
