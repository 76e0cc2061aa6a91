// main.cpp -- slow the particles down step by step, tally a score per particle on the
// device, and let the driver re-weight one tracked particle and report it every 10 steps.
//
// Usage: deck [particles] [steps] [tracked particle]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "deck.hpp"

int main(int argc, char **argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
    const int steps = argc > 2 ? std::atoi(argv[2]) : 50;
    const int tracked = argc > 3 ? std::atoi(argv[3]) : 17;
    if (n < 1 || tracked < 0 || tracked >= n) {
        std::fprintf(stderr, "usage: %s [particles] [steps] [tracked < particles]\n", argv[0]);
        return 1;
    }
    Deck deck;
    deck.load(n, 2024u);
    double *e = deck.energies();
    double *w = deck.weights();
    double *s = deck.scores();
    const int count = deck.size();

    auto start = std::chrono::steady_clock::now();
    for (int step = 1; step <= steps; step++) {
        #pragma omp target teams distribute parallel for map(to: e[0:count], w[0:count]) map(tofrom: s[0:count])
        for (int i = 0; i < count; i++)
            s[i] += w[i] * e[i] * 1e-3;
        #pragma omp target teams distribute parallel for map(tofrom: e[0:count])
        for (int i = 0; i < count; i++)
            e[i] *= 0.99;
        if (step % 10 == 0) {
            deck.weight(tracked) = 2.0 * deck.weight(tracked);
            std::printf("step %3d: particle %d score %.9f\n", step, tracked,
                        deck.score(tracked));
        }
    }
    auto stop = std::chrono::steady_clock::now();

    std::printf("total score %.9f over %d particles\n", deck.total_score(), deck.size());
    std::fprintf(stderr, "deck: %.3f ms per step\n",
                 std::chrono::duration<double, std::milli>(stop - start).count() / steps);
    return 0;
}
