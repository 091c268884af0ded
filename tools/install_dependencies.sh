#!/usr/bin/env bash
# Installs the Debian packages clustersim builds with; does nothing when all are present, so it
# is safe to run any number of times.
set -euo pipefail
packages=(build-essential cmake ninja-build libboost-graph-dev libyaml-cpp-dev
          libfmt-dev libcli11-dev catch2 nlohmann-json3-dev python3
          clang libclang-rt-14-dev   # clang + its runtime: the libFuzzer targets (tools/fuzz.sh)
          libopenmpi-dev openmpi-bin   # sweeps over MPI ranks (CLUSTERSIM_MPI)
          libmetis-dev                 # partitions of the network for the windowed engine
          python3-matplotlib           # report.html (tools/report.py)
          chromium)                    # the report test opens report.html headless
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
