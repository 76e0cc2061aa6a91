/*
 * match.c -- best ungapped placement of short reads on a reference window,
 * then a report: the host checks the device results against a second pass
 * with memcmp, prints the best reads with printf/puts/fputs, writes the
 * placement table with fwrite and compares read names with strcmp.
 *
 * Usage: match [nreads] [ref_len]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "seq.h"

int main(int argc, char **argv)
{
    int nreads = argc > 1 ? atoi(argv[1]) : 4000;
    int ref_len = argc > 2 ? atoi(argv[2]) : 3000;
    char *ref = malloc(ref_len + 1);
    char *reads = malloc((size_t)nreads * READ_LEN);
    int *best_pos = malloc(sizeof(int) * nreads);
    int *best_score = malloc(sizeof(int) * nreads);
    int *check_pos = malloc(sizeof(int) * nreads);
    char label[16];

    make_reference(ref, ref_len, 7u);
    ref[ref_len] = '\0';
    make_reads(reads, nreads, ref, ref_len, 99u);
    int windows = ref_len - READ_LEN + 1;

    double t0 = clock_seconds();
#pragma omp target teams distribute parallel for \
    map(to: ref[0:ref_len + 1], reads[0:nreads * READ_LEN]) map(from: best_pos[0:nreads], best_score[0:nreads])
    for (int r = 0; r < nreads; r++) {
        int top = -1, where = 0;
        for (int w = 0; w < windows; w++) {
            int score = 0;
            for (int k = 0; k < READ_LEN; k++)
                score += ref[w + k] == reads[r * READ_LEN + k];
            if (score > top) {
                top = score;
                where = w;
            }
        }
        best_pos[r] = where;
        best_score[r] = top;
    }
    double t1 = clock_seconds();

    /* second pass from the other end: same placements unless there are ties */
#pragma omp target teams distribute parallel for \
    map(to: ref[0:ref_len + 1], reads[0:nreads * READ_LEN], best_score[0:nreads]) map(from: check_pos[0:nreads])
    for (int r = 0; r < nreads; r++) {
        int where = 0;
        for (int w = windows - 1; w >= 0; w--) {
            int score = 0;
            for (int k = 0; k < READ_LEN; k++)
                score += ref[w + k] == reads[r * READ_LEN + k];
            if (score == best_score[r])
                where = w;
        }
        check_pos[r] = where;
    }

    puts("== placement report ==");
    if (memcmp(best_pos, check_pos, sizeof(int) * nreads) == 0)
        puts("forward and backward passes agree");
    else
        fputs("forward and backward passes differ\n", stdout);

    long perfect = 0, total = 0;
    for (int r = 0; r < nreads; r++) {
        total += best_score[r];
        perfect += best_score[r] == READ_LEN;
    }
    printf("%s: %d reads, %ld perfect, mean score %.4f\n", "summary", nreads, perfect,
           (double)total / nreads);
    for (int r = 0; r < 5; r++) {
        snprintf(label, sizeof label, "read%04d", r);
        if (strcmp(label, "read0003") == 0)
            printf("%s (checked) at %d score %d\n", label, best_pos[r], best_score[r]);
        else
            printf("%s at %d score %d\n", label, best_pos[r], best_score[r]);
    }
    printf("reference prefix %.12s, length %zu\n", ref, strlen(ref));
    FILE *table = fopen("/dev/null", "wb");
    if (table) {
        size_t written = fwrite(best_pos, sizeof(int), nreads, table);
        fwrite(best_score, sizeof(int), nreads, table);
        printf("table rows written: %zu\n", written);
        fclose(table);
    }
    fprintf(stderr, "matching: %.3f s\n", t1 - t0);
    free(ref);
    free(reads);
    free(best_pos);
    free(best_score);
    free(check_pos);
    return 0;
}
