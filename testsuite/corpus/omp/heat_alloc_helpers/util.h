/* util.h -- allocation and timing helpers shared by the heat solver */
#ifndef HEAT_UTIL_H
#define HEAT_UTIL_H
#include <stddef.h>

double *alloc_field(size_t count, double value);
int *alloc_mask(size_t count);
double get_time(void);

#endif
