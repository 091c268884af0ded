#include "tools/scenario/sweep.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>

#include <yaml-cpp/yaml.h>

#include "tools/scenario/availability.hpp"
#include "tools/scenario/csv_writer.hpp"
#include "tools/scenario/estimate.hpp"
#include "tools/scenario/loader.hpp"
#include "tools/scenario/output_files.hpp"
#include "tools/scenario/pareto.hpp"
#include "tools/scenario/replicates.hpp"  // ci95_half_width
#include "tools/scenario/run.hpp"
#include "tools/scenario/serve_search.hpp"
#include "tools/scenario/serving_run.hpp"
#include "tools/scenario/settle_layers.hpp"

namespace clustersim {
namespace {

namespace fs = std::filesystem;

// The metrics a row reports, in column order.
constexpr const char* kMetrics[] = {
    "cost_usd",
    "cost_per_endpoint_usd",
    "cluster_cost_usd",
    "makespan_us",
    "latency_p50_us",
    "latency_p99_us",
    "algbw_GBps",
    "busbw_GBps",
    "tpot_ms",
    "tokens_per_s_per_gpu",
    "tokens_per_s_per_musd",
    "objective",
};

Json metrics_of(const Scenario& s, const Json& r, const std::string& objective) {
    Json m = Json::object();
    auto copy = [&](const char* name, const std::string& path) {
        if (const Json* v = json_at(r, path); v && v->is_number()) m[name] = v->get<double>();
    };
    copy("cost_usd", "topology.cost_usd");
    copy("cost_per_endpoint_usd", "topology.cost_per_endpoint_usd");
    copy("makespan_us", "messages.makespan_us");
    copy("latency_p50_us", "messages.latency_us.p50");
    copy("latency_p99_us", "messages.latency_us.p99");
    copy("algbw_GBps", "bandwidth.algbw_GBps");
    copy("busbw_GBps", "bandwidth.busbw_GBps");
    copy("tpot_ms", "decode.tpot_ms");
    copy("tokens_per_s_per_gpu", "decode.tokens_per_s_per_gpu");
    // A serving run prices its own deployment; a serve-search by its run at the rate found
    // (none when no rate met the target).
    const Json* at_rate = json_at(r, "serve_search.at_rate");
    const bool searched = at_rate && at_rate->is_object();
    if (searched || r.contains("serving")) {
        const std::string v = searched ? "serve_search.at_rate." : "serving.";
        copy("cost_usd", v + "cost_usd.fabric");
        copy("cluster_cost_usd", v + "cost_usd.cluster");
        copy("tokens_per_s_per_gpu", v + "tokens_per_s_per_gpu");
        copy("tokens_per_s_per_musd", v + "tokens_per_s_per_musd");
        if (!objective.empty()) copy("objective", objective);
        return m;
    }
    // The cluster: the fabric plus its servers at the node preset's price (an assumption,
    // models/data/prices.yaml); bare NICs price the fabric alone.
    if (m.contains("cost_usd")) {
        const ClusterCost cluster = cluster_cost_of(s, r);
        m["cluster_cost_usd"] = cluster.usd;
        if (m.contains("tokens_per_s_per_gpu") && cluster.usd > 0)
            m["tokens_per_s_per_musd"] =
                tokens_per_s_per_musd(m["tokens_per_s_per_gpu"].get<double>(),
                                      cluster.nodes * s.cluster.gpus_per_node, cluster.usd);
    }
    if (!objective.empty()) copy("objective", objective);
    return m;
}

// A swept value's YAML text as typed JSON: integers stay integers, `true` a boolean, a map an
// object (a topology section), so that a script reads what varied without parsing YAML again.
Json yaml_json(const YAML::Node& n) {
    if (n.IsMap()) {
        Json o = Json::object();
        for (const auto& kv : n) o[kv.first.Scalar()] = yaml_json(kv.second);
        return o;
    }
    if (n.IsSequence()) {
        Json a = Json::array();
        for (const auto& v : n) a.push_back(yaml_json(v));
        return a;
    }
    if (!n.IsScalar()) return nullptr;
    const std::string& t = n.Scalar();
    if (n.Tag() != "!") {  // unquoted: a number or a boolean where it reads as one
        std::uint64_t u = 0;
        std::int64_t i = 0;
        double d = 0;
        bool b = false;
        if (YAML::convert<std::uint64_t>::decode(n, u) &&
            t.find_first_of(".eE") == std::string::npos)
            return u;
        if (YAML::convert<std::int64_t>::decode(n, i) &&
            t.find_first_of(".eE") == std::string::npos)
            return i;
        if (YAML::convert<double>::decode(n, d) && std::isfinite(d)) return d;
        if (t == "true" || t == "false") {
            (void)YAML::convert<bool>::decode(n, b);
            return b;
        }
    }
    return t;
}

Json sets_json(const SweepPoint& point) {
    Json sets = Json::object();
    for (const Override& o : point.sets) {
        try {
            sets[o.path] = yaml_json(YAML::Load(o.value));
        } catch (const YAML::Exception&) {
            sets[o.path] = o.value;  // the point's own load says what is wrong with it
        }
    }
    return sets;
}

}  // namespace

namespace {

// One point, every seed: its record as results.json lists it (each run's whole results.json
// under runs[k].results, its headline metrics beside them).
Json run_point(const SweepSpec& spec, const SweepPoint& point, const std::string& step_store) {
    Json rec;
    rec["sets"] = sets_json(point);
    Json runs = Json::array();
    // One seed's run: its whole results.json and its headline metrics beside it.
    auto add_run = [&](const Scenario& s, const Json& results) {
        Json run;
        run["seed"] = s.seed;
        run["status"] = results["status"];
        run["metrics"] = metrics_of(s, results, spec.objective);
        run["results"] = results;
        runs.push_back(std::move(run));
        return results["status"] == "completed";
    };
    try {
        for (std::uint32_t k = 0; k < spec.seeds; ++k) {
            Scenario s = load_scenario_text(
                spec.base_text, spec.base_file.empty() ? spec.file : spec.base_file, point.sets);
            // A sweep's replicates are its seeds: a point does not replicate again inside.
            if (s.sim.replicates > 1)
                throw s.error_at("sim.replicates",
                                 "a sweep runs its points' seeds itself (expected the sweep "
                                 "file's seeds: N instead)");
            s.seed += k;
            if (s.serving.set && !step_store.empty()) {
                std::error_code ec;
                std::filesystem::create_directories(step_store, ec);
                if (std::filesystem::is_directory(step_store, ec))
                    s.serving.step_store = step_store;
            }
            if (s.workload.kind.empty()) {
                // A cost-only sweep (no workload): the inventory and its price, as `topo` gives.
                Topology t;
                try {
                    t = build_topology(s, 0, true);
                } catch (const KeyError& e) {
                    throw s.error_for(e);
                }
                Json results;
                results["status"] = "completed";
                results["topology"] = inventory_json(s, t, topology_cost(s, t));
                add_run(s, results);
                break;  // nothing random in a price
            }
            if (spec.serve_search) {  // the highest rate the deployment takes at its SLO
                if (!s.serving.set)
                    throw s.error_at("serving",
                                     "the sweep's points are serve-searches, and this point "
                                     "has no serving: section (expected one; docs/serving.md)");
                Json results = serve_search(s, spec.search, false).results;
                results["status"] = "completed";
                add_run(s, results);
                continue;
            }
            if (s.serving.set) {  // requests over time, each step's time from its shape's run
                if (!add_run(s, execute_serving(s, prepare_serving(s), false).results)) {
                    rec["error"] = "requests still in flight when the run stopped";
                    break;
                }
                continue;
            }
            if (spec.availability || s.availability.set) {  // days of failures, each mode a run
                add_run(s, run_availability(s, false));
                continue;
            }
            PreparedRun prepared = prepare_run(s);
            const RunOutcome o = execute_settled(s, prepared, false);
            if (!add_run(s, o.results)) {
                // Why it stopped (a fault that failed the instance, a stall), as run says it:
                // its first line.
                const std::string why = run_stop_report(s, prepared, o.result);
                rec["error"] = why.substr(0, why.find('\n'));
                break;
            }
        }
        rec["status"] = runs.back()["status"];
    } catch (const InputError& e) {
        rec["status"] = "error";
        rec["error"] = e.formatted();
    } catch (const std::exception& e) {
        rec["status"] = "error";
        rec["error"] = std::string("internal error: ") + e.what();
    }
    rec["runs"] = runs;
    return rec;
}

// Mean and 95 % interval half-width of each metric over a point's runs.
Json summarise(const Json& rec) {
    Json out = Json::object();
    for (const char* name : kMetrics) {
        std::vector<double> v;
        for (const auto& run : rec["runs"])
            if (run["metrics"].contains(name)) v.push_back(run["metrics"][name].get<double>());
        if (v.empty() || v.size() != rec["runs"].size()) continue;
        double mean = 0;
        for (double x : v) mean += x;
        mean /= static_cast<double>(v.size());
        Json m;
        m["mean"] = mean;
        if (v.size() > 1) m["ci95"] = ci95_half_width(v);  // Student's t (Boost.Math)
        out[name] = m;
    }
    return out;
}

constexpr const char* kStatuses[] = {"completed", "stalled", "time_limit", "event_limit", "error"};
bool known_status(const Json& v) {
    if (!v.is_string()) return false;
    for (const char* s : kStatuses)
        if (v == s) return true;
    return false;
}
bool known_metric(const std::string& name) {
    for (const char* m : kMetrics)
        if (name == m) return true;
    return false;
}

// Why the record at `file` cannot stand for point `index` of this sweep, or empty (and the
// record in `out`) when it can: a regular file of at most 1 MiB holding this point's values,
// fingerprint and seeds, a known status, and runs whose metrics are finite numbers.
std::string record_problem(const fs::path& file, std::size_t index, const SweepPoint& point,
                           const std::string& fingerprint, std::uint32_t seeds, Json& out) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(file, ec)))
        return "not a regular file (a link, a pipe or a device)";
    if (const auto size = fs::file_size(file, ec); ec || size > (1u << 20))
        return "larger than any record (1 MiB)";
    std::ifstream in(file, std::ios::binary);
    Json rec = Json::parse(in, nullptr, false);
    if (rec.is_discarded() || !rec.is_object()) return "not a JSON record";
    if (!rec.contains("fingerprint") || rec["fingerprint"] != fingerprint)
        return "the record of another sweep (its base scenario, values or seeds differ)";
    if (rec["point"] != index || rec["seeds"] != seeds || rec["sets"] != sets_json(point))
        return "the record of another point";
    if (!known_status(rec["status"])) return "a record without a known status";
    if (rec.contains("error") && !rec["error"].is_string()) return "a record with a bad error";
    const Json& runs = rec["runs"];
    if (!runs.is_array() || runs.size() > seeds || (rec["status"] == "completed" && runs.empty()))
        return "a record with bad runs";
    for (const Json& run : runs) {
        if (!run.is_object() || !run.contains("seed") || !run["seed"].is_number_integer() ||
            !run.contains("status") || !known_status(run["status"]) ||
            (rec["status"] == "completed" && run["status"] != "completed") ||
            !run.contains("metrics") || !run["metrics"].is_object())
            return "a record with bad runs";
        for (const auto& [name, v] : run["metrics"].items())
            if (!known_metric(name) || !v.is_number() || !std::isfinite(v.get<double>()))
                return "a record with a bad metric";
    }
    out = std::move(rec);
    return {};
}

