#!/usr/bin/env bash
# Sets up everything s2s and its tests need; idempotent (a second run takes about a second).
#  - Debian packages: clang-16, clang-tools-16, libomp-16-dev (OpenMP host offload for tests),
#    cmake and make (the compiler wrapper's sample projects), openmpi-bin and libopenmpi-dev
#    (the runtime over MPI: mpirun, and the MPI that pip's mpi4py builds against), chromium
#    (the report page's test)
#  - a virtual environment in .venv with s2s installed editable, plus the dev extra
# Usage: scripts/setup.sh            (S2S_SKIP_APT=1 to leave system packages alone)
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }

need_apt=()
command -v clang-16 >/dev/null 2>&1 || need_apt+=(clang-16)
command -v clang-offload-packager-16 >/dev/null 2>&1 \
  || [ -x /usr/lib/llvm-16/bin/clang-offload-packager ] || need_apt+=(clang-tools-16)
ls /usr/lib/llvm-16/lib/libomptarget.so* >/dev/null 2>&1 || need_apt+=(libomp-16-dev)
# the wrapper's sample projects (testsuite/wrapper/test_build_projects.py)
command -v cmake >/dev/null 2>&1 || need_apt+=(cmake)
command -v make >/dev/null 2>&1 || need_apt+=(make)
# the runtime over MPI (runtime/mpi, testsuite/mpi); before pip, which builds mpi4py against it
command -v mpirun >/dev/null 2>&1 || need_apt+=(openmpi-bin)
command -v mpicc >/dev/null 2>&1 || need_apt+=(libopenmpi-dev)
# the HTML report's browser test (testsuite/printers/test_report_browser.py): Debian's
# chromium, about 21 s with the apt-get update on this machine kind (2026-11-26)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
if [ "${#need_apt[@]}" -gt 0 ] && [ "${S2S_SKIP_APT:-0}" != 1 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  log "installing Debian packages: ${need_apt[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  log "creating .venv with $($python --version)"
  $python -m venv .venv
fi
# Reinstall only when the project metadata changed since the last successful install.
stamp=.venv/.s2s-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  log "installing s2s and its dependencies into .venv"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e ".[dev]"
  echo "$want" > "$stamp"
fi
log "ready: $(.venv/bin/s2s --version)"
