#include "models/hardware/failure_rates.hpp"

#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>

#include "models/hardware/embedded_data.hpp"

namespace clustersim {

const FailureRates& builtin_failure_rates() {
    static const FailureRates rates = [] {
        const std::string_view text = embedded_file("failure_rates.yaml");
        if (text.empty()) throw std::logic_error("missing built-in data file failure_rates.yaml");
        const YAML::Node y = YAML::Load(std::string(text));
        FailureRates r;
        for (std::size_t c = 0; c < kComponentClassNames.size(); ++c) {
            const YAML::Node n = y[std::string(kComponentClassNames[c])];
            r.by_class[c] = {n["per_year"].as<double>(), n["repair_hours"].as<double>()};
        }
        r.restart_minutes = y["restart_minutes"].as<double>();
        r.amortisation_years = y["amortisation_years"].as<double>();
        return r;
    }();
    return rates;
}

}  // namespace clustersim
