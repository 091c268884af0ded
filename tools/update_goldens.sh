#!/usr/bin/env bash
# Rewrites every tests/golden/*.golden from the current build (run after a change that is meant
# to move results; explain each changed golden in the commit that changes it).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target clustersim golden_check
for g in tests/golden/*.golden; do
  build/golden_check build/clustersim "$PWD" "$g" --update
done
git --no-pager diff --stat -- tests/golden || true
