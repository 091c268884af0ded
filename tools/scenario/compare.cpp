#include "tools/scenario/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "sim/input/input_error.hpp"
#include "sim/input/input_file.hpp"

namespace clustersim {
namespace {

// The headline numbers, in the order a reader scans them: the step, the all-to-alls, then the
// messages and the fabric.
constexpr std::array<std::string_view, 22> kHeadline = {"decode.tpot_ms",
                                                        "decode.step_ms",
                                                        "decode.tokens_per_s_per_gpu",
                                                        "decode.tokens_per_s_per_user",
                                                        "decode.dispatch_us",
                                                        "decode.combine_us",
                                                        "decode.exposed_comm_ms",
                                                        "prefill.step_ms",
                                                        "prefill.tokens_per_s_per_gpu",
                                                        "prefill.dispatch_us",
                                                        "prefill.combine_us",
                                                        "training.step_ms",
                                                        "training.tokens_per_s_per_gpu",
                                                        "messages.makespan_us",
                                                        "messages.latency_us.p50",
                                                        "messages.latency_us.p99",
                                                        "bandwidth.busbw_GBps",
                                                        "network.bytes_dropped",
                                                        "network.packets_retransmitted",
                                                        "network.max_link_util",
                                                        "topology.cost_usd",
                                                        "sim.sim_time_us"};

// A value's 95 % half-width: K_ci95 beside K (replicates).
const Json* interval(const Json& j, std::string_view path) {
    return json_at(j, std::string(path) + "_ci95");
}

std::string number_text(double v) {
    if (v == 0) return "0";
    const double a = std::abs(v);
    if (a >= 1e6 || a < 1e-3) return fmt::format("{:.4g}", v);
    if (a >= 1000) return fmt::format("{:.1f}", v);
    return fmt::format("{:.4g}", v);
}

}  // namespace

Json read_run_results(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path file =
        fs::is_directory(path, ec) ? fs::path(path) / "results.json" : fs::path(path);
    std::ifstream in = open_input_file(file.string(), "a run's results",
                                       "the --out folder of a run", std::uint64_t{1} << 30);
    std::stringstream ss;
    ss << in.rdbuf();
    Json j;
    try {
        j = Json::parse(ss.str());
    } catch (const Json::parse_error& e) {
        throw InputError(file.string(),
                         fmt::format("not JSON: {} (expected a run's results.json)", e.what()));
    }
    if (!j.is_object() || !j.contains("status") || !j["status"].is_string())
        throw InputError(file.string(),
                         "not a run's results (expected results.json of clustersim run, with a "
                         "status)");
    if (j.contains("points"))
        throw InputError(file.string(),
                         "a sweep's results (expected a run's: compare its points' runs, or "
                         "run them with --out)");
    return j;
}

Json compare_runs(const std::vector<std::string>& names, const std::vector<Json>& results) {
    Json out;
    out["runs"] = names;
    Json status = Json::array();
    for (const Json& r : results) status.push_back(r.value("status", ""));
    out["status"] = status;
    Json rows = Json::array();
    for (std::string_view key : kHeadline) {
        std::vector<const Json*> v;
        bool any = false;
        for (const Json& r : results) {
            const Json* x = json_at(r, key);
            v.push_back(x && x->is_number() ? x : nullptr);
            any |= v.back() != nullptr;
        }
        if (!any) continue;
        Json row;
        row["key"] = std::string(key);
        Json values = Json::array(), delta = Json::array(), relative = Json::array(),
             beyond = Json::array();
        const double first = v[0] ? v[0]->get<double>() : 0.0;
        for (std::size_t i = 0; i < v.size(); ++i) {
            values.push_back(v[i] ? Json(v[i]->get<double>()) : Json(nullptr));
            if (i == 0) continue;
            if (!v[0] || !v[i]) {
                delta.push_back(nullptr);
                relative.push_back(nullptr);
                beyond.push_back(nullptr);
                continue;
            }
            const double d = v[i]->get<double>() - first;
            delta.push_back(d);
            relative.push_back(first != 0 ? Json(d / std::abs(first)) : Json(nullptr));
            const Json* ca = interval(results[0], key);
            const Json* cb = interval(results[i], key);
            if (ca && cb && ca->is_number() && cb->is_number())
                beyond.push_back(std::abs(d) > ca->get<double>() + cb->get<double>());
            else
                beyond.push_back(nullptr);  // no replicates: no interval to judge by
        }
        row["values"] = values;
        row["delta"] = delta;
        row["relative"] = relative;
        row["beyond_intervals"] = beyond;
        rows.push_back(row);
    }
    out["rows"] = rows;
    return out;
}

std::string compare_table(const Json& c) {
    const auto& names = c["runs"];
    const std::size_t n = names.size();
    std::vector<std::vector<std::string>> cells;
    std::vector<std::string> head{"key"};
    for (std::size_t i = 0; i < n; ++i) {
        head.push_back(fmt::format("[{}]", i + 1));
        if (i > 0) {
            head.push_back(fmt::format("[{}]-[1]", i + 1));
            head.push_back("%");
        }
    }
    cells.push_back(head);
    for (const Json& row : c["rows"]) {
        std::vector<std::string> line{row["key"].get<std::string>()};
        for (std::size_t i = 0; i < n; ++i) {
            const Json& v = row["values"][i];
            line.push_back(v.is_number() ? number_text(v.get<double>()) : "-");
            if (i == 0) continue;
            const Json& d = row["delta"][i - 1];
            const Json& r = row["relative"][i - 1];
            const Json& b = row["beyond_intervals"][i - 1];
            line.push_back(d.is_number() ? fmt::format("{}{}", d.get<double>() > 0 ? "+" : "",
                                                       number_text(d.get<double>()))
                                         : std::string("-"));
            std::string pct =
                r.is_number() ? fmt::format("{:+.1f}", 100 * r.get<double>()) : std::string("-");
            if (b.is_boolean()) pct += b.get<bool>() ? " *" : " ~";
            line.push_back(pct);
        }
        cells.push_back(line);
    }
    std::vector<std::size_t> width(cells[0].size(), 0);
    for (const auto& line : cells)
        for (std::size_t k = 0; k < line.size(); ++k) width[k] = std::max(width[k], line[k].size());
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
        out += fmt::format("[{}] {} ({})\n", i + 1,
                           InputError::printable(names[i].get<std::string>(), 200),
                           InputError::printable(c["status"][i].get<std::string>(), 40));
    for (const auto& line : cells) {
        for (std::size_t k = 0; k < line.size(); ++k)
            out += k == 0 ? fmt::format("{:<{}}", line[k], width[k])
                          : fmt::format("  {:>{}}", line[k], width[k]);
        out += "\n";
    }
    bool intervals = false;
    for (const Json& row : c["rows"])
        for (const Json& b : row["beyond_intervals"]) intervals |= b.is_boolean();
    out += intervals ? "* outside both runs' 95 % intervals; ~ inside them (not told apart)\n"
                     : "no replicates: differences without intervals (sim.replicates: N gives "
                       "them)\n";
    return out;
}

}  // namespace clustersim
