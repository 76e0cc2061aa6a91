#ifndef TIMER_H
#define TIMER_H
#include <sys/time.h>

static double wall_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1e3 + tv.tv_usec * 1e-3;
}
#endif
