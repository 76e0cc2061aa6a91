#!/usr/bin/env bash
# Quick start 1: set everything up, then show what s2s finds in the bundled samples and what
# it changes: the model of every sample (s2s inspect), then the OpenMP data-mapping rewrite of
# every OpenMP sample as a diff (s2s omp --explain; nothing is written).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
shopt -s nullglob
omp=()
for f in samples/openmp/*/*.c samples/openmp/*/*.cpp; do
  case "$f" in */expert.*) ;; *) omp+=("$f") ;; esac
done
.venv/bin/s2s inspect samples/cuda/*/*.cu "${omp[@]}" "$@"
echo
echo "=== s2s omp: suggested data mapping for the OpenMP samples (a diff; files untouched) ==="
.venv/bin/s2s omp --explain "${omp[@]}"
