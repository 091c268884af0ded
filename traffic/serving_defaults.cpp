#include "traffic/serving_defaults.hpp"

#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>

#include "models/hardware/embedded_data.hpp"

namespace clustersim {
namespace {

KvLengthDistribution lengths(const YAML::Node& n) {
    KvLengthDistribution d;
    d.kind = KvLengthKind::Lognormal;
    d.mean_tokens = n["mean"].as<double>();
    d.sigma = n["sigma"].as<double>();
    d.min_tokens = n["min"].as<std::uint64_t>();
    d.max_tokens = n["max"].as<std::uint64_t>();
    d.tokens = static_cast<std::uint64_t>(d.mean());
    return d;
}

}  // namespace

const ServingDefaults& serving_defaults() {
    static const ServingDefaults defaults = [] {
        const std::string_view text = embedded_file("serving.yaml");
        if (text.empty()) throw std::logic_error("missing built-in data file serving.yaml");
        const YAML::Node y = YAML::Load(std::string(text));
        ServingDefaults d;
        d.prefill_tokens_per_gpu = y["prefill_tokens_per_gpu"].as<std::uint32_t>();
        d.decode_requests_per_gpu = y["decode_requests_per_gpu"].as<std::uint32_t>();
        d.storage_gbps = y["storage_gbps"].as<double>();
        d.storage_latency_us = y["storage_latency_us"].as<double>();
        d.prompt = lengths(y["prompt_tokens"]);
        d.output = lengths(y["output_tokens"]);
        return d;
    }();
    return defaults;
}

}  // namespace clustersim
