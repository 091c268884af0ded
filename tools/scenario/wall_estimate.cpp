#include "tools/scenario/wall_estimate.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "models/hardware/embedded_data.hpp"

namespace clustersim {
namespace {

struct Speed {
    double ns_per_event = 0;
    double reference_bytes = 0;
    double exponent = 0;
};

const Speed& speed() {
    static const Speed s = [] {
        const YAML::Node n = YAML::Load(std::string(embedded_file("simulator_speed.yaml")));
        return Speed{n["ns_per_event"].as<double>(),
                     static_cast<double>(n["reference_hop_state_bytes"].as<std::uint64_t>()),
                     n["hop_state_exponent"].as<double>()};
    }();
    return s;
}

}  // namespace

double ns_per_event(std::uint64_t hop_state_bytes) {
    const Speed& s = speed();
    // A power law: a cache miss per hop grows more likely as the state grows, never less.
    const double ratio = std::max(1.0, static_cast<double>(hop_state_bytes)) / s.reference_bytes;
    return s.ns_per_event * std::pow(ratio, s.exponent);
}

double wall_s_estimate(const RunEstimate& r) {
    return static_cast<double>(r.events) * ns_per_event(hop_state_bytes(r)) * 1e-9;
}

}  // namespace clustersim
