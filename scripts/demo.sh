#!/usr/bin/env bash
# Quick start 1: set everything up, then show what s2s finds in the bundled samples.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
shopt -s nullglob
.venv/bin/s2s inspect samples/cuda/*/*.cu samples/openmp/*/*.c samples/openmp/*/*.cpp "$@"
