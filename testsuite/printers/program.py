"""A small OpenMP program of two files and a header, written for the printer tests: ``main.c``
allocates and runs a time loop, ``solver.c`` holds the target regions, so only the analysis
of both as one program puts a data region in ``main.c`` and edits both files."""

from __future__ import annotations

HEADER = """#ifndef SOLVER_H
#define SOLVER_H
void relax(const double *in, double *out, int n);
void damp(double *a, double f, int n);
#endif
"""

SOLVER = """#include "solver.h"

void relax(const double *in, double *out, int n)
{
    #pragma omp target teams distribute parallel for map(to: in[0:n]) map(from: out[0:n])
    for (int i = 1; i < n - 1; i++)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
}

void damp(double *a, double f, int n)
{
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; i++)
        a[i] *= f;
}
"""

MAIN = """#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "solver.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2048;
    int steps = argc > 2 ? atoi(argv[2]) : 20;
    double *u = (double *)malloc((size_t)n * sizeof(double));
    double *w = (double *)malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++)
        u[i] = w[i] = (double)(i % 7);
    clock_t start = clock();
    for (int t = 0; t < steps; t++) {
        relax(u, w, n);
        damp(w, 0.99, n);
        double *swap = u;
        u = w;
        w = swap;
    }
    printf("Time: %.3f s\\n", (double)(clock() - start) / CLOCKS_PER_SEC);
    printf("u[n/2] = %.6f\\n", u[n / 2]);
    free(u);
    free(w);
    return 0;
}
"""

MAKEFILE = """CC ?= clang-16
CFLAGS ?= -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu
relax: main.o solver.o
\t$(CC) $(CFLAGS) -o $@ $^
"""


def write_program(directory) -> list:
    """Write the program under ``directory``; return the two source paths (main first)."""
    files = {"solver.h": HEADER, "solver.c": SOLVER, "main.c": MAIN, "Makefile": MAKEFILE}
    for name, text in files.items():
        (directory / name).write_text(text)
    return [directory / "main.c", directory / "solver.c"]
