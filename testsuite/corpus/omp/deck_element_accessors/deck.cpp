// deck.cpp -- loading the deck from a small linear congruential generator.
#include "deck.hpp"

void Deck::load(int count, unsigned seed)
{
    n_ = count;
    energy_.resize(count);
    weight_.resize(count);
    score_.resize(count);
    unsigned x = seed;
    for (int r = 0; r < count; r++) {
        x = x * 1103515245u + 12345u;
        energy_[r] = 1.0 + (x >> 8) % 1000 / 100.0;
        weight_[r] = 1.0;
        score_[r] = 0.0;
    }
}

double Deck::total_score() const
{
    double sum = 0.0;
    for (double s : score_)
        sum += s;
    return sum;
}
