#pragma once
// messages.csv: one row per message -- the contract's id, src, dst, bytes, start_us, end_us,
// then latency_us and what the message is: its MoE phase (dispatch, combine), pass (forward,
// backward, mtp), layer and micro-batch, and its path (nvlink, rdma; network for bare NICs).
// Written as a stream: a 2,048-GPU step has millions of rows. Above a size it keeps a sample
// (every message of node 0's GPUs, all layers) and says so.
#include <cstdint>
#include <ostream>
#include <string>

#include "models/network/node_layout.hpp"
#include "models/network/simulation.hpp"
#include "traffic/moe_workload.hpp"

namespace clustersim {

enum class MessagesChoice : std::uint8_t { Auto, None, Sample, All };

/// Auto keeps every message up to this many, then samples.
inline constexpr std::uint64_t kAllMessagesUpTo = 1'000'000;

struct MessagesWritten {
    std::uint64_t rows = 0, messages = 0;
    bool sampled = false;
    std::string what;  // "all", "none", or what the sample holds
};

/// `moe` and `layout` may be null (no MoE columns; every path `network`).
MessagesWritten write_messages_csv(std::ostream& out, const Workload& w, const SimulationResult& r,
                                   const MoeRun* moe, const NodeLayout* layout,
                                   MessagesChoice choice);

}  // namespace clustersim
