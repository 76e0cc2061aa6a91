// deck.cpp -- builds a reproducible deck from a small linear congruential generator.
#include <cmath>
#include "deck.hpp"

namespace {
struct Lcg {
    unsigned state;
    float next()
    {
        state = state * 1664525u + 1013904223u;
        return (state >> 8) * (1.0f / 16777216.0f);
    }
};
}

Deck make_deck(int nprotein, int nligand, int ntypes, int nposes, unsigned seed)
{
    Lcg rng{seed};
    Deck deck;
    deck.protein.resize(nprotein);
    for (Atom &a : deck.protein)
        a = Atom{20.0f * rng.next() - 10.0f, 20.0f * rng.next() - 10.0f,
                 20.0f * rng.next() - 10.0f, (int)(rng.next() * ntypes) % ntypes};
    deck.ligand.resize(nligand);
    for (Atom &a : deck.ligand)
        a = Atom{2.0f * rng.next() - 1.0f, 2.0f * rng.next() - 1.0f, 2.0f * rng.next() - 1.0f,
                 (int)(rng.next() * ntypes) % ntypes};
    deck.radius.resize(ntypes);
    for (int t = 0; t < ntypes; t++)
        deck.radius[t] = 1.0f + 0.25f * t;
    for (int d = 0; d < 6; d++) {
        deck.dof[d].resize(nposes);
        for (int p = 0; p < nposes; p++)
            deck.dof[d][p] = d < 3 ? 6.2831853f * rng.next() : 8.0f * rng.next() - 4.0f;
    }
    return deck;
}
