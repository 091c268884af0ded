#pragma once
// The requests of a serving run: Poisson arrivals at a rate (as vLLM's and SGLang's serving
// benchmarks draw them) with prompt and output lengths drawn per request, or a trace of
// arrivals and lengths read from a CSV file.
#include <cstdint>
#include <string>
#include <vector>

#include "models/serving/serving_request.hpp"
#include "traffic/request_contexts.hpp"

namespace clustersim {

/// Arrivals of a Poisson process of `rate_per_s` over [0, duration_s), lengths drawn from
/// `prompt` and `output` (each its own seeded stream).
std::vector<ServingRequest> poisson_requests(double rate_per_s, double duration_s,
                                             const KvLengthDistribution& prompt,
                                             const KvLengthDistribution& output,
                                             std::uint64_t seed);

/// A CSV of `arrival_us,prompt_tokens,output_tokens` lines (an optional header, `#` comments),
/// arrivals in order; those at or after `duration_us` (if above 0) are left out. Throws
/// InputError (file:line:col) for a malformed or unordered line.
std::vector<ServingRequest> read_request_trace(const std::string& path, double duration_us);

}  // namespace clustersim
