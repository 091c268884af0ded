#include "models/network/simulation.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "models/network/rank_merge.hpp"

namespace clustersim {

std::uint64_t SimulationResult::bytes_received(std::uint32_t m, std::uint64_t message_bytes) const {
    if (messages[m].finished != Time::never()) return message_bytes;
    const auto at = std::lower_bound(
        unfinished_received.begin(), unfinished_received.end(), m,
        [](const Received& r, std::uint32_t message) { return r.message < message; });
    return at != unfinished_received.end() && at->message == m ? at->bytes : 0;
}

std::string whole_on_every_rank(std::uint32_t partitions, bool faults,
                                const std::string& single_reason) {
    if (partitions < 2)
        return single_reason.empty() ? "it is one partition"
                                     : "it is one partition: " + single_reason;
    if (faults) return "faults are not yet spread over ranks";
    return {};
}

SimulationResult simulate(const PortGraph& graph, const ForwardingTables& routes,
                          const Workload& workload, const NetworkParams& params,
                          const SimulationOptions& options, const NodeLayout* layout) {
    Simulator sim;
    Network net(sim, graph, routes, workload, params, layout, options.faults, options.partitions);
    if (!options.keep_non_binding_credits) net.drop_non_binding_credits(layout);
    // Ranks run a cut model's partitions apart; otherwise each runs all of it, alike.
    std::string ranks_note;
    if (options.ranks && options.ranks->count() > 1) {
        const std::string whole = whole_on_every_rank(
            net.partitions().count, options.faults && !options.faults->actions.empty(),
            net.partitions().single_reason);
        if (whole.empty())
            sim.set_ranks(options.ranks, net.partitions().weight);
        else
            ranks_note = "every rank ran the whole model: " + whole;
    }
    net.start();
    sim.set_threads(options.threads);

    using Clock = std::chrono::steady_clock;
    const auto wall_start = Clock::now();
    auto last_print = wall_start;
    // On a terminal one line rewritten twice a second; elsewhere (a Slurm log, CI) a line every
    // 10 s. The share done is of the run's estimated events, an upper bound: so is the ETA.
    const bool terminal = isatty(STDERR_FILENO) != 0;
    const bool show = options.progress;
    const auto period =
        terminal ? std::chrono::milliseconds(500) : std::chrono::milliseconds(10000);
    bool printed = false;
    auto progress = [&](const Simulator& s) {
        if (!show) return;
        const auto now = Clock::now();
        if (now - wall_start < std::chrono::seconds(2) || now - last_print < period) return;
        last_print = now;
        const std::uint64_t events = s.events_processed();
        std::string share;
        if (options.expected_events > events && events > 0) {
            const double done =
                static_cast<double>(events) / static_cast<double>(options.expected_events);
            const double elapsed = std::chrono::duration<double>(now - wall_start).count();
            share = fmt::format("{:.0f} % of at most {} events, at most {:.0f} s to go; ",
                                100 * done, options.expected_events, elapsed * (1 - done) / done);
        }
        const std::string line = fmt::format(
            "  {}simulated {:.1f} us, {} events, {}/{} messages done", share, s.now().us(), events,
            net.counters().messages_finished, workload.messages.size());
        if (terminal) {
            printed = true;
            fmt::print(stderr, "\r{}   ", line);
        } else {
            fmt::print(stderr, "{}\n", line);
        }
        std::fflush(stderr);
    };
    // The event limit rides on the progress callback: checked every 4,096 events when set.
    bool event_limit = false;
    auto progress_and_limit = [&](const Simulator& s) {
        progress(s);
        if (options.max_events > 0 && s.events_processed() >= options.max_events) {
            event_limit = true;
            sim.request_stop();
        }
    };
    const std::uint64_t every = options.max_events > 0 ? 1u << 12 : 1u << 16;
    const StopReason stop =
        options.fingerprint
            ? sim.run_fingerprinted(net, options.max_time, progress_and_limit, every)
            : sim.run(net, options.max_time, progress_and_limit, every);
    const auto wall_end = Clock::now();
    if (printed) fmt::print(stderr, "\n");

    SimulationResult r;
    Ranks* const ranks = sim.ranks();
    r.ranks = ranks ? ranks->count() : 1;
    r.ranks_note = ranks_note;
    // Samplers stop once nothing else is pending: the run ended with the last other event.
    r.end_time = stop == StopReason::QueueEmpty ? net.last_activity() : sim.now();
    if (ranks) {
        std::uint64_t end[1] = {static_cast<std::uint64_t>(r.end_time.ps())};
        ranks->allreduce(end, Ranks::Reduce::Max);
        r.end_time = Time::from_ps(static_cast<std::int64_t>(end[0]));
    }
    r.events = sim.events_processed();
    if (options.fingerprint) r.fingerprint = sim.fingerprint();
    r.wall_s = std::chrono::duration<double>(wall_end - wall_start).count();
    r.counters = net.counters();
    r.queue_samples.assign(net.queue_samples().begin(), net.queue_samples().end());
    r.samples_truncated = net.samples_truncated();
    net.close_tier_series(r.end_time);
    r.tiers = net.tier_series();
    r.peak_packets = net.peak_packets();
    r.partitions = net.partitions().count;
    r.lookahead = net.partitions().lookahead;
    r.cut_channels = net.partitions().cut_channels;
    r.windows = sim.windows_run();
    r.busiest_thread_events = sim.thread_balance().busiest();
    r.threads = sim.threads();
    r.single_partition_reason = net.partitions().single_reason;
    if (ranks) net.agree_path_spread(*ranks);
    r.path_spread = net.path_spread();
    r.faults = net.fault_outcomes();
    const bool all_finished = net.all_finished();
    if (!all_finished || ranks) {
        const auto states = net.messages();
        for (std::uint32_t m = 0; m < states.size(); ++m)
            if (states[m].finished == Time::never())
                if (const std::uint64_t b = net.bytes_received(m); b > 0)
                    r.unfinished_received.push_back({m, b});
    }
    // Last: the network's own states become the result's (moved, not copied).
    r.messages = net.take_messages();
    r.computes = net.take_computes();

    const auto links = net.links();
    const auto ports = net.ports();
    r.channels.resize(links.size());
    for (std::size_t c = 0; c < links.size(); ++c) {
        r.channels[c].bytes = links[c].bytes_carried;
        r.channels[c].pauses = ports[c].pauses;
        r.channels[c].max_queue_bytes = ports[c].max_queue_bytes;
        r.channels[c].drops = ports[c].drops;
        r.channels[c].ecn_marks = ports[c].ecn_marks;
        r.channels[c].paused =
            ports[c].paused_total +
            (ports[c].paused ? r.end_time - ports[c].paused_since : Time::zero());
    }
    // Each rank holds what its partitions did; the rest of its copy of the model stayed idle.
    if (ranks) merge_over_ranks(r, *ranks);

    const bool finished = r.counters.messages_finished == workload.messages.size() &&
                          r.counters.computes_finished == workload.computes.size();
    if (finished) r.unfinished_received.clear();
    if (net.failed())
        r.status = SimulationResult::Status::Failed;
    else if (finished)
        r.status = SimulationResult::Status::Completed;
    else if (stop == StopReason::TimeLimit)
        r.status = SimulationResult::Status::TimeLimit;
    else if (event_limit)
        r.status = SimulationResult::Status::EventLimit;
    else
        r.status = SimulationResult::Status::Stalled;
    r.payload_in_flight = r.counters.payload_sent - r.counters.payload_delivered -
                          r.counters.payload_dropped - r.counters.payload_redundant;
    const double duration_s = r.end_time.seconds();
    for (std::size_t c = 0; c < r.channels.size(); ++c) {
        ChannelUsage& u = r.channels[c];
        const double cap = static_cast<double>(graph.channels()[c].rate.bps()) * duration_s;
        u.utilisation = cap > 0 ? static_cast<double>(u.bytes) * 8.0 / cap : 0.0;
        r.max_link_util = std::max(r.max_link_util, u.utilisation);
        r.max_queue_bytes = std::max(r.max_queue_bytes, u.max_queue_bytes);
        r.pfc_paused = r.pfc_paused + u.paused;
        r.pfc_paused_max = std::max(r.pfc_paused_max, u.paused);
    }
    return r;
}

}  // namespace clustersim
