#pragma once
// Fabric cost from an inventory and a price table: switches at their preset's price plus every
// cable at its kind's price (models/data/prices.yaml, calibrated to ISCA '25 Table 3).
#include <map>
#include <string>

#include "models/hardware/hardware_catalog.hpp"
#include "topologies/topology.hpp"

namespace clustersim {

struct CostBreakdown {
    double switches_usd = 0;
    std::map<std::string, double> cables_usd;  // by kind
    double total_usd = 0;
    double per_endpoint_usd = 0;
};

/// Throws TopologyError naming the price key when a price is missing.
CostBreakdown fabric_cost(const Inventory& inv, const std::string& switch_preset,
                          const PriceTable& prices);

/// A cluster's price: the fabric plus ceil(NICs / NICs per node) servers at `server_usd` each
/// (bare NICs: the fabric alone). Server prices are assumptions (models/data/prices.yaml).
struct ClusterCost {
    double nodes = 0;
    double usd = 0;
};
ClusterCost cluster_cost(double fabric_usd, double nics, std::uint32_t nics_per_node,
                         double server_usd, bool bare_nics);

/// Throughput per dollar: tokens/s of the whole cluster per million dollars it costs.
double tokens_per_s_per_musd(double tokens_per_s_per_gpu, double gpus, double cluster_usd);

}  // namespace clustersim
