#pragma once
// results.json's serving.timeline: the run in windows of serving.timeline_s, so a fault's mark
// on latency shows where it happened: per window, the requests that arrived (and the TTFT they
// saw), finished and failed, and the decode steps that began in it (their batch sizes, and the
// time per output token their requests saw, each step counted once per request in it).
#include <span>

#include "models/serving/serving_simulator.hpp"
#include "tools/scenario/results_json.hpp"

namespace clustersim {

struct Scenario;

Json serving_timeline_json(const Scenario& s, std::span<const ServingRequest> requests,
                           const ServingOutcome& out);

}  // namespace clustersim
