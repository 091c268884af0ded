#include "tools/scenario/results_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tools/scenario/results_json.hpp"

namespace clustersim {
namespace {

// Text from input as a JSON string literal: quoted, escaped, invalid UTF-8 replaced.
std::string json_string(const std::string& text) {
    return Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Process ids of the tracks.
constexpr int kStepPid = 1, kGpuPid = 2, kMessagePid = 3, kQueuePid = 4;

class TraceWriter {
  public:
    TraceWriter(std::ostream& out, std::uint64_t limit) : out_(out), limit_(limit) {
        out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    }
    bool full() const { return written_ >= limit_; }
    std::uint64_t written() const { return written_; }
    // ts and dur in microseconds, as the format wants; six decimals keep picosecond order.
    void complete(int pid, std::uint64_t tid, const std::string& name, const char* cat, Time start,
                  Time end) {
        event(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"name":"{}","cat":"{}","ts":{:.6f},)"
                          R"("dur":{:.6f}}})",
                          pid, tid, name, cat, start.us(), (end - start).us()));
    }
    void async(int pid, std::uint64_t tid, std::uint64_t id, const std::string& name,
               const char* cat, Time start, Time end) {
        if (limit_ - std::min(limit_, written_) < 2) {
            written_ = limit_;
            return;
        }
        event(fmt::format(R"({{"ph":"b","pid":{},"tid":{},"id":{},"name":"{}","cat":"{}",)"
                          R"("ts":{:.6f}}})",
                          pid, tid, id, name, cat, start.us()));
        event(fmt::format(R"({{"ph":"e","pid":{},"tid":{},"id":{},"name":"{}","cat":"{}",)"
                          R"("ts":{:.6f}}})",
                          pid, tid, id, name, cat, end.us()));
    }
    void counter(int pid, const char* name, Time at, std::uint64_t value) {
        event(fmt::format(R"({{"ph":"C","pid":{},"name":"{}","ts":{:.6f},"args":{{"bytes":{}}}}})",
                          pid, name, at.us(), value));
    }
    void percent(int pid, const char* name, Time at, double value) {
        event(fmt::format(R"({{"ph":"C","pid":{},"name":"{}","ts":{:.6f},"args":{{"%":{:.3f}}}}})",
                          pid, name, at.us(), 100 * value));
    }
    void process_name(int pid, const std::string& name) {
        meta(fmt::format(R"({{"ph":"M","pid":{},"name":"process_name","args":{{"name":"{}"}}}})",
                         pid, name));
    }
    void thread_name(int pid, std::uint64_t tid, const std::string& name) {
        meta(fmt::format(
            R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":"{}"}}}})", pid,
            tid, name));
    }
    void finish(const std::string& scenario_json, bool truncated) {
        meta(fmt::format(R"({{"ph":"M","pid":0,"name":"clustersim","args":{{"scenario":{},)"
                         R"("truncated":{},"events":{}}}}})",
                         scenario_json, truncated ? "true" : "false", written_));
        out_ << "\n]}\n";
    }

  private:
    void event(const std::string& e) {
        if (full()) return;
        meta(e);
        ++written_;
    }
    void meta(const std::string& e) {
        out_ << (first_ ? "" : ",\n") << e;
        first_ = false;
    }
    std::ostream& out_;
    std::uint64_t limit_, written_ = 0;
    bool first_ = true;
};

}  // namespace

