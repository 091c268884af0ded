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

}  // namespace clustersim
