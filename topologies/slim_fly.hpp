#pragma once
// Slim Fly (Besta and Hoefler, SC '14): the McKay-Miller-Siran graph of diameter 2 over GF(q),
// q = 4w + delta a prime power: 2q^2 switches of network degree k' = (3q - delta)/2, with
// p = ceil(k'/2) endpoints each. A q that is not a prime power has no construction: its
// inventory comes from the formulas, marked not constructible (ISCA '25 Table 3 uses q = 28).
#include <vector>

#include "sim/input/key_spec.hpp"
#include "topologies/topology.hpp"

namespace clustersim {

struct SlimFlyShape {
    std::uint32_t q = 0;
    int delta = 0;
    std::uint32_t network_degree = 0;  // k'
    std::uint32_t endpoints_per_switch = 0;
    std::uint32_t switches = 0;
    bool constructible = false;
};

SlimFlyShape slim_fly_shape(std::uint32_t q);
/// The largest q whose switches fit the radix (k' + p <= radix).
std::uint32_t slim_fly_q_for_radix(std::uint32_t radix);
Topology build_slim_fly(const TopologyRequest& r);
/// Its row's keys (topology.q) and their reader.
std::vector<KeySpec> slim_fly_keys();
void parse_slim_fly_keys(const KeyValues& v, TopologyRequest& r);

}  // namespace clustersim
