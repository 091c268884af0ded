#pragma once
// sim.replicates: one scenario under seeds seed, seed + 1, ..., seed + N - 1 (the gating, the
// placements drawn and the hashes change with it). The first seed's document is kept whole;
// every headline number K of its decode, prefill and training sections becomes the mean over
// the replicates that completed, K_ci95 the half-width of its 95 % Student-t interval, and the
// section gains `replicates`. Integers (counts such as simulated_layers) are left as they are.
#include <array>
#include <span>
#include <string_view>

#include "tools/scenario/run.hpp"

namespace clustersim {

inline constexpr std::array<std::string_view, 3> kReplicatedSections = {"decode", "prefill",
                                                                        "training"};

/// Half-width of the 95 % interval of the mean of `values` (0 with fewer than two).
double ci95_half_width(std::span<const double> values);

/// Folds the documents of completed replicates (`all`, the first's included) into `first`;
/// with fewer than `requested`, the sections say how many did not complete.
void summarise_replicates(Json& first, std::span<const Json> all, std::uint32_t requested);

/// The same for serving runs' `serving` sections (`all`, the first's included): each latency
/// summary K (`ttft_ms`, ...) gains K_ci95 with an interval per percentile, and each headline
/// rate (goodput, attainment, tokens/s) becomes the mean with its K_ci95. Counts and the step
/// runs stay the first seed's.
void summarise_serving_replicates(Json& first, std::span<const Json> all);

/// Runs a prepared scenario and, with sim.replicates > 1, its other seeds (each prepared and
/// run in turn), returning the first run with its headline sections summarised. Each seed's
/// layers settle on their own (workload.simulated_layers: auto); `prepared` becomes the first
/// seed's last run.
RunOutcome run_replicates(const Scenario& s, PreparedRun& prepared, bool progress);

}  // namespace clustersim
