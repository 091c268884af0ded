#pragma once
// What a serving run asks of the step model: how long one prefill or decode step of a given
// shape takes on that instance (KV caches in flight through its busiest NIC included), and how
// long one KV cache's transfer takes over the fabric.
// The serving simulator calls it once per step (not per packet), so an interface is cheap;
// tools/scenario/serving_steps answers it with packet-level runs, cached by shape.
// Faults present as a step starts are part of its shape: bit i stands for the run's faults[i].
#include <cstdint>

#include "sim/time.hpp"

namespace clustersim {

/// The faults present as a step starts, and of them those its instance meets for the first
/// time (the step sees the fabric react to them: the transient); the rest are in their
/// steady state (every reaction in place).
struct StepFaults {
    std::uint64_t present = 0;
    std::uint64_t transient = 0;
    auto operator<=>(const StepFaults&) const = default;
};

struct PrefillShape {
    std::uint32_t tokens_per_gpu = 0;  // prompt tokens each GPU takes in this step
    std::uint32_t prompt_tokens = 0;   // the prompts' mean length, tokens weighted (attention)
    // KV caches still to leave the instance's busiest NIC over the fabric as the step starts.
    std::uint64_t kv_bytes = 0;
    StepFaults faults;
    std::uint32_t instance = 0;  // which of the prefill instances (colocated: of all) steps
    auto operator<=>(const PrefillShape&) const = default;
};

struct DecodeShape {
    std::uint32_t requests_per_gpu = 0;  // per GPU per micro-batch
    std::uint32_t context_tokens = 0;    // the running requests' mean context
    // KV caches still to reach the instance's busiest NIC over the fabric as the step starts.
    std::uint64_t kv_bytes = 0;
    StepFaults faults;
    std::uint32_t instance = 0;  // which of the decode instances steps
    auto operator<=>(const DecodeShape&) const = default;
};

/// A step's time, and what of it the KV transfers sharing its NICs added; `failed`: with the
/// faults present it does not complete (the library aborts, or the run stalls).
struct StepTime {
    Time total;
    Time kv_slowdown;
    bool failed = false;
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
