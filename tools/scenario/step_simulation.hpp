#pragma once
// One packet-level run a serving run made (a step of a shape, or a KV transfer): what it
// simulated and what it measured. The serving results list them; a step store keeps them.
#include <cstdint>
#include <string>
#include <vector>

#include "models/serving/step_times.hpp"

namespace clustersim {

/// One packet-level run the serving run made: what it simulated and what it measured.
struct StepSimulation {
    std::string what;            // prefill, decode or kv_transfer
    std::uint64_t size = 0;      // tokens per GPU, requests per GPU per micro-batch, or bytes
    std::uint64_t context = 0;   // mean prompt or context tokens (0 for a transfer)
    std::uint64_t kv_bytes = 0;  // a step's: the KV cache streamed through a GPU's NIC beside it
    double time_ms = 0;          // a step's: the run's (every instance's pass ends together)
    // A step's: each instance's own (its EP group's in that run; step_times.hpp), by index.
    std::vector<double> instance_ms;
    double window_us = 0;    // what was simulated of it (a step: its first layers)
    double dispatch_us = 0;  // a step's: its mean dispatch and combine (results' decode.*)
    double combine_us = 0;
    double kv_stream_gbps = 0;  // beside a KV stream: the rate it got, first byte to last
    std::uint64_t events = 0;
    StepFaults faults;      // with these of the run's faults (transient: met as it began)
    bool completed = true;  // false: with its faults it did not complete
};

}  // namespace clustersim