// Points run -j at a time: refuse before the first starts if the largest that could run
// together need more memory than the limit (each point alone is checked by its own run).
void check_concurrent_memory(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                             const std::vector<std::size_t>& todo, unsigned threads) {
    std::vector<std::uint64_t> need;
    std::uint64_t limit = UINT64_MAX;
    for (const std::size_t i : todo) {
        try {
            const Scenario s = load_scenario_text(
                spec.base_text, spec.base_file.empty() ? spec.file : spec.base_file,
                points[i].sets);
            limit = std::min(limit, memory_limit_bytes(s));
            if (s.serving.set) {
                need.push_back(serving_memory_bytes(check_serving(s)));
                continue;
            }
            const ScenarioEstimate e = estimate_scenario(s);
            need.push_back(e.has_workload ? e.run.memory_bytes() : 0);
        } catch (const InputError&) {
            // the point fails on its own, with this error in its row
        }
    }
    std::sort(need.begin(), need.end(), std::greater<>());
    std::uint64_t together = 0;
    unsigned fit = 0;
    for (unsigned k = 0; k < threads && k < need.size(); ++k) {
        if (together + need[k] > limit) break;
        together += need[k];
        ++fit;
    }
    if (fit >= std::min<std::size_t>(threads, need.size())) return;
    std::uint64_t all = 0;
    for (unsigned k = 0; k < threads && k < need.size(); ++k) all += need[k];
    throw InputError(
        "-j", fmt::format("{} points at once may need {} together, more than the {} "
                          "allowed (expected -j {} or less, or a larger "
                          "sim.max_memory_gb)",
                          threads, format_bytes(all), format_bytes(limit), std::max(1u, fit)));
}

