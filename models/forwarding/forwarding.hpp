#pragma once
// Forwarding: the output a packet takes at each switch. Fabric switches look up the candidates
// toward the destination's edge switch in their plane and let their routing policy choose;
// node-internal switches (GPU hub, NVSwitch, NIC) follow the node model's fixed rules.
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "models/fabric/egress_port.hpp"
#include "models/forwarding/forwarding_tables.hpp"
#include "models/forwarding/reroute_account.hpp"
#include "models/network/network_params.hpp"
#include "models/network/node_layout.hpp"
#include "models/network/port_graph.hpp"
#include "models/routing/routing_policy.hpp"
#include "sim/ranks.hpp"

namespace clustersim {

/// How far flows spread over the paths they could take: for a sample of flows, the distinct
/// outputs their data packets took at the first fabric switch that had a choice, against the
/// candidates there (ECMP: 1 of N; spray: N of N).
struct PathSpread {
    std::uint64_t flows = 0;           // sampled flows that met a choice
    std::uint64_t paths_sum = 0;       // distinct outputs taken, summed over them
    std::uint64_t candidates_sum = 0;  // outputs they could take, summed
    std::uint32_t max_paths = 0;
};

class Forwarding {
  public:
    /// `ports` are the fabric's egress ports (what adaptive policies read); `layout` may be null.
    Forwarding(const PortGraph& graph, const ForwardingTables& routes, const NetworkParams& params,
               const NodeLayout* layout, std::span<const EgressPort> ports);

    /// The output of packet `p` at switch `sw`; non-minimal policies mark the packet.
    std::uint32_t route(std::uint32_t sw, Packet& p, Time now) {
        if (!layout_) return fabric_route(sw, p, now);
        return node_route(sw, p, now);
    }
    /// Bytes it holds for a fabric of `fabric_switches` inside `switches` (node model included),
    /// with `channels` and `endpoints`: what run estimates count before building.
    static std::uint64_t memory_bytes(std::uint64_t fabric_switches, std::uint64_t switches,
                                      std::uint64_t channels, std::uint64_t endpoints,
                                      bool flowlet_tables);
    static constexpr std::size_t kFlowletEntries = 4096;  // per switch, as switch ASICs size theirs
    /// A NIC bond has detected a dead port (`channel`: the NIC's channel into the fabric) that
    /// fault `fault` took: its connections move to its other ports, and senders stop choosing a
    /// plane in which this NIC is unreachable. `down` false: the port is back.
    void set_nic_port_down(std::uint32_t channel, bool down, std::uint32_t fault);
    /// A fault-tolerant library gives up plane `plane` (`lost`, because of fault `fault`) or
    /// takes it back: traffic for its GPUs enters their node through another plane's NIC and
    /// crosses NVLink (PXN).
    void reroute_plane(std::uint32_t plane, bool lost, std::uint32_t fault);
    /// The fabric has reacted to fault `fault`: route by `tables` from now on (same edge
    /// numbering).
    void set_routes(const ForwardingTables& tables, std::uint32_t fault);
    /// Payload each fault's reactions moved off the healthy paths (RerouteAccount), by fault.
    std::vector<std::uint64_t> rerouted_bytes() const { return rerouted_.totals(); }
    /// Records path spread for messages below min(messages, kSpreadSample).
    void sample_path_spread(std::uint32_t messages);
    static constexpr std::uint32_t kSpreadSample = 4096;
    PathSpread path_spread() const;
    /// Ranks (sim/ranks.hpp), a collective: a rank that did not see a flow's first choice (made
    /// on another rank) took a later switch's for it; only the earliest is kept.
    void keep_first_spread(Ranks& ranks);

  private:
    struct FabricSwitch {
        SwitchRouteState route;           // salt and what its policy keeps
        std::uint32_t component = kNone;  // its plane (connected fabric), kNone off-fabric
        ChooseOutput choose = nullptr;    // its routing policy
    };
    struct Attachment {
        std::uint32_t fabric_switch = kNone;  // the fabric switch a destination's NIC port is on
        std::uint32_t down_channel = kNone;   // that switch's channel to the port
        std::uint32_t component = kNone;      // the plane (connected fabric) it belongs to
        std::uint32_t edge = kNone;           // its index in the forwarding tables
        std::uint32_t lid = 0;          // its address in the plane: ports numbered leaf by leaf
        std::uint32_t dead_by = kNone;  // the fault for which a bond gave this port up
    };
    struct SpreadRecord {
        std::uint64_t taken = 0;  // bit i: candidate i (mod 64) was taken
        std::uint32_t candidates = 0;
        std::uint32_t switch_index = kNone;  // where the choice was met
        Time at = Time::never();             // first met (ranks: the earliest rank's is kept)
    };
    std::vector<SpreadRecord> spread_;  // per sampled message
    void record_spread(std::uint32_t sw, const Packet& p, std::span<const std::uint32_t> c,
                       std::uint32_t out, Time now);
    struct NicPorts {
        std::uint32_t first_network = kNone, network_count = 0;
        std::uint32_t first_hub = kNone, first_gpu = 0;  // channels to the GPUs it serves
        // The network ports in use: all of them, or those a bond still has after a fault
        // (network_count of them; a NIC has at most kMaxNicPorts).
        std::array<std::uint32_t, 8> ports{};
        std::uint32_t gpus_served = 0;  // hub channels from first_hub on
        std::uint32_t network_all = 0;  // network ports as built (first_network on)
    };
    static constexpr std::uint32_t kMaxNicPorts = 8;

