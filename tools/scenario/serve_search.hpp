#pragma once
// `serve-search`: the highest Poisson request rate a serving deployment takes while a share of
// its requests still meets the SLO (DistServe's goodput: the rate at 90 % attainment by
// default), by doubling from the scenario's rate (or halving) until the answer is bracketed,
// then bisecting. The same seed draws every probe's requests, so a probe at another rate has
// the same requests with arrival times scaled (common random numbers: attainment then falls
// with the rate but for the batching it changes), and every probe shares one step cache: a
// probe simulates only the step shapes no probe before it met.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tools/scenario/results_json.hpp"
#include "tools/scenario/scenario.hpp"

namespace clustersim {

struct ServeSearchOptions {
    double attainment = 0.9;  // the share of finished requests that must meet the SLO
    double precision = 0.02;  // stop once the bracket's width is this share of its top
    std::uint32_t max_probes = 12;
};

struct ServeProbe {
    double rate_per_s = 0;
    double slo_attainment = 0;
    double goodput_rps = 0;
    double ttft_p99_ms = 0;
    double tpot_p99_ms = 0;
    std::uint64_t requests = 0;
    std::uint64_t step_simulations = 0;  // packet-level runs this probe added to the cache
    bool meets = false;
};

struct ServeSearchResult {
    std::vector<ServeProbe> probes;  // in the order run
    // The highest probed rate that met the target, and the lowest that did not (0 when no
    // probe met it; the last probed rate when every one did).
    double rate_per_s = 0;
    double failed_rate_per_s = 0;
    bool bracketed = false;  // both found and within the precision
    bool monotone = true;    // no probe at a higher rate met the SLO more often than a lower
    Json best;               // the `serving` section of the run at rate_per_s (null if none)
    Json results;            // the document `serve-search --json` prints
};

/// Runs the search. The scenario's arrivals must be Poisson (InputError otherwise).
ServeSearchResult serve_search(const Scenario& s, const ServeSearchOptions& o, bool progress);

/// The numeric keys of the document's serve_search section (a sweep's objective may be one;
/// families end in '.').
std::vector<std::string> serve_search_result_keys();

/// The lines `serve-search` prints.
std::string serve_search_table(const ServeSearchResult& r);

/// `serve-search --split P:D ...`: the search run for each prefill:decode split of instances;
/// the best split is the one taking the most requests/s at the target per million dollars of
/// its deployment (fabric and servers).
struct ServeSplit {
    std::uint32_t prefill_instances = 0;
    std::uint32_t decode_instances = 0;
    ServeSearchResult result;
};
Json split_search_json(std::span<const ServeSplit> splits);
std::string split_search_table(const Json& splits_json);

}  // namespace clustersim
