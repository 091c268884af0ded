#pragma once
// run --baseline: the same scenario without its faults, run the same way, so that what a fault
// costs is read in one results.json: the healthy run's headline sections under `baseline`, and
// `delta` = faulted - healthy for the numbers a fault study compares.
#include "tools/scenario/results_json.hpp"
#include "tools/scenario/scenario.hpp"

namespace clustersim {

/// The scenario as it would be with no faults: nothing else changes (seed, layers, keys, and
/// the transport's ACKs where the faults turned them on).
Scenario without_faults(const Scenario& s);
/// The transport a faulted run has: reliable connections if set or if a fault drops. A twin of
/// it (healthy, or in its degraded steady state) keeps them, so differences are the faults'.
bool faulted_run_reliable(const Scenario& s);
/// Adds `baseline` (from `healthy`) and `delta` to the faulted run's document.
void add_baseline(Json& faulted, const Json& healthy);
/// The same for a serving run: `baseline.serving` holds the healthy run's requests, latency
/// percentiles, goodput, attainment and throughput; `delta.serving` their differences.
void add_serving_baseline(Json& faulted, const Json& healthy);

}  // namespace clustersim
