#!/usr/bin/env bash
# A sweep over 2 MPI ranks gives the rows of a one-thread sweep (ctest "mpi: ...", built with
# -DCLUSTERSIM_MPI=ON). Usage: mpi_sweep_test.sh CLUSTERSIM SOURCE_DIR WORK_DIR
set -euo pipefail
bin=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cat > "$work/sweep.yaml" <<YAML
base:
  cluster: {node: h800}
  topology: {kind: ft2, endpoints: 32}
  workload: {kind: alltoall, message_bytes: 16KiB}
grid:
  topology.kind: [ft2, mpft, ft3]
  network.link_rate_gbps: [200, 400]
objective: bandwidth.busbw_GBps
YAML
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # CI containers run as root
mpirun --oversubscribe -n 2 "$bin" sweep "$work/sweep.yaml" --out "$work/mpi" --quiet
"$bin" sweep "$work/sweep.yaml" -j 1 --out "$work/one" --quiet
cmp "$work/mpi/results.csv" "$work/one/results.csv"
# Each rank ran its own points: all six are there once.
test "$(ls "$work/mpi/points" | wc -l)" -eq 6
echo "mpi sweep: 2 ranks give the rows of one thread"
