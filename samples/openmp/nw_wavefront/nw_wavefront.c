/*
 * nw_wavefront.c -- Needleman-Wunsch global sequence alignment (after
 * Rodinia's nw), computed one anti-diagonal at a time.
 *
 * score is an (n+1) x (n+1) matrix whose first row and column hold the gap
 * penalties; cell (i,j) depends on (i-1,j-1), (i-1,j) and (i,j-1), so all
 * cells of one anti-diagonal i+j = d are independent.  The host loops over
 * the 2n-1 diagonals and launches one kernel per diagonal.  Afterwards the
 * host traces the optimal alignment back from (n,n), which reads a
 * data-dependent path through the whole matrix.
 *
 * Mapping style: naive.  Every diagonal kernel maps both matrices tofrom,
 * so the whole score and similarity matrices cross twice per diagonal
 * although each kernel touches one diagonal of them and the host needs
 * score only after the last one.
 *
 * Usage: nw_wavefront [n] [penalty]
 */
#include <stdio.h>
#include <stdlib.h>

/* a small substitution table over a 4-letter alphabet */
static const int SUBST[4][4] = {
    { 5, -4, -2, -4},
    {-4,  5, -4, -2},
    {-2, -4,  5, -4},
    {-4, -2, -4,  5},
};

/* pseudo-random sequences over {0,1,2,3}; b is a mutated copy of a */
static void make_sequences(int n, int *a, int *b)
{
    unsigned s = 12345u;
    for (int i = 0; i < n; ++i) {
        s = s * 1103515245u + 12345u;
        a[i] = (int)((s >> 16) & 3u);
    }
    for (int i = 0; i < n; ++i) {
        s = s * 1103515245u + 12345u;
        unsigned r = (s >> 16) % 10u;
        b[i] = r < 7 ? a[i] : (r < 9 ? (a[i] + 1) % 4 : a[(i + 3) % n]);
    }
}

int main(int argc, char **argv)
{
    int n = 256, penalty = 3;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) penalty = atoi(argv[2]);
    if (n < 8 || penalty < 0) {
        fprintf(stderr, "usage: %s [n>=8] [penalty>=0]\n", argv[0]);
        return 1;
    }

    const int ld = n + 1;
    const size_t cells = (size_t)ld * (size_t)ld;
    int *seq_a = (int *)malloc((size_t)n * sizeof(int));
    int *seq_b = (int *)malloc((size_t)n * sizeof(int));
    int *score = (int *)malloc(cells * sizeof(int));
    int *ref = (int *)malloc(cells * sizeof(int));
    if (!seq_a || !seq_b || !score || !ref) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    make_sequences(n, seq_a, seq_b);

    /* similarity of every pair of positions, gap penalties on the border */
    for (int i = 0; i < ld; ++i)
        for (int j = 0; j < ld; ++j) {
            ref[(size_t)i * ld + j] = (i > 0 && j > 0) ? SUBST[seq_a[i - 1]][seq_b[j - 1]] : 0;
            score[(size_t)i * ld + j] = 0;
        }
    for (int i = 0; i < ld; ++i) {
        score[(size_t)i * ld] = -i * penalty;
        score[i] = -i * penalty;
    }

    /* wavefront: diagonal d holds the cells with i + j = d, 1 <= i, j <= n */
    for (int d = 2; d <= 2 * n; ++d) {
        const int ilo = d - n > 1 ? d - n : 1;
        const int ihi = d - 1 < n ? d - 1 : n;
        #pragma omp target teams distribute parallel for \
                map(tofrom: score[0:cells], ref[0:cells])
        for (int i = ilo; i <= ihi; ++i) {
            const int j = d - i;
            const size_t c = (size_t)i * ld + j;
            int best = score[c - ld - 1] + ref[c];
            int up = score[c - ld] - penalty;
            int left = score[c - 1] - penalty;
            if (up > best) best = up;
            if (left > best) best = left;
            score[c] = best;
        }
    }

    /* host traceback from the bottom-right corner */
    int i = n, j = n, matches = 0, mismatches = 0, gaps = 0, steps = 0;
    while (i > 0 || j > 0) {
        const size_t c = (size_t)i * ld + j;
        if (i > 0 && j > 0 && score[c] == score[c - ld - 1] + ref[c]) {
            if (seq_a[i - 1] == seq_b[j - 1]) ++matches; else ++mismatches;
            --i;
            --j;
        } else if (i > 0 && score[c] == score[c - ld] - penalty) {
            ++gaps;
            --i;
        } else {
            ++gaps;
            --j;
        }
        ++steps;
    }

    printf("nw_wavefront: n=%d penalty=%d diagonals=%d\n", n, penalty, 2 * n - 1);
    printf("alignment score %d  length %d  matches %d  mismatches %d  gaps %d\n",
           score[cells - 1], steps, matches, mismatches, gaps);
    printf("score[n/2][n/2] = %d  score[1][n] = %d  score[n][1] = %d\n",
           score[(size_t)(n / 2) * ld + n / 2], score[n + ld], score[(size_t)n * ld + 1]);

    free(seq_a);
    free(seq_b);
    free(score);
    free(ref);
    return 0;
}
