#pragma once
// What a topology hands to the simulator and the cost model: switches, endpoints (NIC ports)
// and directed channels (one per direction of each cable), grouped per node for fast lookup.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/network/packet.hpp"
#include "sim/data_rate.hpp"
#include "sim/time.hpp"

namespace clustersim {

enum class NodeKind : std::uint8_t { Switch, Endpoint };

struct NodeRef {
    NodeKind kind = NodeKind::Switch;
    std::uint32_t index = 0;
    friend bool operator==(const NodeRef&, const NodeRef&) = default;
};

struct Channel {
    NodeRef from;
    NodeRef to;
    std::uint32_t reverse = kNone;  // the channel of the other direction of the same cable
    DataRate rate;
    Time propagation;
};

struct SwitchInfo {
    std::uint32_t tier = 0;  // 0 = leaf (faces endpoints), 1 = spine, 2 = core
    std::uint32_t radix = 0;
    Time latency;  // forwarding latency, input to output
    std::uint64_t port_buffer_bytes = 0;
    bool cut_through = false;  // forwards once the header is in (else store and forward)
    // Dragonfly group (kNone: every switch is its own): non-minimal routing takes its
    // intermediate outside the source's and destination's groups.
    std::uint32_t group = kNone;
};

class PortGraph {
  public:
    /// One physical cable, as added; finalize() derives the two channels from it.
    struct Cable {
        NodeRef a, b;
        DataRate rate;
        Time propagation;
    };

    std::uint32_t add_switch(const SwitchInfo& info) {
        switches_.push_back(info);
        return static_cast<std::uint32_t>(switches_.size() - 1);
    }
    void set_endpoint_count(std::uint32_t n) { endpoint_count_ = n; }
    /// One cable: two channels, a->b and b->a.
    void add_cable(NodeRef a, NodeRef b, DataRate rate, Time propagation) {
        cables_.push_back(Cable{a, b, rate, propagation});
    }
    /// Lays channels out grouped by source node (switches first, then endpoints).
    void finalize();

    std::span<const SwitchInfo> switches() const { return switches_; }
    std::uint32_t switch_count() const { return static_cast<std::uint32_t>(switches_.size()); }
    std::uint32_t endpoint_count() const { return endpoint_count_; }
    std::span<const Channel> channels() const { return channels_; }
    std::uint32_t channel_count() const { return static_cast<std::uint32_t>(channels_.size()); }
    std::size_t cable_count() const { return cables_.size(); }
    std::span<const Cable> cables() const { return cables_; }

    /// Channels leaving a node, as a range of channel indices.
    std::uint32_t first_channel(NodeRef n) const { return offsets_[vertex(n)]; }
    std::uint32_t channels_of(NodeRef n) const {
        return offsets_[vertex(n) + 1] - offsets_[vertex(n)];
    }

    /// Every node numbered once, switches first, then endpoints (the order channels are laid
    /// out in): an index for per-node arrays and graph searches.
    std::uint32_t vertex_count() const { return switch_count() + endpoint_count_; }
    std::uint32_t vertex(NodeRef n) const {
        return n.kind == NodeKind::Switch ? n.index : switch_count() + n.index;
    }
    NodeRef node_at(std::uint32_t v) const {
        return v < switch_count() ? NodeRef{NodeKind::Switch, v}
                                  : NodeRef{NodeKind::Endpoint, v - switch_count()};
    }

  private:
    std::vector<SwitchInfo> switches_;
    std::uint32_t endpoint_count_ = 0;
    std::vector<Cable> cables_;
    std::vector<Channel> channels_;
    std::vector<std::uint32_t> offsets_;
};

}  // namespace clustersim
