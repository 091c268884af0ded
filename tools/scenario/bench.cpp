#include "tools/scenario/bench.hpp"

#include <chrono>
#include <thread>

#include "models/network/simulation.hpp"
#include "sim/event_queue.hpp"
#include "sim/random.hpp"
#include "topologies/fat_tree_two_layer.hpp"
#include "topologies/shortest_path_routes.hpp"
#include "traffic/patterns.hpp"

namespace clustersim {
namespace {

using Clock = std::chrono::steady_clock;

// Hold model: pop the earliest event, push one at a random later time (uniform over twice the
// mean gap), with `pending` events in the queue throughout.
double hold_rate(std::size_t pending, double seconds) {
    EventQueue q;
    q.reserve(pending + 1);
    RandomStream rng(1, "bench-hold", pending);
    const std::int64_t mean_gap_ps = 1'000'000;
    std::uint64_t seq = 0;
    for (std::size_t i = 0; i < pending; ++i)
        q.push(Event{Time::from_ps(static_cast<std::int64_t>(rng.below(2 * mean_gap_ps))), seq++, 0,
                     0});
    // Warm up, then time batches until the budget is spent.
    std::uint64_t ops = 0;
    std::uint64_t sink = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    while (elapsed < seconds) {
        for (int i = 0; i < 65536; ++i) {
            const Time now = q.top().time;
            const Event e{
                now + Time::from_ps(static_cast<std::int64_t>(rng.below(2 * mean_gap_ps))), seq++,
                static_cast<std::uint32_t>(i), 0};
            sink += q.replace_top(e).target;
        }
        ops += 65536;
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    if (sink == 42) q.clear();  // keeps the loop observable
    return static_cast<double>(ops) / elapsed;
}

}  // namespace

nlohmann::ordered_json run_benchmarks(const BenchOptions& o) {
    nlohmann::ordered_json j;
    const double r4 = hold_rate(10'000, o.seconds_per_queue_size);
    const double r5 = hold_rate(100'000, o.seconds_per_queue_size);
    const double r6 = hold_rate(1'000'000, o.seconds_per_queue_size);
    j["events_per_s"] = r4;
    j["queue_ops_per_s"] = {{"1e4", r4}, {"1e5", r5}, {"1e6", r6}};

    FatTreeTwoLayerParams p;
    p.fabric.switch_radix = o.radix;
    const Topology topo = build_fat_tree_two_layer(p);
    const ForwardingTables routes = shortest_path_routes(topo.graph);
    PatternParams pp;
    pp.endpoints = topo.graph.endpoint_count();
    pp.message_bytes = o.message_bytes;
    const Workload w = permutation(pp);
    NetworkParams np;
    np.header_bytes = 26;
    const SimulationResult r = simulate(topo.graph, routes, w, np, SimulationOptions{});
    j["packet_hops_per_s"] = static_cast<double>(r.counters.packet_hops) / r.wall_s;
    j["packet_events_per_s"] = static_cast<double>(r.events) / r.wall_s;
    j["packet_run"] = {{"topology", "ft2"},
                       {"switch_radix", o.radix},
                       {"endpoints", pp.endpoints},
                       {"workload", "permutation"},
                       {"message_bytes", o.message_bytes},
                       {"packets", r.counters.packets_sent},
                       {"packet_hops", r.counters.packet_hops},
                       {"events", r.events},
                       {"sim_time_us", r.end_time.us()},
                       {"wall_s", r.wall_s},
                       {"completed", r.status == SimulationResult::Status::Completed}};
    j["machine"] = {{"hardware_threads", std::thread::hardware_concurrency()},
                    {"compiler", __VERSION__}};
    return j;
}

}  // namespace clustersim
