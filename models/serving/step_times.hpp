#pragma once
// What a serving run asks of the step model: how long one prefill or decode step of a given
// shape takes on its instance (KV caches in flight through its busiest NIC included), and how
// long one KV cache's transfer takes over the fabric.
// The serving simulator calls it once per step (not per packet), so an interface is cheap;
// tools/scenario/serving_steps answers it with packet-level runs, cached by shape.
#include <cstdint>

#include "sim/time.hpp"

namespace clustersim {

struct PrefillShape {
    std::uint32_t tokens_per_gpu = 0;  // prompt tokens each GPU takes in this step
    std::uint32_t prompt_tokens = 0;   // the prompts' mean length, tokens weighted (attention)
    // KV caches still to leave the instance's busiest NIC over the fabric as the step starts.
    std::uint64_t kv_bytes = 0;
    auto operator<=>(const PrefillShape&) const = default;
};

struct DecodeShape {
    std::uint32_t requests_per_gpu = 0;  // per GPU per micro-batch
    std::uint32_t context_tokens = 0;    // the running requests' mean context
    // KV caches still to reach the instance's busiest NIC over the fabric as the step starts.
    std::uint64_t kv_bytes = 0;
    auto operator<=>(const DecodeShape&) const = default;
};

/// A step's time, and what of it the KV transfers sharing its NICs added.
struct StepTime {
    Time total;
    Time kv_slowdown;
};

class StepTimes {
  public:
    virtual ~StepTimes() = default;
    virtual StepTime prefill(PrefillShape shape) = 0;
    virtual StepTime decode(DecodeShape shape) = 0;
    /// One request's KV cache, `bytes`, from a prefill GPU to a decode GPU over the fabric.
    virtual Time kv_transfer(std::uint64_t bytes) = 0;
};

}  // namespace clustersim
