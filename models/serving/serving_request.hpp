#pragma once
// One request of a serving run: when it arrives, its prompt, and how many tokens it asks for.
// What becomes of it (queues, batches, the KV cache's move) is the serving simulator's.
#include <cstdint>

#include "sim/time.hpp"

namespace clustersim {

struct ServingRequest {
    Time arrival;
    std::uint32_t prompt_tokens = 1;
    std::uint32_t output_tokens = 1;  // the first comes from the prefill, the rest from decode
};

}  // namespace clustersim
