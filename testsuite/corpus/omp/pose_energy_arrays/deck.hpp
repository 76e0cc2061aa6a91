// deck.hpp -- a synthetic docking deck: protein atoms, ligand atoms and the six degrees of
// freedom of every pose (three rotation angles, three translations).
#pragma once
#include <array>
#include <cstddef>
#include <vector>

struct Atom {
    float x, y, z;
    int type;
};

struct Deck {
    std::vector<Atom> protein;
    std::vector<Atom> ligand;
    std::vector<float> radius;               // per atom type
    std::array<std::vector<float>, 6> dof;   // rx, ry, rz, tx, ty, tz per pose
    std::size_t poses() const { return dof[0].size(); }
};

Deck make_deck(int nprotein, int nligand, int ntypes, int nposes, unsigned seed);

// score.cpp
std::vector<float> score_poses(const Deck &deck, int iterations, double &kernel_seconds);
