#pragma once
// NCCL-style collectives as workload DAGs over `endpoints` ranks, each with a buffer of
// `message_bytes` (nccl-tests' size: the all-reduce buffer, the all-gather output, the
// reduce-scatter input).
//  - ring all-reduce: reduce-scatter then all-gather around the ring, 2 (n - 1) steps of
//    size / n; a rank sends step k once it has received step k - 1 from its left neighbour;
//  - tree all-reduce: a binary tree, pipelined in chunks: each chunk is reduced up to the root
//    and broadcast back down, a rank forwarding a chunk once it has it from all its children
//    (reduce) or its parent (broadcast);
//  - ring all-gather and reduce-scatter: n - 1 steps of size / n.
// The arithmetic of a reduction is not modelled as compute (it runs at memory speed, far above
// the network's); every step is one message, so a run costs about 2 n steps of events per rank.
#include <cstdint>

#include "traffic/patterns.hpp"

namespace clustersim {

enum class CollectiveAlgorithm : std::uint8_t { Ring, Tree };

Workload all_reduce(const PatternParams& p, CollectiveAlgorithm algorithm,
                    std::uint32_t tree_chunks = 32);
Workload all_gather(const PatternParams& p);
Workload reduce_scatter(const PatternParams& p);

enum class CollectiveKind : std::uint8_t { AllToAll, AllReduce, AllGather, ReduceScatter };

/// Bandwidth in the nccl-tests sense, for `ranks` ranks with buffers of `message_bytes` done in
/// `seconds`: algbw = size / time, with size the per-rank buffer (n x the message for an
/// all-to-all of one message per pair); busbw = algbw x 2 (n - 1) / n for all-reduce, x (n - 1)
/// / n for all-gather, reduce-scatter and all-to-all: what each rank's link must carry.
struct BusBandwidth {
    double algbw_GBps = 0, busbw_GBps = 0;
};
BusBandwidth nccl_bandwidth(CollectiveKind kind, std::uint32_t ranks, std::uint64_t message_bytes,
                            double seconds);

}  // namespace clustersim
