#pragma once
// Component failure rates and repair times (models/data/failure_rates.yaml, each figure with
// its source there): what `clustersim availability` draws a day of failures from.
#include <array>
#include <cstdint>
#include <string_view>

namespace clustersim {

enum class ComponentClass : std::uint8_t { Cable, Switch, Nic, Gpu, Node };
inline constexpr std::array<std::string_view, 5> kComponentClassNames = {"cable", "switch", "nic",
                                                                         "gpu", "node"};

struct ComponentFailure {
    double per_year = 0;      // failures per component per year
    double repair_hours = 0;  // out of service while its instance runs on without it
};

struct FailureRates {
    std::array<ComponentFailure, kComponentClassNames.size()> by_class{};
    double restart_minutes = 0;     // a stopped instance serves again on spare nodes
    double amortisation_years = 0;  // the cluster's price over this many years
    const ComponentFailure& of(ComponentClass c) const {
        return by_class[static_cast<std::size_t>(c)];
    }
};

/// The built-in figures (parsed once).
const FailureRates& builtin_failure_rates();

}  // namespace clustersim
