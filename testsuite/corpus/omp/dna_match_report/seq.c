/* seq.c -- reference and reads (each read copied from the reference with a few errors) */
#include <stdlib.h>
#include <time.h>
#include "seq.h"

static const char BASES[4] = {'A', 'C', 'G', 'T'};

static unsigned step(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

void make_reference(char *ref, int len, unsigned seed)
{
    for (int i = 0; i < len; i++)
        ref[i] = BASES[step(&seed) & 3];
}

void make_reads(char *reads, int nreads, const char *ref, int ref_len, unsigned seed)
{
    for (int r = 0; r < nreads; r++) {
        int at = (int)(step(&seed) % (unsigned)(ref_len - READ_LEN));
        for (int k = 0; k < READ_LEN; k++) {
            char b = ref[at + k];
            if (step(&seed) % 29 == 0)
                b = BASES[step(&seed) & 3];
            reads[r * READ_LEN + k] = b;
        }
    }
}

double clock_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}
