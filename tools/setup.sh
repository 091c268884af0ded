#!/usr/bin/env bash
# First command of the README: install what is needed, build clustersim, run the main scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_dependencies.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCLUSTERSIM_TESTS=OFF -DCLUSTERSIM_MPI=ON \
  >/dev/null
cmake --build build --target clustersim
main_scenario=scenarios/deepseek-v3-decode.yaml   # DeepSeek-V3 decode, EP144 on an MPFT of H800 nodes
echo
echo "== build/clustersim run $main_scenario --out out/main --report"
build/clustersim run "$main_scenario" --out out/main --report
echo
echo "results: out/main/results.json, messages.csv, links.csv, nics.csv, tiers.csv,"
echo "gpu_timeline.csv, experts.csv, trace.json (open it in ui.perfetto.dev) and report.html"
echo "(plots, opens offline)"
