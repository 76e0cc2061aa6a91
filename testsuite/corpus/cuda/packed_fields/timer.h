// timer.h -- wall-clock timing with gettimeofday, as the suites' utilities do.
#pragma once
#include <sys/time.h>

static inline double wall_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, 0);
    return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0;
}
