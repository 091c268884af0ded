#include "tools/scenario/gpu_timeline.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "tools/scenario/csv_writer.hpp"

namespace clustersim {
namespace {

struct Span {
    Time from, to;
    std::string_view stage;  // compute only
};

// The union of intervals, sorted.
std::vector<Span> merged(std::vector<Span> spans) {
    std::sort(spans.begin(), spans.end(),
              [](const Span& a, const Span& b) { return a.from < b.from; });
    std::vector<Span> out;
    for (const Span& s : spans) {
        if (!out.empty() && s.from <= out.back().to)
            out.back().to = std::max(out.back().to, s.to);
        else
            out.push_back(s);
    }
    return out;
}

}  // namespace

std::vector<std::uint32_t> timeline_gpus(std::uint32_t endpoints, std::uint32_t count) {
    const std::uint32_t k = std::min(endpoints, count);
    std::vector<std::uint32_t> g;
    for (std::uint32_t i = 0; i < k; ++i)
        g.push_back(static_cast<std::uint32_t>(std::uint64_t{i} * endpoints / k));
    return g;
}

void write_gpu_timeline_csv(std::ostream& out, const Workload& w, const SimulationResult& r,
                            const MoeRun* moe, std::uint32_t endpoints) {
    CsvWriter csv(out, {"gpu", "state", "start_us", "end_us", "stage"});
    const std::vector<std::uint32_t> gpus = timeline_gpus(endpoints, kTimelineGpus);
    std::vector<std::int32_t> slot(endpoints, -1);
    for (std::size_t i = 0; i < gpus.size(); ++i) slot[gpus[i]] = static_cast<std::int32_t>(i);
    std::vector<std::vector<Span>> compute(gpus.size()), sending(gpus.size());
    for (std::size_t c = 0; c < w.computes.size(); ++c) {
        const ComputeState& st = r.computes[c];
        const std::int32_t k = slot[w.computes[c].gpu];
        if (k < 0 || st.started == Time::never() || st.finished == Time::never() ||
            st.finished == st.started)
            continue;
        compute[k].push_back(
            {st.started, st.finished,
             moe ? moe_compute_stage_name(w.computes[c].label) : std::string_view("compute")});
    }
    for (std::size_t m = 0; m < w.messages.size(); ++m) {
        const MessageState& st = r.messages[m];
        const std::int32_t k = slot[w.messages[m].src];
        if (k < 0 || st.started == Time::never() || st.finished == Time::never()) continue;
        sending[k].push_back({st.started, st.finished, {}});
    }
    auto row = [&](std::uint32_t gpu, std::string_view state, Time from, Time to,
                   std::string_view stage) {
        if (to <= from) return;
        csv.integer(gpu).text(state).fixed(from.us()).fixed(to.us()).text(stage).end_row();
    };
    for (std::size_t k = 0; k < gpus.size(); ++k) {
        // Compute runs one task at a time on a GPU; sending fills the gaps between, waiting
        // what is left.
        std::sort(compute[k].begin(), compute[k].end(),
                  [](const Span& a, const Span& b) { return a.from < b.from; });
        const std::vector<Span> send = merged(std::move(sending[k]));
        Time end = Time::zero();
        for (const Span& s : compute[k]) end = std::max(end, s.to);
        for (const Span& s : send) end = std::max(end, s.to);
        std::size_t si = 0;
        auto gap = [&](Time from, Time to) {  // [from, to): sending where a send covers it
            Time at = from;
            while (si < send.size() && send[si].to <= at) ++si;
            for (std::size_t j = si; j < send.size() && send[j].from < to; ++j) {
                const Time a = std::max(at, send[j].from), b = std::min(to, send[j].to);
                row(gpus[k], "waiting", at, a, "");
                row(gpus[k], "sending", a, b, "");
                at = std::max(at, b);
            }
            row(gpus[k], "waiting", at, to, "");
        };
        Time at = Time::zero();
        for (const Span& s : compute[k]) {
            if (s.from > at) gap(at, s.from);
            row(gpus[k], "compute", std::max(at, s.from), s.to, s.stage);
            at = std::max(at, s.to);
        }
        if (end > at) gap(at, end);
    }
}

}  // namespace clustersim
