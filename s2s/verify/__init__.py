"""Checking rewrites by running them: build, run and compare the original and rewritten programs.

``omp_harness`` builds OpenMP offload programs for clang-16's host device and measures their
copies and unmapped pointers; ``omp_random`` generates random offload programs and checks
``s2s omp`` on them. Both use the standard library only.
"""