    std::uint32_t fabric_route(std::uint32_t sw, Packet& p, Time now);
    std::uint32_t minimal_route(std::uint32_t sw, Packet& p, Time now);
    // Non-minimal policies and, once a fault has rerouted, its accounting.
    std::uint32_t fabric_route_slow(std::uint32_t sw, Packet& p, Time now);
    // A NIC whose bond or peers lost a port: the port that still reaches `p.dst`.
    std::uint32_t bond_route(std::uint32_t sw, const NicPorts& n, const Packet& p,
                             std::uint32_t out);
    std::uint32_t node_route(std::uint32_t sw, Packet& p, Time now);
    // Valiant and UGAL: the output toward the packet's intermediate switch, or kNone to route
    // minimally from here.
    std::uint32_t detour(std::uint32_t sw, Packet& p);
    const Attachment* attachment_in(std::uint32_t endpoint, std::uint32_t component) const;
    std::uint32_t intermediate(const Packet& p, std::uint32_t component,
                               std::uint32_t dst_switch) const;
    struct PathCost {
        std::uint64_t queued_bytes = 0;
        std::uint32_t hops = 0;
    };
    PathCost walk(std::uint32_t from, std::uint32_t edge, bool every_hop) const;
    std::uint32_t group_of(std::uint32_t sw) const {
        const std::uint32_t g = graph_.switches()[sw].group;
        return g == kNone ? sw : g;
    }
    void find_planes();
    void index_attachments();
    void number_lids();
    void find_dmodk_divisors();
    void index_node_switches();

    const PortGraph& graph_;
    const ForwardingTables* routes_;       // swapped when the fabric reacts to a fault
    const ForwardingTables* base_routes_;  // the healthy ones
    bool slow_route_ = false;              // non-minimal policy, or rerouted entries to count
    bool pure_policy_ = false;             // RoutingPolicyInfo::pure
    RerouteAccount rerouted_;
    const NodeLayout* layout_ = nullptr;
    std::span<const EgressPort> ports_;
    RoutingParams params_;
    NonMinimal non_minimal_ = NonMinimal::Never;
    std::uint64_t detour_salt_ = 0;
    std::uint32_t hop_bytes_ = 0;             // one packet on the wire (UGAL's per-hop cost)
    std::vector<std::uint32_t> edge_switch_;  // per forwarding-table edge index
    std::vector<FabricSwitch> fabric_switches_;
    std::vector<Flowlet> flowlets_;        // every switch's flowlet table (flowlet routing only)
    std::vector<std::uint8_t> goes_up_;    // per channel: to a switch of a higher level
    std::vector<Attachment> attachments_;  // per destination endpoint, in attach_first_ ranges
    std::vector<std::uint32_t> attach_first_;
    bool single_attachment_ = false;            // attachments_[e] is endpoint e's one attachment
    std::vector<std::uint32_t> hub_gpu_;        // per switch: the GPU of a hub
    std::vector<NicPorts> nic_ports_;           // per switch (NIC switches only)
    std::vector<std::uint32_t> nic_spray_;      // per NIC switch: next network port
    std::vector<std::uint32_t> nic_port_dead_;  // per channel: the fault that took it (a bond)
    std::vector<std::uint32_t> nic_spray_healthy_;  // per NIC: the rotation with every port
    std::vector<std::uint32_t> dst_plane_;          // per GPU: the plane its traffic arrives on
    std::vector<std::uint32_t> lost_planes_;        // per plane: the fault it was given up for
    std::vector<Attachment> base_attachments_;      // as built, before any plane was rerouted
    std::vector<std::uint32_t> base_first_;
    bool nic_faults_ = false;  // some bond has given a port up
    std::uint32_t live_port_toward(const NicPorts& n, std::uint32_t dst, std::uint32_t out) const;
};

inline std::uint32_t Forwarding::fabric_route(std::uint32_t sw, Packet& p, Time now) {
    if (slow_route_) [[unlikely]]
        return fabric_route_slow(sw, p, now);
    return minimal_route(sw, p, now);
}

inline std::uint32_t Forwarding::minimal_route(std::uint32_t sw, Packet& p, Time now) {
    FabricSwitch& here = fabric_switches_[sw];
    if (const Attachment* a = attachment_in(p.dst, here.component)) {
        if (a->fabric_switch == sw) return a->down_channel;
        const auto c = routes_->candidates(sw, a->edge);
        if (c.size() == 1) return c[0];
        if (!c.empty()) {
            const std::uint32_t out =
                here.choose(RouteChoice{c, p, a->lid, here.route, ports_, now, params_, goes_up_});
            if (p.message < spread_.size() && p.kind == PacketKind::Data) [[unlikely]]
                record_spread(sw, p, c, out, now);
            return out;
        }
    }
    throw std::logic_error("no route: the destination is not reachable in this plane");
}

inline const Forwarding::Attachment* Forwarding::attachment_in(std::uint32_t endpoint,
                                                               std::uint32_t component) const {
    // One attachment per destination (the common case) is stored at the destination's index.
    const std::uint32_t first = single_attachment_ ? endpoint : attach_first_[endpoint];
    const std::uint32_t last = single_attachment_ ? endpoint + 1 : attach_first_[endpoint + 1];
    for (std::uint32_t i = first; i < last; ++i)
        if (attachments_[i].component == component) return &attachments_[i];
    return nullptr;
}

}  // namespace clustersim
