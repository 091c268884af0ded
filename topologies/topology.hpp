#pragma once
// What every topology builder returns: the port graph the simulator runs on, and the inventory
// the cost model and `clustersim topo` report.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/network/port_graph.hpp"
#include "sim/data_rate.hpp"
#include "sim/inline_knobs.hpp"
#include "sim/input/key_error.hpp"
#include "sim/time.hpp"

namespace clustersim {

/// A request a topology cannot satisfy (beyond a limit, inconsistent sizes). `key` names the
/// scenario key at fault, so the loader can point at it.
class TopologyError : public KeyError {
  public:
    using KeyError::KeyError;
};

/// Physical parameters shared by all builders.
struct FabricParams {
    std::uint32_t switch_radix = 64;
    DataRate link_rate = DataRate::from_gbps(400);
    Time link_delay = Time::from_ns(50);
    Time switch_latency = Time::from_ns(400);
    std::uint64_t port_buffer_bytes = 1 << 20;
    bool cut_through = false;  // the switch preset's forwarding mode
};

struct TierCount {
    std::string name;  // "leaf", "spine", ...
    std::uint32_t switches = 0;
};

struct CableCount {
    std::string kind;  // a key of models/data/prices.yaml (cables section)
    std::uint64_t count = 0;
};

struct Inventory {
    std::uint32_t endpoints = 0;
    std::uint32_t switches = 0;
    std::vector<TierCount> tiers;
    std::uint64_t switch_links = 0;          // switch-to-switch cables
    std::uint64_t endpoint_links = 0;        // endpoint-to-switch cables
    std::uint32_t max_hops = 0;              // switches crossed on the longest minimal path
    std::uint32_t max_endpoints = 0;         // the most this construction supports at this radix
    double bisection_gbps = 0;               // total rate across the worst even split of endpoints
    bool bisection_exact = true;             // false: a bound, not a closed form
    std::vector<CableCount> cables;          // every cable by kind (endpoint and switch links)
    std::uint64_t transceivers = 0;          // optical modules at cable ends
    std::uint32_t endpoints_per_rack = 0;    // 0: no rack placement, every cable optical
    std::uint32_t top_of_rack_switches = 0;  // switches whose endpoints all share one rack
    bool constructible = true;               // false: counts from a formula, no graph exists
    std::string note;                        // e.g. why a size is not constructible
};

struct Topology {
    std::string kind;
    PortGraph graph;
    Inventory inventory;
    std::uint32_t planes = 1;  // disjoint fabrics (mpft), or NIC ports each on its own plane
    /// Lanes lossless minimal routing needs to be free of credit deadlock: 1 where up/down
    /// routing already is (fat trees, single-switch planes), else the most switch-to-switch hops.
    std::uint32_t virtual_lanes = 1;
    /// NICs per pod where the fabric is pods with nothing between them (dual-plane, shuffle):
    /// NIC e is in pod e / pod_nics. 0: one connected fabric.
    std::uint32_t pod_nics = 0;
};

/// Everything a builder may need; each builder reads the fields of its kind.
struct TopologyRequest {
    std::string kind;
    FabricParams fabric;
    double oversubscription = 1.0;
    std::uint32_t endpoints = 0;      // NICs; 0 = the maximum
    std::uint32_t planes = 0;         // 0 = the kind's default
    std::uint32_t pods = 1;           // dual-plane, shuffle: unconnected pods, NICs split evenly
    std::uint32_t nics_per_node = 8;  // rails of mrft, planes of mpft by default
    double nic_rate_gbps = 400;       // split into ports/lanes by dual-plane and shuffle
    std::uint32_t slimfly_q = 0;      // 0 = the largest q the radix allows
    std::uint32_t dragonfly_a = 0, dragonfly_p = 0, dragonfly_h = 0, dragonfly_g = 0;
    InlineKnobs<32> knobs;  // a kind's own parameters that have no field above (its row's parse)
    /// Inventory, planes and lanes from the formulas only, no graph: what a run would build, for
    /// estimates before building (the same checks and errors as a build).
    bool counts_only = false;
};

/// The most endpoints a graph is built for: beyond it, memory runs to tens of GB.
inline constexpr std::uint64_t kMaxBuiltEndpoints = std::uint64_t{1} << 22;

/// Throws TopologyError(key) when a fabric of `endpoints` is too large to build; `what` names
/// the fabric in the message.
void check_buildable(std::uint64_t endpoints, const std::string& key, const std::string& what);

/// Dispatches on `kind`; throws TopologyError for requests beyond a limit.
Topology build_topology(const TopologyRequest& request);

}  // namespace clustersim
