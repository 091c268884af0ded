#pragma once
// What every topology builder returns: the port graph the simulator runs on, and the inventory
// the cost model and `clustersim topo` report.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/port_graph.hpp"
#include "sim/data_rate.hpp"
#include "sim/time.hpp"

namespace clustersim {

/// A request a topology cannot satisfy (beyond a limit, inconsistent sizes). `key` names the
/// scenario key at fault, so the loader can point at it.
class TopologyError : public std::runtime_error {
  public:
    TopologyError(std::string key, const std::string& what)
        : std::runtime_error(what), key_(std::move(key)) {}
    const std::string& key() const { return key_; }

  private:
    std::string key_;
};

/// Physical parameters shared by all builders.
struct FabricParams {
    std::uint32_t switch_radix = 64;
    DataRate link_rate = DataRate::from_gbps(400);
    Time link_delay = Time::from_ns(50);
    Time switch_latency = Time::from_ns(400);
    std::uint64_t port_buffer_bytes = 1 << 20;
};

struct TierCount {
    std::string name;  // "leaf", "spine", ...
    std::uint32_t switches = 0;
};

struct Inventory {
    std::uint32_t endpoints = 0;
    std::uint32_t switches = 0;
    std::vector<TierCount> tiers;
    std::uint64_t switch_links = 0;    // switch-to-switch cables
    std::uint64_t endpoint_links = 0;  // endpoint-to-switch cables
    std::uint32_t max_hops = 0;        // switches crossed on the longest minimal path
    std::uint32_t max_endpoints = 0;   // the most this construction supports at this radix
    double bisection_gbps = 0;         // total rate across the worst even split of endpoints
    bool bisection_exact = true;       // false: a bound, not a closed form
};

struct Topology {
    std::string kind;
    PortGraph graph;
    Inventory inventory;
};

}  // namespace clustersim
