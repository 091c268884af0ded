#pragma once
// The per-run CSV files beside results.json under --out: links.csv (every channel, what it
// carried and suffered), nics.csv (per NIC and per GPU load) and tiers.csv (per tier over time).
#include <cstdint>
#include <string>
#include <vector>

#include "models/dag/workload.hpp"
#include "models/network/node_layout.hpp"
#include "models/network/simulation.hpp"
#include "topologies/topology.hpp"

namespace clustersim {

/// Per NIC: wire bytes on the fabric channels to it (received) and from it (sent), and the
/// rate of all its ports. Fabric switches keep their channel indices in the expanded graph.
struct NicLoad {
    std::vector<std::uint64_t> sent, received;
    std::vector<double> rate_bps;
};
NicLoad nic_load(const Topology& fabric, const Topology& simulated, const SimulationResult& r);

/// The tier name of a channel's end: an inventory tier (leaf, spine, ...) for fabric
/// switches, nic / gpu-hub / nvswitch inside nodes, nic or gpu for endpoints.
std::string node_tier(const Topology& fabric, const Topology& simulated, const NodeLayout* layout,
                      NodeRef n);

/// A node's name as fault targets name it (switch-3, nic-0, gpu-hub-5, scale-up-1, gpu-7).
std::string part_name(const NodeLayout* layout, NodeRef n);
/// `from-to` tier of a channel of the simulated graph (nic-leaf, leaf-spine, gpu-gpu-hub).
std::string channel_tier(const Topology& fabric, const Topology& simulated,
                         const NodeLayout* layout, std::uint32_t channel);

/// `channel,from,to,tier,rate_gbps,bytes,utilisation,max_queue_bytes,pauses,paused_us,drops,
/// ecn_marks`; tier is `from-to` (e.g. nic-leaf, leaf-spine, gpu-hub-nvswitch).
std::string links_csv(const Topology& fabric, const Topology& simulated, const NodeLayout* layout,
                      const SimulationResult& r);

/// `kind,index,node,bytes_sent,bytes_received,busy_us`: one row per NIC (wire bytes on its
/// network ports; busy is the larger direction at its rate), then one per GPU (message payload
/// it sent and received; busy is that over its injection rate).
std::string nics_csv(const Topology& fabric, const Topology& simulated, const NodeLayout* layout,
                     const Workload& w, const SimulationResult& r, std::uint32_t nics_per_node,
                     std::uint32_t gpus_per_node);

/// `time_us,period_us,tier,utilisation,mean_queue_bytes,max_queue_bytes,max_queue_port`: per
/// tier per sampling period (models/network/tier_series.hpp), what its links carried over their
/// capacity, its ports' mean queue and its deepest port at the period's snapshots.
std::string tiers_csv(const Topology& fabric, const Topology& simulated, const NodeLayout* layout,
                      const SimulationResult& r);

}  // namespace clustersim
