#pragma once
// Synthetic traffic patterns among endpoints: all-to-all, permutation, incast. Each returns a
// workload of messages that start together at `start`.
#include <cstdint>

#include "models/dag/workload.hpp"

namespace clustersim {

struct PatternParams {
    std::uint32_t endpoints = 0;
    std::uint64_t message_bytes = 0;
    Time start;
    std::uint64_t seed = 1;
};

/// One message per ordered pair of distinct endpoints.
Workload all_to_all(const PatternParams& p);
/// Every endpoint sends to exactly one other and receives from exactly one (a random
/// derangement drawn from the seed).
Workload permutation(const PatternParams& p);
/// `senders` endpoints (the ones after `destination`, wrapping) send to `destination`.
Workload incast(const PatternParams& p, std::uint32_t destination, std::uint32_t senders);

}  // namespace clustersim
