#include "tools/scenario/results_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "tools/scenario/messages_csv.hpp"
#include "tools/scenario/results_csv.hpp"
#include "tools/scenario/results_json.hpp"

namespace clustersim {
namespace {

// Process ids of the tracks.
constexpr int kStepPid = 1, kGpuPid = 2, kMessagePid = 3, kQueuePid = 4;

// ts and dur in microseconds, as the format wants (doubles keep picosecond order).
double us(Time t) {
    return t.us();
}

class TraceWriter {
  public:
    explicit TraceWriter(std::ostream& out) : out_(out) {
        out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    }
    void write(const Json& e) {
        out_ << (first_ ? "" : ",\n") << json_text(e);
        first_ = false;
        ++events_;
    }
    // An async slice: begin (with its args) and end, matched by category and id.
    void async(int pid, std::uint64_t tid, const std::string& id, std::string_view name,
               std::string_view cat, Time from, Time to, Json args) {
        Json b = with_id("b", pid, tid, id, name, cat, from);
        b["args"] = std::move(args);
        write(b);
        write(with_id("e", pid, tid, id, name, cat, to));
    }
    // A flow arrow on one track, bound to the slice that encloses its end.
    void flow(int pid, std::uint64_t tid, const std::string& id, std::string_view name,
              std::string_view cat, Time from, Time to) {
        write(with_id("s", pid, tid, id, name, cat, from));
        Json f = with_id("f", pid, tid, id, name, cat, to);
        f["bp"] = "e";
        write(f);
    }
    void finish() { out_ << "\n]}\n"; }
    std::uint64_t events() const { return events_; }

