/* samples.h -- a weighted sample set and the grid its density is estimated on */
#ifndef SAMPLES_H
#define SAMPLES_H

typedef struct {
    int n;              /* number of samples */
    int bins;           /* grid points of the estimate */
    double bandwidth;   /* kernel width, from Silverman's rule */
    double lo, step;    /* grid origin and spacing */
    double *x;          /* sample positions */
    double *w;          /* sample weights */
    double *density;    /* estimate on the grid (output) */
} SampleSet;

SampleSet *sample_set_create(int n, int bins);
void sample_set_free(SampleSet *s);
double seconds(void);

#endif
