// clustersim bench: the event queue's and the packet path's speed on this machine.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "tools/clustersim/commands.hpp"
#include "tools/scenario/bench.hpp"

namespace clustersim::cli {
namespace {

int run(bool json) {
    const nlohmann::ordered_json j = run_benchmarks(BenchOptions{});
    if (json) {
        std::cout << json_text(j, 2) << "\n";
        return kExitOk;
    }
    fmt::print("event queue, hold model (pop one, push one later):\n");
    for (const auto& [k, v] : j["queue_ops_per_s"].items())
        fmt::print("  {:>4} pending   {:>8.2f} M events/s\n", k, v.get<double>() / 1e6);
    const auto& pr = j["packet_run"];
    fmt::print("packet level: FT2 radix {} ({} endpoints), permutation of {} B messages:\n",
               pr["switch_radix"].get<int>(), pr["endpoints"].get<int>(),
               pr["message_bytes"].get<std::uint64_t>());
    fmt::print("  {:>8.2f} M packet-hops/s   {:>8.2f} M events/s   ({} hops in {:.2f} s)\n",
               j["packet_hops_per_s"].get<double>() / 1e6,
               j["packet_events_per_s"].get<double>() / 1e6, pr["packet_hops"].get<std::uint64_t>(),
               pr["wall_s"].get<double>());
    return kExitOk;
}

}  // namespace

Subcommand add_bench(CLI::App& app) {
    auto json = std::make_shared<bool>(false);
    auto* sub = app.add_subcommand("bench", "measure event-queue and packet-forwarding speed");
    sub->add_flag("--json", *json, "print one JSON document on stdout");
    return {sub, [json] { return run(*json); }};
}

}  // namespace clustersim::cli