std::uint64_t write_trace(std::ostream& out, const Scenario& s, const PreparedRun& p,
                          const SimulationResult& r, std::uint64_t limit) {
    TraceWriter t(out, limit);
    const Workload& w = p.workload;
    const std::uint32_t endpoints = p.fabric.endpoints();
    const bool gpus = p.fabric.node_layout() != nullptr;
    t.process_name(kGpuPid, gpus ? "GPUs" : "endpoints");
    for (std::uint32_t g = 0; g < endpoints; ++g)
        t.thread_name(kGpuPid, g, fmt::format("{} {}", gpus ? "GPU" : "endpoint", g));

    // MoE: each all-to-all once (the step's figures average these), then each GPU's share.
    if (p.moe) {
        t.process_name(kStepPid, "all-to-alls");
        t.thread_name(kStepPid, 0, "dispatch and combine");
        auto span = [&](std::uint32_t first, std::uint32_t last, Time& start, Time& end) {
            start = Time::never();
            end = Time::zero();
            for (std::uint32_t i = first; i < last; ++i) {
                if (r.messages[i].first_sent != Time::never())
                    start = std::min(start, r.messages[i].first_sent);
                if (r.messages[i].finished != Time::never())
                    end = std::max(end, r.messages[i].finished);
            }
            return start != Time::never();
        };
        std::uint64_t id = 0;
        for (const MoeAllToAllRange& a : p.moe->all_to_alls) {
            // An MTP module's all-to-alls are their own category: dispatch_us and combine_us
            // are the main layers'.
            const std::string where =
                a.mtp ? fmt::format("MTP {} mb{}", a.layer - p.moe->simulated_layers + 1,
                                    a.micro_batch)
                      : fmt::format("{} L{} mb{}", a.backward ? "bwd" : "fwd", a.layer,
                                    a.micro_batch);
            for (const bool dispatch : {true, false}) {
                const std::uint32_t first = dispatch ? a.dispatch_first : a.combine_first;
                const std::uint32_t last = dispatch ? a.dispatch_last : a.combine_last;
                const char* kind = a.mtp ? (dispatch ? "mtp_dispatch" : "mtp_combine")
                                         : (dispatch ? "dispatch" : "combine");
                Time start, end;
                if (span(first, last, start, end))
                    t.complete(kStepPid, 0, fmt::format("{} {}", kind, where), kind, start, end);
                // Per sending GPU: its first byte out to its last message's arrival.
                std::map<std::uint32_t, std::pair<Time, Time>> by_gpu;
                for (std::uint32_t i = first; i < last; ++i) {
                    const MessageState& st = r.messages[i];
                    if (st.first_sent == Time::never() || st.finished == Time::never()) continue;
                    auto [it, fresh] =
                        by_gpu.try_emplace(w.messages[i].src, st.first_sent, st.finished);
                    if (!fresh) {
                        it->second.first = std::min(it->second.first, st.first_sent);
                        it->second.second = std::max(it->second.second, st.finished);
                    }
                }
                for (const auto& [gpu, se] : by_gpu)
                    t.async(kGpuPid, gpu, id++, fmt::format("{} {}", kind, where), kind, se.first,
                            se.second);
            }
        }
    }
    // Compute tasks run one at a time on their GPU: plain spans on its track.
    for (std::size_t c = 0; c < w.computes.size() && !t.full(); ++c) {
        const ComputeState& st = r.computes[c];
        if (st.started == Time::never() || st.finished == Time::never()) continue;
        t.complete(kGpuPid, w.computes[c].gpu, "compute", "compute", st.started, st.finished);
    }
    // The fabric's queued bytes over time (sim.sample_us).
    if (!r.queue_samples.empty() || !r.utilisation_samples.empty())
        t.process_name(kQueuePid, "fabric");
    if (!r.queue_samples.empty()) {
        Time at = r.queue_samples.front().at;
        std::uint64_t total = 0;
        for (const QueueSample& q : r.queue_samples) {
            if (q.at != at) {
                t.counter(kQueuePid, "queued bytes", at, total);
                at = q.at;
                total = 0;
            }
            total += q.queued_bytes;
        }
        t.counter(kQueuePid, "queued bytes", at, total);
    }
    for (const UtilisationSample& u : r.utilisation_samples)
        t.percent(kQueuePid, "switch-to-switch link utilisation", u.at, u.fabric_utilisation);
    // Messages last, as async slices per sender: what the limit cuts first.
    t.process_name(kMessagePid, "messages by sender");
    for (std::size_t m = 0; m < w.messages.size() && !t.full(); ++m) {
        const MessageState& st = r.messages[m];
        if (st.started == Time::never() || st.finished == Time::never()) continue;
        t.async(kMessagePid, w.messages[m].src, m,
                fmt::format("{} -> {} ({} B)", w.messages[m].src, w.messages[m].dst,
                            w.messages[m].bytes),
                "message", st.started, st.finished);
    }
    const bool truncated = t.full();
    t.finish(json_string(s.name), truncated);
    return t.written();
}

}  // namespace clustersim
