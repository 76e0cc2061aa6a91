/*
 * nw.c -- Needleman-Wunsch global sequence alignment, organised like the
 * Rodinia OpenMP version: a (rows x cols) score matrix filled one
 * anti-diagonal at a time (one target region per diagonal, first the upper
 * left triangle, then the lower right one), then a traceback on the host.
 *
 * Usage: nw [max_rows/max_cols] [penalty]
 */
#include <stdio.h>
#include <stdlib.h>

#define LIMIT -999
#define ALPHABET 24

static const int blosum_diag[ALPHABET] = {4, 5, 6, 6, 9, 5, 5, 6, 8, 4, 4, 5,
                                          5, 6, 7, 4, 5, 11, 7, 4, 4, 4, 5, -4};

static int blosum(int a, int b)
{
    if (a == b)
        return blosum_diag[a];
    return ((a * 7 + b * 3) % 5) - 3;
}

static unsigned long seed = 7;

static int next_residue(void)
{
    seed = (seed * 6364136223846793005UL + 1442695040888963407UL);
    return (int)((seed >> 33) % (ALPHABET - 1)) + 1;
}

static inline int maximum(int a, int b, int c)
{
    int k = a <= b ? b : a;
    return k <= c ? c : k;
}

static void usage(const char *prog)
{
    fprintf(stderr, "Usage: %s <max_rows/max_cols> <penalty>\n", prog);
    exit(1);
}

int main(int argc, char **argv)
{
    int max_rows = 192, max_cols, penalty = 10;
    if (argc > 1)
        max_rows = atoi(argv[1]);
    if (argc > 2)
        penalty = atoi(argv[2]);
    if (max_rows < 8 || penalty < 0)
        usage(argv[0]);
    max_rows = max_rows + 1;
    max_cols = max_rows;

    int size = max_rows * max_cols;
    int *referrence = (int *)malloc(size * sizeof(int));
    int *input_itemsets = (int *)malloc(size * sizeof(int));
    int *seq_a = (int *)malloc(max_rows * sizeof(int));
    int *seq_b = (int *)malloc(max_cols * sizeof(int));
    if (!referrence || !input_itemsets || !seq_a || !seq_b) {
        fprintf(stderr, "error: can not allocate memory\n");
        return 1;
    }

    for (int i = 0; i < size; i++)
        input_itemsets[i] = 0;
    printf("Start Needleman-Wunsch\n");
    for (int i = 1; i < max_rows; i++)
        seq_a[i] = next_residue();
    for (int j = 1; j < max_cols; j++)
        seq_b[j] = next_residue();
    for (int i = 1; i < max_rows; i++)
        for (int j = 1; j < max_cols; j++)
            referrence[i * max_cols + j] = blosum(seq_a[i], seq_b[j]);
    for (int i = 1; i < max_rows; i++)
        input_itemsets[i * max_cols] = -i * penalty;
    for (int j = 1; j < max_cols; j++)
        input_itemsets[j] = -j * penalty;

    printf("Processing top-left matrix\n");
    for (int i = 0; i < max_cols - 2; i++) {
#pragma omp target teams distribute parallel for \
        map(to: referrence[0:size]) map(tofrom: input_itemsets[0:size])
        for (int idx = 0; idx <= i; idx++) {
            int index = (idx + 1) * max_cols + (i + 1 - idx);
            input_itemsets[index] = maximum(input_itemsets[index - 1 - max_cols] + referrence[index],
                                            input_itemsets[index - 1] - penalty,
                                            input_itemsets[index - max_cols] - penalty);
        }
    }
    printf("Processing bottom-right matrix\n");
    for (int i = max_cols - 4; i >= 0; i--) {
#pragma omp target teams distribute parallel for \
        map(to: referrence[0:size]) map(tofrom: input_itemsets[0:size])
        for (int idx = 0; idx <= i; idx++) {
            int index = (max_cols - idx - 2) * max_cols + idx + max_cols - i - 2;
            input_itemsets[index] = maximum(input_itemsets[index - 1 - max_cols] + referrence[index],
                                            input_itemsets[index - 1] - penalty,
                                            input_itemsets[index - max_cols] - penalty);
        }
    }

    /* traceback on the host */
    int i = max_rows - 2, j = max_rows - 2, matches = 0, gaps = 0, steps = 0;
    printf("score %d\n", input_itemsets[i * max_cols + j]);
    while (i > 0 && j > 0) {
        int nw = input_itemsets[(i - 1) * max_cols + j - 1];
        int w = input_itemsets[i * max_cols + j - 1] - penalty;
        int n = input_itemsets[(i - 1) * max_cols + j] - penalty;
        int here = input_itemsets[i * max_cols + j];
        if (here == nw + referrence[i * max_cols + j]) {
            if (seq_a[i] == seq_b[j])
                matches++;
            i--;
            j--;
        } else if (here == w) {
            j--;
            gaps++;
        } else {
            (void)n;
            i--;
            gaps++;
        }
        steps++;
    }
    printf("traceback: %d steps, %d matches, %d gaps, ends at (%d,%d)\n", steps, matches, gaps, i, j);
    long checksum = 0;
    for (int k = 0; k < size; k++)
        checksum += (long)input_itemsets[k] * (k % 13 + 1);
    printf("checksum %ld\n", checksum);

    free(referrence);
    free(input_itemsets);
    free(seq_a);
    free(seq_b);
    return 0;
}
