#pragma once
// `clustersim bench`: the event queue's hold-model rate at 10^4, 10^5 and 10^6 pending events,
// and packet-hops per second of a packet-level permutation on an FT2 of radix 32.
#include <nlohmann/json.hpp>

namespace clustersim {

struct BenchOptions {
    double seconds_per_queue_size = 1.0;
    std::uint32_t radix = 32;
    std::uint64_t message_bytes = 8u << 20;
};

nlohmann::ordered_json run_benchmarks(const BenchOptions& options);

}  // namespace clustersim
