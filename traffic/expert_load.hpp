#pragma once
// A recorded per-expert load, as gating input (workload.gating: trace): a CSV of `expert,load`
// lines (a header line `expert,load` is allowed, `#` starts a comment), one line per expert of
// the model, loads non-negative (tokens routed to it over some window, or any proportional
// count). Gating then draws each token's experts in proportion to these loads, under the same
// group and node limits as the other kinds.
#include <cstdint>
#include <string>
#include <vector>

namespace clustersim {

/// Throws InputError (file:line:col) for a malformed file, a missing or repeated expert, or
/// fewer than `top_k` experts with a positive load.
std::vector<double> read_expert_load_file(const std::string& path, std::uint32_t experts,
                                          std::uint32_t top_k);

}  // namespace clustersim
