#pragma once
// The serving tests' small deployment.
#include <string>

namespace clustersim::test {

// A deployment small enough that its step runs take a second or two: DeepSeek-V3 on EP16.
inline const std::string kServing = R"(name: small-pd
model: {name: deepseek-v3}
cluster: {node: h800}
topology: {kind: mpft}
workload: {kind: moe, simulated_layers: 2}
serving:
  duration_s: 1
  arrival: {kind: poisson, rate_per_s: 30}
  prompt_tokens: {kind: uniform, min: 200, max: 3000}
  output_tokens: {kind: uniform, min: 2, max: 16}
  deployment: {kind: disaggregated, prefill: {ep_size: 16}, decode: {ep_size: 16}}
  slo: {ttft_ms: 200, tpot_ms: 60}
)";

}  // namespace clustersim::test
