#include "models/rdma_transport.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/random.hpp"

namespace clustersim {

RdmaTransport::RdmaTransport(const PortGraph& graph, const Workload& workload,
                             const NetworkParams& params, const NodeLayout* layout)
    : graph_(graph), workload_(workload), params_(params), layout_(layout) {
    if (params_.mtu_bytes == 0) throw std::invalid_argument("mtu_bytes must be positive");
    const auto channels = graph.channels();
    const std::uint32_t endpoints = graph.endpoint_count();
    first_channel_ = static_cast<std::uint32_t>(channels.size());
    channel_of_endpoint_.assign(endpoints, kNone);
    for (std::uint32_t e = 0; e < endpoints; ++e) {
        const NodeRef node{NodeKind::Endpoint, e};
        if (graph.channels_of(node) == 0) continue;  // unattached endpoint: never a source
        const std::uint32_t paths = layout ? kGpuPaths : 1;
        if (graph.channels_of(node) != paths)
            throw std::invalid_argument(
                layout ? "a GPU needs its two paths (NVLink, RDMA) into its hub"
                       : "an endpoint with several ports needs the node model (a NIC switch)");
        const std::uint32_t ch = graph.first_channel(node);
        for (std::uint32_t c = ch; c < ch + paths; ++c)
            if (channels[c].to.kind != NodeKind::Switch)
                throw std::invalid_argument("an endpoint must attach to a switch");
        channel_of_endpoint_[e] = ch;
        first_channel_ = std::min(first_channel_, ch);
    }
    senders_.resize(channels.size() - std::min<std::size_t>(first_channel_, channels.size()));
    issue_free_.assign(senders_.size(), Time::zero());

    state_.resize(workload.messages.size());
    receivers_.resize(workload.messages.size());
    entropy_.resize(workload.messages.size());
    for (std::size_t m = 0; m < workload.messages.size(); ++m) {
        const auto& spec = workload.messages[m];
        if ((spec.bytes + params_.mtu_bytes - 1) / params_.mtu_bytes > UINT32_MAX)
            throw std::invalid_argument("a message of more than 2^32 packets");
        // The flow's header fields (src, dst, queue pair) hashed once: one flow, one path.
        entropy_[m] = static_cast<std::uint32_t>(
            mix64((static_cast<std::uint64_t>(spec.src) << 32 | spec.dst) ^ mix64(spec.label)));
    }
}

std::uint32_t RdmaTransport::sender_channel(std::uint32_t m) const {
    const MessageSpec& spec = workload_.messages[m];
    const std::uint32_t ch = channel_of_endpoint_[spec.src];
    if (ch == kNone) throw std::logic_error("message from an unattached endpoint");
    // A GPU's NVLink sender and its NIC's RDMA sender each keep their own round-robin.
    if (layout_ && !layout_->starts_on_scale_up(spec.src, spec.dst)) return ch + kRdmaPath;
    return ch;
}

Time RdmaTransport::eligible_at(std::uint32_t m, Time now) {
    if (!layout_) return now;
    const bool nvlink =
        layout_->starts_on_scale_up(workload_.messages[m].src, workload_.messages[m].dst);
    const Time overhead =
        nvlink ? layout_->scale_up_message_overhead : layout_->rdma_message_overhead;
    const Time issue = nvlink ? layout_->scale_up_issue : layout_->rdma_issue;
    Time& free = issue_free_[sender_channel(m) - first_channel_];
    const Time issued = (free > now ? free : now) + issue;
    free = issued;
    return issued + (overhead > issue ? overhead - issue : Time::zero());
}

std::uint32_t RdmaTransport::enqueue(std::uint32_t m) {
    const std::uint32_t ch = sender_channel(m);
    sender_of(ch).active.push_back(m);
    return ch;
}

namespace {

// Drops bit 0 of a multi-word bitmap: bit k becomes bit k - 1.
void shift_down_one(std::vector<std::uint64_t>& bits) {
    for (std::size_t i = 0; i < bits.size(); ++i) {
        bits[i] >>= 1;
        if (i + 1 < bits.size()) bits[i] |= bits[i + 1] << 63;
    }
}

}  // namespace

bool RdmaTransport::receive(const Packet& p) {
    const std::uint32_t m = p.message;
    counters_.payload_delivered += p.payload_bytes;
    ++counters_.packets_delivered;
    Receiver& r = receivers_[m];
    if (p.sequence < r.next_expected) {
        ++counters_.duplicate_packets;
        return false;
    }
    // Bit k of `ahead` stands for packet next_expected + k.
    const std::uint32_t off = p.sequence - r.next_expected;
    if (off > 0) {
        if (r.ahead.size() <= off / 64) r.ahead.resize(off / 64 + 1, 0);
        std::uint64_t& word = r.ahead[off / 64];
        const std::uint64_t bit = std::uint64_t{1} << (off % 64);
        if (word & bit) {
            ++counters_.duplicate_packets;
            return false;
        }
        word |= bit;
        state_[m].bytes_received += p.payload_bytes;
        return false;
    }
    state_[m].bytes_received += p.payload_bytes;
    ++r.next_expected;
    if (!r.ahead.empty()) {
        shift_down_one(r.ahead);
        while (r.ahead[0] & 1u) {
            ++r.next_expected;
            shift_down_one(r.ahead);
        }
        if (std::all_of(r.ahead.begin(), r.ahead.end(), [](std::uint64_t w) { return w == 0; }))
            r.ahead.clear();
    }
    return r.next_expected == packets_of(m);
}

}  // namespace clustersim
