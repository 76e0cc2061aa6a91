#!/usr/bin/env bash
# Quick start 2 (and CI): set everything up, then run the whole test suite.
# The suite runs on several worker processes (pytest-xdist, a dev dependency): one per core,
# at most 4 (S2S_TEST_WORKERS=N chooses; 0 or 1 runs it in this process). Tests of one file
# stay on one worker (--dist loadfile), so a file's module fixtures are built once.
# Extra arguments go to pytest (an explicit -n/--numprocesses or -p no:xdist wins).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
workers=${S2S_TEST_WORKERS:-}
if [ -z "$workers" ]; then
  cores=$(nproc 2>/dev/null || echo 1)
  workers=$(( cores < 4 ? cores : 4 ))
fi
parallel=()
case " $* " in
  *" -n "*|*" -n"[0-9]*|*" --numprocesses"*|*" no:xdist "*|*"-pno:xdist"*) ;;
  *) if [ "$workers" -gt 1 ]; then parallel=(-n "$workers" --dist loadfile); fi ;;
esac
exec .venv/bin/python -m pytest "${parallel[@]}" "$@"
