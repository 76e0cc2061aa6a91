/* model.h -- a chain of damped oscillators, integrated with classic RK4 */
#ifndef RK4_MODEL_H
#define RK4_MODEL_H

#define NSTAGE 4

void init_state(double *x, double *v, int n);
double now_seconds(void);

#endif
