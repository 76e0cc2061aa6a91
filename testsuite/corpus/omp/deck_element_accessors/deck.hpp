// deck.hpp -- a deck of particles whose per-particle arrays are private vectors; kernels
// get them through accessors, the driver touches single particles through element
// accessors (weight(r), score(r)).
#pragma once
#include <vector>

class Deck {
public:
    Deck() = default;
    void load(int count, unsigned seed);     // sizes and fills the arrays (deck.cpp)
    int size() const { return n_; }

    double *energies() { return energy_.data(); }
    double *weights() { return weight_.data(); }
    double *scores() { return score_.data(); }

    double &weight(int r) { return weight_[r]; }
    double score(int r) const { return score_[r]; }
    double total_score() const;              // deck.cpp

private:
    int n_ = 0;
    std::vector<double> energy_, weight_, score_;
};
