/* bank.h -- a bank of 16 low-pass FIR filters of 256 taps, stored back to back */
#ifndef FIR_BANK_H
#define FIR_BANK_H

void design_bank(float *taps);            /* fills 4096 coefficients */
void make_signal(float *x, int count);
double tick(void);

#endif
