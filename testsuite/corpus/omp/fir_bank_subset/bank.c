/* bank.c -- windowed-sinc filter bank and a test signal */
#include <math.h>
#include <sys/time.h>
#include "bank.h"

void design_bank(float *taps)
{
    const double pi = 3.14159265358979323846;
    for (int f = 0; f < 16; f++) {
        double cutoff = 0.02 + 0.015 * f;
        double sum = 0.0;
        for (int k = 0; k < 256; k++) {
            double m = k - 127.5;
            double h = sin(2.0 * pi * cutoff * m) / (pi * m);
            double w = 0.54 - 0.46 * cos(2.0 * pi * k / 255.0);
            taps[f * 256 + k] = (float)(h * w);
            sum += h * w;
        }
        for (int k = 0; k < 256; k++)
            taps[f * 256 + k] = (float)(taps[f * 256 + k] / sum);
    }
}

void make_signal(float *x, int count)
{
    for (int i = 0; i < count; i++)
        x[i] = (float)(sin(0.01 * i) + 0.3 * sin(0.9 * i) + 0.1 * ((i * 37) % 11 - 5));
}

double tick(void)
{
    struct timeval tv;
    gettimeofday(&tv, 0);
    return tv.tv_sec + tv.tv_usec / 1e6;
}
