/* seq.h -- synthetic reads and a reference for the matcher */
#ifndef SEQ_H
#define SEQ_H

#define READ_LEN 32

void make_reference(char *ref, int len, unsigned seed);
void make_reads(char *reads, int nreads, const char *ref, int ref_len, unsigned seed);
double clock_seconds(void);

#endif
