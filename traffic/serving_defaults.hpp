#pragma once
// The serving section's defaults, each with its source in models/data/serving.yaml: the
// schedulers' limits DeepSeek profiled, the storage network's rate, and request lengths like
// those of the public chat traces serving benchmarks replay.
#include <cstdint>

#include "traffic/request_contexts.hpp"

namespace clustersim {

struct ServingDefaults {
    std::uint32_t prefill_tokens_per_gpu = 0;
    std::uint32_t decode_requests_per_gpu = 0;
    double storage_gbps = 0;
    double storage_latency_us = 0;
    KvLengthDistribution prompt, output;
};

const ServingDefaults& serving_defaults();

}  // namespace clustersim
