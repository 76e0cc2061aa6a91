/* heat.h -- public interface of the explicit heat-equation solver. */
#ifndef HEAT_H
#define HEAT_H

void heat_solve(double *u, int nx, int ny, int steps, int report);

#endif
