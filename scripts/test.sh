#!/usr/bin/env bash
# Quick start 2 (and CI): set everything up, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
