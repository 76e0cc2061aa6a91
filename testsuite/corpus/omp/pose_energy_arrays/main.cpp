// main.cpp -- pose_energy: scores the poses of a synthetic docking deck.
//
// Usage: pose_energy [poses] [iterations] [protein atoms] [ligand atoms]
#include <cstdio>
#include <cstdlib>
#include "deck.hpp"

int main(int argc, char **argv)
{
    int nposes = argc > 1 ? std::atoi(argv[1]) : 2048;
    int iterations = argc > 2 ? std::atoi(argv[2]) : 4;
    int nprotein = argc > 3 ? std::atoi(argv[3]) : 400;
    int nligand = argc > 4 ? std::atoi(argv[4]) : 24;
    Deck deck = make_deck(nprotein, nligand, 6, nposes, 12345u);
    double seconds = 0.0;
    std::vector<float> energies = score_poses(deck, iterations, seconds);
    double total = 0.0;
    float best = energies[0];
    int best_pose = 0;
    for (int p = 0; p < nposes; p++) {
        total += energies[p];
        if (energies[p] < best) {
            best = energies[p];
            best_pose = p;
        }
    }
    std::printf("poses %d, protein %d, ligand %d\n", nposes, nprotein, nligand);
    std::printf("best pose %d energy %.5f, mean energy %.6f\n", best_pose, best,
                total / nposes);
    for (int p = 0; p < 4; p++)
        std::printf("  pose %d: %.5f\n", p, energies[p]);
    std::fprintf(stderr, "kernel time: %.3f s\n", seconds);
    return 0;
}