  private:
    static Json with_id(const char* ph, int pid, std::uint64_t tid, const std::string& id,
                        std::string_view name, std::string_view cat, Time at) {
        return {{"ph", ph},     {"pid", pid}, {"tid", tid},   {"id", id},
                {"name", name}, {"cat", cat}, {"ts", at.us()}};
    }
    std::ostream& out_;
    std::uint64_t events_ = 0;
    bool first_ = true;
};

Json name_event(int pid, std::optional<std::uint64_t> tid, const char* what,
                const std::string& name) {
    Json e = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", {{"name", name}}}};
    if (tid) e["tid"] = *tid;
    return e;
}

// Per MoE all-to-all and GPU: when the GPU's share of it ran, and where its dispatch's last
// token arrived (what its experts wait for).
struct GpuShare {
    Time first_sent = Time::never(), last_done = Time::zero();
    Time last_arrival = Time::zero();  // dispatch: its last incoming message
};

}  // namespace

TraceWritten write_trace(std::ostream& out, const Scenario& s, const PreparedRun& p,
                         const SimulationResult& r, std::uint64_t limit) {
    const Workload& w = p.workload;
    const NodeLayout* layout = p.fabric.node_layout();
    const std::uint32_t endpoints = p.fabric.endpoints();
    const std::vector<MessageTag> tags =
        p.moe ? moe_message_tags(*p.moe, w.messages.size()) : std::vector<MessageTag>{};
    auto done = [&](std::size_t m) {
        return r.messages[m].started != Time::never() && r.messages[m].finished != Time::never();
    };

    // What each GPU's track costs: its compute slices, its all-to-all slices and flows, the
    // messages it sends (async: two events each).
    std::vector<std::uint64_t> cost(endpoints, 0);
    for (std::size_t c = 0; c < w.computes.size(); ++c)
        if (r.computes[c].finished != Time::never()) ++cost[w.computes[c].gpu];
    for (std::size_t m = 0; m < w.messages.size(); ++m)
        if (done(m)) cost[w.messages[m].src] += 2;
    // The fabric's counters: two per busy tier per (merged) point, at most an eighth of the
    // limit; eight hot ports per queue snapshot.
    std::vector<std::uint64_t> tier_bytes(r.tiers.tiers().size(), 0);
    for (std::size_t i = 0; i < r.tiers.points(); ++i)
        for (std::size_t k = 0; k < tier_bytes.size(); ++k)
            tier_bytes[k] += r.tiers.point(i, k).bytes;
    const auto busy_tiers = static_cast<std::uint64_t>(
        std::count_if(tier_bytes.begin(), tier_bytes.end(), [](std::uint64_t b) { return b > 0; }));
    const std::uint64_t counter_budget = limit / 8;
    std::size_t stride = 0;  // 0: no tier counters fit
    if (busy_tiers > 0 && r.tiers.points() > 0 && counter_budget >= 2 * busy_tiers) {
        const std::uint64_t fit = counter_budget / (2 * busy_tiers);  // points per tier
        stride = static_cast<std::size_t>((r.tiers.points() + fit - 1) / fit);
    }
    const std::uint64_t tier_counters =
        stride ? 2 * busy_tiers * ((r.tiers.points() + stride - 1) / stride) : 0;
    // The hottest ports' counters (sim.sample_us): every `snapshot_stride`-th snapshot, within
    // another eighth.
    std::uint64_t snapshots = 0;
    for (std::size_t i = 0; i < r.queue_samples.size(); ++i)
        snapshots += i == 0 || r.queue_samples[i].at != r.queue_samples[i - 1].at;
    const std::uint64_t snapshot_stride =
        snapshots == 0 ? 1
                       : std::max<std::uint64_t>(1, (8 * snapshots + counter_budget) /
                                                        std::max<std::uint64_t>(1, counter_budget));
    const std::uint64_t hot_counters =
        counter_budget >= 8 ? 8 * (snapshots / snapshot_stride + 1) : 0;
    std::uint64_t global = 16 + tier_counters + hot_counters;
    if (p.moe) {
        const std::uint64_t per_gpu = 2 * 2 + 4;  // dispatch and combine slices, two flows
        global += 2 * p.moe->all_to_alls.size();
        for (std::uint32_t g = 0; g < endpoints; ++g)
            cost[g] += per_gpu * p.moe->all_to_alls.size();
    }
    // The GPUs kept: all, or the most, spread evenly (GPU i * N / k), that fit the limit.
    auto chosen = [&](std::uint32_t k) {
        std::vector<std::uint32_t> g;
        for (std::uint32_t i = 0; i < k; ++i)
            g.push_back(static_cast<std::uint32_t>(std::uint64_t{i} * endpoints / k));
        return g;
    };
    auto total = [&](const std::vector<std::uint32_t>& gpus) {
        std::uint64_t t = global + 2 * gpus.size();
        for (std::uint32_t g : gpus) t += cost[g];
        return t;
    };
    std::uint32_t lo = 0, hi = endpoints;
    if (total(chosen(endpoints)) > limit) {
        hi = endpoints - 1;
        while (lo < hi) {
            const std::uint32_t mid = (lo + hi + 1) / 2;
            if (total(chosen(mid)) <= limit)
                lo = mid;
            else
                hi = mid - 1;
        }
    }
    const std::uint32_t keep =
        endpoints == 0 ? 0 : (total(chosen(endpoints)) <= limit ? endpoints : lo);
    std::vector<std::uint8_t> kept(endpoints, 0);
    for (std::uint32_t g : chosen(keep)) kept[g] = 1;

    TraceWritten result;
    result.gpus = endpoints;
    result.gpus_kept = keep;
    result.sampled = keep < endpoints;
    const bool gpus = layout != nullptr;
    const char* unit = gpus ? "GPU" : "endpoint";
    if (result.sampled)
        result.what =
            keep == 0
                ? fmt::format("the all-to-alls only: no {}'s events fit in {} (--trace-limit)",
                              unit, limit)
                : fmt::format(
                      "every event of {} of the {} {}s (every {:.3g}th, all layers, the "
                      "whole run), to stay within {} events (--trace-limit)",
                      keep, endpoints, unit, static_cast<double>(endpoints) / keep, limit);
    TraceWriter t(out);
    // What this file holds, first: a reader sees a sample before it reads a partial picture.
    t.write({{"ph", "M"},
             {"pid", 0},
             {"name", "clustersim"},
             {"args",
              {{"scenario", s.name},
               {"sampled", result.sampled},
               {"gpus", endpoints},
               {"gpus_kept", keep},
               {"what", result.sampled ? result.what : std::string("every event")}}}});
    t.write(name_event(kGpuPid, std::nullopt, "process_name", gpus ? "GPUs" : "endpoints"));
    for (std::uint32_t g = 0; g < endpoints; ++g)
        if (kept[g]) t.write(name_event(kGpuPid, g, "thread_name", fmt::format("{} {}", unit, g)));

    std::uint64_t flow_id = 0, slice_id = 0;
    if (p.moe) {
        t.write(name_event(kStepPid, std::nullopt, "process_name", "all-to-alls"));
        t.write(name_event(kStepPid, 0, "thread_name", "dispatch and combine"));
        for (const MoeAllToAllRange& a : p.moe->all_to_alls) {
            const std::uint32_t layer = a.mtp ? a.layer - p.moe->simulated_layers : a.layer;
            const char* pass = a.backward ? "backward" : a.mtp ? "mtp" : "forward";
            const std::string where = fmt::format("{} {} mb{}", pass, layer, a.micro_batch);
            std::map<std::uint32_t, GpuShare> dispatch_share, combine_share;
            for (const bool dispatch : {true, false}) {
                const std::uint32_t first = dispatch ? a.dispatch_first : a.combine_first;
                const std::uint32_t last = dispatch ? a.dispatch_last : a.combine_last;
                // An MTP module's all-to-alls are their own category: dispatch_us and
                // combine_us are the main layers'.
                const char* kind = a.mtp ? (dispatch ? "mtp_dispatch" : "mtp_combine")
                                         : (dispatch ? "dispatch" : "combine");
                auto& share = dispatch ? dispatch_share : combine_share;
                Time start = Time::never(), end = Time::zero();
                std::uint64_t bytes = 0;
                for (std::uint32_t i = first; i < last; ++i) {
                    const MessageState& st = r.messages[i];
                    if (st.first_sent == Time::never() || st.finished == Time::never()) continue;
                    start = std::min(start, st.first_sent);
                    end = std::max(end, st.finished);
                    bytes += w.messages[i].bytes;
                    GpuShare& mine = share[w.messages[i].src];
                    mine.first_sent = std::min(mine.first_sent, st.first_sent);
                    mine.last_done = std::max(mine.last_done, st.finished);
                    GpuShare& theirs = share[w.messages[i].dst];
                    theirs.last_arrival = std::max(theirs.last_arrival, st.finished);
                }
                if (start == Time::never()) continue;
                const Json args = {{"pass", pass},
                                   {"layer", layer},
                                   {"micro_batch", a.micro_batch},
                                   {"messages", last - first},
                                   {"bytes", bytes}};
                t.write({{"ph", "X"},
                         {"pid", kStepPid},
                         {"tid", 0},
                         {"name", fmt::format("{} {}", kind, where)},
                         {"cat", kind},
                         {"ts", us(start)},
                         {"dur", us(end - start)},
                         {"args", args}});
                for (const auto& [gpu, sh] : share) {
                    if (!kept[gpu] || sh.first_sent == Time::never()) continue;
                    t.async(kGpuPid, gpu, fmt::format("a{}", slice_id),
                            fmt::format("{} {}", kind, where), kind, sh.first_sent, sh.last_done,
                            args);
                    ++slice_id;
                }
            }
            // Flows on each kept GPU: its dispatch's last arrival to its experts, and its
            // experts' end to its combine's first byte.
            for (std::size_t rank = 0; rank < a.experts.size(); ++rank) {
                const std::uint32_t task = a.experts[rank];
                if (task >= w.computes.size()) continue;
                const std::uint32_t gpu = w.computes[task].gpu;
                const ComputeState& c = r.computes[task];
                if (!kept[gpu] || c.started == Time::never() || c.finished == Time::never())
                    continue;
                const auto in = dispatch_share.find(gpu);
                if (in != dispatch_share.end() && in->second.last_arrival > Time::zero())
                    t.flow(kGpuPid, gpu, fmt::format("f{}", flow_id++), "tokens in",
                           "dispatch-to-experts", std::min(in->second.last_arrival, c.started),
                           c.started);
                const auto back = combine_share.find(gpu);
                if (back != combine_share.end() && back->second.first_sent != Time::never())
                    t.flow(kGpuPid, gpu, fmt::format("f{}", flow_id++), "results out",
                           "experts-to-combine", c.finished,
                           std::max(back->second.first_sent, c.finished));
            }
        }
    }
    // Compute tasks run one at a time on their GPU: spans named by stage.
    for (std::size_t c = 0; c < w.computes.size(); ++c) {
        const ComputeState& st = r.computes[c];
        const std::uint32_t gpu = w.computes[c].gpu;
        if (!kept[gpu] || st.started == Time::never() || st.finished == Time::never()) continue;
        const std::string_view stage =
            p.moe ? moe_compute_stage_name(w.computes[c].label) : "compute";
        t.write({{"ph", "X"},
                 {"pid", kGpuPid},
                 {"tid", gpu},
                 {"name", stage},
                 {"cat", "compute"},
                 {"ts", us(st.started)},
                 {"dur", us(st.finished - st.started)},
                 {"args", {{"stage", stage}, {"nominal_us", us(w.computes[c].duration)}}}});
    }
    // Per tier over time: its links' utilisation and its deepest port (models/tier_series.hpp),
    // tiers that carried bytes only, every `stride` points merged so that they take at most an
    // eighth of the limit.
    const SimulatedFabric& f = p.fabric;
    const auto channels = f.simulated().graph.channels();
    const TierSeries& series = r.tiers;
    t.write(name_event(kQueuePid, std::nullopt, "process_name", "fabric"));
    for (std::size_t k = 0; k < series.tiers().size(); ++k) {
        const ChannelTier& tier = series.tiers()[k];
        if (tier_bytes[k] == 0 || series.points() == 0 || stride == 0) continue;
        const std::string name =
            channel_tier(f.fabric, f.simulated(), layout, tier.example_channel);
        for (std::size_t i = 0; i < series.points(); i += stride) {
            const std::size_t last = std::min(series.points(), i + stride) - 1;
            std::uint64_t bytes = 0, queue = 0;
            for (std::size_t j = i; j <= last; ++j) {
                bytes += series.point(j, k).bytes;
                queue = std::max(queue, series.point(j, k).max_queue_bytes);
            }
            const Time from = series.at(i) - series.span_of(i);
            const double bits =
                static_cast<double>(tier.capacity_bps) * (series.at(last) - from).seconds();
            t.write(
                {{"ph", "C"},
                 {"pid", kQueuePid},
                 {"name", "utilisation % " + name},
                 {"ts", us(from)},
                 {"args", {{"%", bits > 0 ? 100 * static_cast<double>(bytes) * 8 / bits : 0.0}}}});
            t.write({{"ph", "C"},
                     {"pid", kQueuePid},
                     {"name", "deepest queue " + name},
                     {"ts", us(from)},
                     {"args", {{"bytes", queue}}}});
        }
    }
    // The hottest ports (sim.sample_us): the eight whose sampled queue grew deepest.
    std::map<std::uint32_t, std::uint64_t> deepest;
    for (const QueueSample& q : r.queue_samples)
        deepest[q.channel] = std::max(deepest[q.channel], q.queued_bytes);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> hottest;
    for (const auto& [c, b] : deepest) hottest.emplace_back(b, c);
    std::sort(hottest.begin(), hottest.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    if (hottest.size() > 8) hottest.resize(8);
    if (hot_counters == 0) hottest.clear();
    std::vector<std::string> hot_name;
    for (const auto& [b, c] : hottest)
        hot_name.push_back(fmt::format("queue {}>{}", part_name(layout, channels[c].from),
                                       part_name(layout, channels[c].to)));
    // A port missing from a snapshot held nothing: its counter drops to zero there.
    std::vector<std::uint64_t> at_snapshot(hottest.size(), 0);
    std::uint64_t snapshot = 0;
    auto emit = [&](Time at) {
        if (snapshot++ % snapshot_stride != 0) {
            std::fill(at_snapshot.begin(), at_snapshot.end(), 0);
            return;
        }
        for (std::size_t h = 0; h < hottest.size(); ++h) {
            t.write({{"ph", "C"},
                     {"pid", kQueuePid},
                     {"name", hot_name[h]},
                     {"ts", us(at)},
                     {"args", {{"bytes", at_snapshot[h]}}}});
            at_snapshot[h] = 0;
        }
    };
    for (std::size_t i = 0; i < r.queue_samples.size() && !hottest.empty(); ++i) {
        const QueueSample& q = r.queue_samples[i];
        for (std::size_t h = 0; h < hottest.size(); ++h)
            if (hottest[h].second == q.channel) at_snapshot[h] = q.queued_bytes;
        if (i + 1 == r.queue_samples.size() || r.queue_samples[i + 1].at != q.at) emit(q.at);
    }
    // Messages, as async slices per sender, with what they are.
    t.write(name_event(kMessagePid, std::nullopt, "process_name", "messages by sender"));
    for (std::size_t m = 0; m < w.messages.size(); ++m) {
        const Message& spec = w.messages[m];
        if (!kept[spec.src] || !done(m)) continue;
        const MessageState& st = r.messages[m];
        Json args = {{"src", spec.src},
                     {"dst", spec.dst},
                     {"bytes", spec.bytes},
                     {"path", message_path(w, static_cast<std::uint32_t>(m), layout)}};
        if (!tags.empty() && tags[m].phase != 0) {
            args["phase"] = message_phase_name(tags[m]);
            args["pass"] = message_pass_name(tags[m]);
            args["layer"] = tags[m].layer;
            args["micro_batch"] = tags[m].micro_batch;
        }
        const std::string name = !tags.empty() && tags[m].phase != 0
                                     ? std::string(message_phase_name(tags[m]))
                                     : std::string("message");
        t.async(kMessagePid, spec.src, fmt::format("m{}", m), name, "message", st.started,
                st.finished, std::move(args));
    }
    t.finish();
    result.events = t.events();
    return result;
}

}  // namespace clustersim