std::string format_duration(double seconds) {
    const auto s = static_cast<long>(seconds + 0.5);
    return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

}  // namespace

SweepSummary run_sweep(const SweepSpec& spec, const SweepOptions& options) {
    const std::vector<SweepPoint> points = sweep_points(spec);
    SweepSummary summary;
    summary.points = points.size();
    std::vector<Json> records(points.size());
    const fs::path dir(options.out_dir);
    auto record_file = [&](std::size_t i) { return dir / "points" / fmt::format("{:05}.json", i); };
    if (!options.out_dir.empty()) {
        std::error_code ec;
        fs::create_directories(dir / "points", ec);
        if (ec)
            throw InputError(
                options.out_dir,
                "cannot create the output folder (expected a writable path for --out)");
    }
    // Resume: a point whose record is there, of this sweep and whole, is done; anything else at
    // that path is run again (and said so), except a folder, which no record can replace.
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < points.size(); ++i) {
        // Over MPI each rank takes every ranks-th point (and reports those it resumes).
        if (i % options.ranks != options.rank) continue;
        if (!options.out_dir.empty()) {
            const fs::path file = record_file(i);
            std::error_code ec;
            const fs::file_status st = fs::symlink_status(file, ec);
            if (fs::is_directory(st))
                throw InputError(file.string(),
                                 "is a folder, where the sweep keeps this point's record "
                                 "(expected a file or nothing at that path)");
            if (fs::exists(st)) {
                const std::string problem = record_problem(
                    file, i, points[i], point_fingerprint(spec, points[i]), spec.seeds, records[i]);
                if (problem.empty()) {
                    ++summary.resumed;
                    continue;
                }
                records[i] = Json();
                fmt::print(stderr, "sweep: {}: {}; running point {} again\n",
                           InputError::printable(file.string()), problem, i);
            }
        }
        todo.push_back(i);
    }

    std::atomic<std::size_t> next{0};
    std::mutex report;
    std::size_t done = 0, failed = 0;
    std::exception_ptr worker_error;  // the first a worker met (a record it could not write)
    const auto start = std::chrono::steady_clock::now();
    const bool tty = isatty(2) != 0;
    auto worker = [&] {
        for (std::size_t k = next++; k < todo.size(); k = next++) {
            const std::size_t i = todo[k];
            try {
                Json rec = run_point(spec, points[i], options.step_store);
                rec["point"] = i;
                rec["seeds"] = spec.seeds;
                rec["fingerprint"] = point_fingerprint(spec, points[i]);
                if (!options.out_dir.empty())
                    write_file_atomically(record_file(i).string(), json_text(rec, 1) + "\n");
                std::lock_guard lock(report);
                failed += rec["status"] != "completed";
                records[i] = std::move(rec);
                ++done;
            } catch (...) {
                std::lock_guard lock(report);
                if (!worker_error) worker_error = std::current_exception();
                next = todo.size();  // the others finish their point and stop
                return;
            }
            if (options.progress) {
                std::lock_guard lock(report);
                const double elapsed =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                const double eta =
                    elapsed / static_cast<double>(done) * static_cast<double>(todo.size() - done);
                const std::size_t width = 30, filled = width * done / todo.size();
                fmt::print(stderr, "{}sweep [{}{}] {}/{} points ({} failed), {} elapsed, ETA {}{}",
                           tty ? "\r" : "", std::string(filled, '#'),
                           std::string(width - filled, '.'), done, todo.size(), failed,
                           format_duration(elapsed), format_duration(eta),
                           tty && done < todo.size() ? "" : "\n");
            }
        }
    };
    const unsigned threads =
        std::max(1u, std::min<unsigned>(options.threads, static_cast<unsigned>(todo.size())));
    if (threads > 1) check_concurrent_memory(spec, points, todo, threads);
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) {
        try {
            pool.emplace_back(worker);
        } catch (const std::system_error&) {
            // The system will not start another thread (ulimit -u, memory): go on with fewer.
            fmt::print(stderr, "sweep: only {} of the {} threads asked for could start\n", t,
                       threads);
            break;
        }
    }
    worker();
    for (auto& t : pool) t.join();
    if (worker_error) std::rethrow_exception(worker_error);

    if (options.ranks > 1) {
        // Every rank sends the records of its points; rank 0 merges them and goes on alone.
        Json mine = Json::array();
        for (std::size_t i = options.rank; i < points.size(); i += options.ranks)
            mine.push_back(records[i]);
        const std::vector<std::string> all = options.gather(json_text(mine));
        if (options.rank != 0) return summary;
        for (std::size_t r = 0; r < all.size(); ++r) {
            const Json part = Json::parse(all[r]);
            for (std::size_t k = 0; k < part.size(); ++k) records[r + k * options.ranks] = part[k];
        }
    }

    // Rows in point order, the cost/objective Pareto front marked (pareto_front).
    std::vector<Json> stats(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        stats[i] = records[i]["status"] == "completed" ? summarise(records[i]) : Json::object();
        summary.failed += records[i]["status"] != "completed";
    }
    auto value = [&](std::size_t i, const char* m) -> std::optional<double> {
        if (!stats[i].contains(m)) return std::nullopt;
        return stats[i][m]["mean"].get<double>();
    };
    std::vector<ParetoPoint> ranked(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        const bool ci = stats[i].contains("objective") && stats[i]["objective"].contains("ci95");
        ranked[i] = {value(i, "cluster_cost_usd"), value(i, "objective"),
                     ci ? stats[i]["objective"]["ci95"].get<double>() : 0.0};
    }
    const std::vector<bool> pareto = pareto_front(ranked, spec.maximize);
    const std::vector<std::vector<std::size_t>> ties = front_ties(ranked, pareto);
    auto tie_text = [&](std::size_t i) {
        std::string t;
        for (std::size_t j : ties[i]) {
            if (!t.empty()) t.push_back(';');
            t.append(std::to_string(j));
        }
        return t;
    };

    CsvWriter csv;
    csv.text("point");
    for (const SweepAxis& a : spec.grid) csv.text(a.path);
    for (const SweepAxis& a : spec.zip) csv.text(a.path);
    csv.text("seeds").text("status");
    for (const char* m : kMetrics) {
        csv.text(m);
        if (spec.seeds > 1) csv.text(std::string(m) + "_ci95");
    }
    csv.text("pareto").text("tied_with").text("error").end_row();
    auto number = [&](const Json& v) -> CsvWriter& {
        return v.is_number() ? csv.real(v.get<double>()) : csv.empty();
    };
    Json rows = Json::array();
    for (std::size_t i = 0; i < points.size(); ++i) {
        csv.integer(i);
        for (const Override& o : points[i].sets) csv.text(o.value);
        csv.integer(spec.seeds).text(records[i]["status"].get<std::string>());
        for (const char* m : kMetrics) {
            const bool has = stats[i].contains(m);
            if (has)
                number(stats[i][m]["mean"]);
            else
                csv.empty();
            if (spec.seeds > 1) {
                if (has && stats[i][m].contains("ci95"))
                    number(stats[i][m]["ci95"]);
                else
                    csv.empty();
            }
        }
        const std::string error =
            records[i].contains("error") ? records[i]["error"].get<std::string>() : "";
        csv.integer(pareto[i] ? 1 : 0).text(tie_text(i)).text(error).end_row();
        Json row;
        row["point"] = i;
        row["sets"] = records[i]["sets"];
        row["status"] = records[i]["status"];
        row["metrics"] = stats[i];
        row["pareto"] = pareto[i];
        // Points on the front whose objective intervals overlap this one's: the sweep cannot
        // tell them apart at its seeds.
        row["tied_with"] = ties[i];
        if (!error.empty()) row["error"] = error;
        rows.push_back(row);
    }
    summary.csv = csv.str();
    summary.json["tool"] = tool_json();
    summary.json["sweep"] = spec.file;
    summary.json["objective"] = spec.objective;
    summary.json["goal"] = spec.maximize ? "max" : "min";
    summary.json["seeds"] = spec.seeds;
    summary.json["points"] = rows;
    if (!options.out_dir.empty()) {
        write_file_atomically((dir / "results.csv").string(), csv.str());
        write_file_atomically((dir / "results.json").string(), json_text(summary.json, 2) + "\n");
    }
    return summary;
}

