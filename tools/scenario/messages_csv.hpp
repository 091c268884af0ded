#pragma once
// messages.csv: one row per message -- the contract's id, src, dst, bytes, start_us, end_us,
// then latency_us and what the message is: its MoE phase (dispatch, combine), pass (forward,
// backward, mtp), layer and micro-batch, and its path (nvlink, rdma; network for bare NICs).
// Written as a stream: a 2,048-GPU step has millions of rows. Above a size it keeps a sample
// (every message of node 0's GPUs, all layers) and says so.
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "models/network/node_layout.hpp"
#include "models/network/simulation.hpp"
#include "traffic/moe_workload.hpp"

namespace clustersim {

/// What a MoE message is: its all-to-all's phase, pass, layer and micro-batch.
struct MessageTag {
    std::uint8_t phase = 0;  // 0 none, 1 dispatch, 2 combine
    std::uint8_t pass = 0;   // 0 forward, 1 backward, 2 mtp
    std::uint32_t layer = 0, micro_batch = 0;
};
std::vector<MessageTag> moe_message_tags(const MoeRun& run, std::size_t messages);
std::string_view message_phase_name(const MessageTag& t);  // "" outside a MoE all-to-all
std::string_view message_pass_name(const MessageTag& t);
/// nvlink, rdma (through the NIC), or network (bare NICs: no node model).
std::string_view message_path(const Workload& w, std::uint32_t m, const NodeLayout* layout);

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
