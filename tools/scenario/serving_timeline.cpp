#include "tools/scenario/serving_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "sim/percentiles.hpp"
#include "tools/scenario/scenario.hpp"

namespace clustersim {

Json serving_timeline_json(const Scenario& s, std::span<const ServingRequest> requests,
                           const ServingOutcome& out) {
    // At most 10,000 windows: a long drain widens them (by doubling; the width used is
    // reported).
    constexpr std::size_t kMaxWindows = 10000;
    double width_s = s.serving.timeline_s;
    const double end_s = out.end.ms() / 1e3;
    while (std::ceil(end_s / width_s) > kMaxWindows) width_s *= 2;
    const auto windows =
        std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(end_s / width_s)));
    // In integer picoseconds: a time on a window's edge falls in the window it starts.
    const auto width_ps = static_cast<std::int64_t>(std::llround(width_s * 1e12));
    auto window_of = [&](Time t) {
        return std::min(windows - 1, static_cast<std::size_t>(t.ps() / width_ps));
    };
    struct Window {
        std::uint64_t arrived = 0, finished = 0, failed = 0;
        std::uint64_t decode_steps = 0, prefill_steps = 0, failed_steps = 0;
        std::uint64_t batch_sum = 0, batch_max = 0;  // requests per decode step
        std::vector<double> ttft_ms;
        std::vector<std::pair<double, std::uint64_t>> tpot_ms;  // per step, its requests
    };
    std::vector<Window> w(windows);
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const RequestTimes& t = out.requests[i];
        Window& a = w[window_of(requests[i].arrival)];
        ++a.arrived;
        if (t.first_token != Time::never())
            a.ttft_ms.push_back((t.first_token - requests[i].arrival).ms());
        if (t.finish != Time::never()) ++w[window_of(t.finish)].finished;
        if (t.failed != Time::never()) ++w[window_of(t.failed)].failed;
    }
    for (const StepRecord& st : out.steps) {
        Window& a = w[window_of(st.start)];
        a.failed_steps += st.failed;
        if (st.prefill) {
            ++a.prefill_steps;
            continue;
        }
        ++a.decode_steps;
        a.batch_sum += st.batch;
        a.batch_max = std::max<std::uint64_t>(a.batch_max, st.batch);
        // Each request gets tokens / batch output tokens from the step on average.
        if (st.failed || st.batch == 0 || st.tokens == 0) continue;
        const double per_token_ms =
            st.duration.ms() * static_cast<double>(st.batch) / static_cast<double>(st.tokens);
        a.tpot_ms.emplace_back(per_token_ms, st.batch);
    }
    Json rows = Json::array();
    for (std::size_t k = 0; k < windows; ++k) {
        Window& a = w[k];
        const Summary ttft = summarise(std::move(a.ttft_ms));
        rows.push_back(Json{{"start_s", std::round(static_cast<double>(k) * width_s * 1e9) / 1e9},
                            {"arrived", a.arrived},
                            {"finished", a.finished},
                            {"failed", a.failed},
                            {"ttft_ms", {{"p50", ttft.p50}, {"p99", ttft.p99}}},
                            {"tpot_ms",
                             {{"p50", weighted_nearest_rank(a.tpot_ms, 0.5)},
                              {"p99", weighted_nearest_rank(a.tpot_ms, 0.99)}}},
                            {"decode_steps", a.decode_steps},
                            {"decode_batch",
                             {{"mean", a.decode_steps > 0 ? static_cast<double>(a.batch_sum) /
                                                                static_cast<double>(a.decode_steps)
                                                          : 0.0},
                              {"max", a.batch_max}}},
                            {"prefill_steps", a.prefill_steps},
                            {"failed_steps", a.failed_steps}});
    }
    return Json{{"window_s", width_s}, {"windows", std::move(rows)}};
}

}  // namespace clustersim