std::string sweep_table(const SweepSpec& spec, const SweepSummary& summary) {
    const std::vector<SweepPoint> points = sweep_points(spec);
    auto figure = [](double v) {
        const double a = std::abs(v);
        return a >= 1e4 || a == std::floor(a) ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v);
    };
    std::vector<std::string> head{"point"};
    for (const Override& o : points.empty() ? std::vector<Override>{} : points[0].sets)
        head.push_back(o.path);
    head.insert(head.end(), {"status", "cluster_cost_usd"});
    const bool objective = !spec.objective.empty();
    if (objective) head.push_back(spec.objective + (spec.maximize ? " (max)" : " (min)"));
    // The decode headline, unless it is the objective already.
    std::vector<const char*> extra;
    for (const char* m : {"tpot_ms", "tokens_per_s_per_gpu"})
        if (spec.objective != std::string("decode.") + m) extra.push_back(m);
    for (const char* m : extra) head.push_back(m);
    head.push_back("front");
    std::vector<std::vector<std::string>> rows{head};
    bool any_extra = false;
    for (std::size_t i = 0; i < points.size() && i < summary.json["points"].size(); ++i) {
        const Json& row = summary.json["points"][i];
        std::vector<std::string> r{std::to_string(i)};
        for (const Override& o : points[i].sets) r.push_back(o.value);
        r.push_back(row["status"].get<std::string>());
        const Json& m = row["metrics"];
        auto cell = [&](const char* name) {
            if (!m.contains(name)) return std::string("-");
            std::string t = figure(m[name]["mean"].get<double>());
            if (m[name].contains("ci95") && m[name]["ci95"].get<double>() > 0)
                t += " +/- " + figure(m[name]["ci95"].get<double>());
            return t;
        };
        r.push_back(cell("cluster_cost_usd"));
        if (objective) r.push_back(cell("objective"));
        for (const char* e : extra) {
            r.push_back(cell(e));
            any_extra |= m.contains(e);
        }
        r.push_back(row["pareto"].get<bool>() ? "*" : "");
        rows.push_back(std::move(r));
    }
    if (!any_extra)  // no decode: drop its columns
        for (auto& r : rows)
            r.erase(r.end() - 1 - static_cast<std::ptrdiff_t>(extra.size()), r.end() - 1);
    std::vector<std::size_t> width(rows[0].size(), 0);
    for (const auto& r : rows)
        for (std::size_t k = 0; k < r.size(); ++k)
            width[k] = std::max(width[k], InputError::printable(r[k], 60).size());
    const std::size_t varied = points.empty() ? 0 : points[0].sets.size();
    std::string out;
    for (const auto& r : rows) {
        for (std::size_t k = 0; k < r.size(); ++k) {
            const std::string t = InputError::printable(r[k], 60);
            const bool left = k > 0 && k <= varied + 1;  // values and status
            out += k == 0 ? "" : "  ";
            out += left ? fmt::format("{:<{}}", t, width[k]) : fmt::format("{:>{}}", t, width[k]);
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();
        out += "\n";
    }
    return out;
}

}  // namespace clustersim
