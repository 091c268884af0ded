#include "tools/scenario/replicates.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "tools/scenario/settle_layers.hpp"

namespace clustersim {

double ci95_half_width(std::span<const double> values) {
    const std::size_t n = values.size();
    if (n < 2) return 0;
    double mean = 0;
    for (double v : values) mean += v;
    mean /= static_cast<double>(n);
    double ss = 0;
    for (double v : values) ss += (v - mean) * (v - mean);
    const double sd = std::sqrt(ss / static_cast<double>(n - 1));
    const boost::math::students_t t(static_cast<double>(n - 1));
    return boost::math::quantile(boost::math::complement(t, 0.025)) * sd /
           std::sqrt(static_cast<double>(n));
}

void summarise_replicates(Json& first, std::span<const Json> all, std::uint32_t requested) {
    for (std::string_view name : kReplicatedSections) {
        const std::string section(name);
        if (!first.contains(section) || !first[section].is_object()) continue;
        Json& out = first[section];
        Json summarised = out;
        for (auto it = out.begin(); it != out.end(); ++it) {
            if (!it.value().is_number_float()) continue;
            std::vector<double> values;
            for (const Json& doc : all)
                if (doc.contains(section) && doc[section].contains(it.key()) &&
                    doc[section][it.key()].is_number())
                    values.push_back(doc[section][it.key()].get<double>());
            double mean = 0;
            for (double v : values) mean += v;
            if (!values.empty()) mean /= static_cast<double>(values.size());
            summarised[it.key()] = mean;
            summarised[it.key() + "_ci95"] = ci95_half_width(values);
        }
        summarised["replicates"] = all.size();
        if (all.size() < requested) summarised["replicates_incomplete"] = requested - all.size();
        out = std::move(summarised);
    }
}

namespace {
// The mean of `at` over the documents, with its interval.
std::pair<double, double> mean_ci95(std::span<const Json> all, const Json::json_pointer& at) {
    std::vector<double> values;
    for (const Json& doc : all)
        if (doc.contains(at) && doc[at].is_number()) values.push_back(doc[at].get<double>());
    double mean = 0;
    for (double v : values) mean += v / static_cast<double>(values.size());
    return {mean, ci95_half_width(values)};
}
}  // namespace

void summarise_serving_replicates(Json& first, std::span<const Json> all) {
    Json& v = first["serving"];
    for (const char* k : {"ttft_ms", "tpot_ms", "e2e_ms", "queue_ms"}) {
        Json ci = Json::object();
        for (auto it = v[k].begin(); it != v[k].end(); ++it) {
            const auto [mean, half] =
                mean_ci95(all, Json::json_pointer("/serving/" + std::string(k) + "/" + it.key()));
            it.value() = mean;
            ci[it.key()] = half;
        }
        v[std::string(k) + "_ci95"] = ci;
    }
    for (const char* k :
         {"goodput_rps", "slo_attainment", "tokens_per_s_per_gpu", "tokens_per_s_per_node",
          "tokens_per_s_per_musd", "goodput_rps_per_musd"}) {
        const auto [mean, half] = mean_ci95(all, Json::json_pointer("/serving/" + std::string(k)));
        v[k] = mean;
        v[std::string(k) + "_ci95"] = half;
    }
    v["replicates"] = all.size();
    // Seeds whose run did not drain (their requests still in flight) are in the means: said.
    std::size_t stalled = 0;
    for (const Json& doc : all) stalled += doc["status"] != "completed";
    if (stalled > 0) v["replicates_stalled"] = stalled;
}

RunOutcome run_replicates(const Scenario& s, PreparedRun& prepared, bool progress) {
    RunOutcome first = execute_settled(s, prepared, progress);
    if (s.sim.replicates <= 1) return first;
    const bool completed = first.result.status == SimulationResult::Status::Completed;
    std::vector<Json> done;
    if (completed) done.push_back(first.results);
    for (std::uint32_t i = 1; i < s.sim.replicates; ++i) {
        Scenario r = s;
        r.seed = s.seed + i;  // wraps past 2^64 - 1, still a seed
        PreparedRun p = prepare_run(r);
        RunOutcome o = execute_settled(r, p, progress);
        if (o.result.status == SimulationResult::Status::Completed)
            done.push_back(std::move(o.results));
    }
    // Only completed replicates are summarised; the first run's status says whether it did.
    if (completed) summarise_replicates(first.results, done, s.sim.replicates);
    return first;
}

}  // namespace clustersim
