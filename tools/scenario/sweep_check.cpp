#include "tools/scenario/sweep_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tools/scenario/build.hpp"
#include "tools/scenario/estimate.hpp"
#include "tools/scenario/result_keys.hpp"
#include "tools/scenario/serving_run.hpp"
#include "tools/scenario/wall_estimate.hpp"

namespace clustersim {

namespace {

// A point's error, at the grid or zip entry whose value caused it when it came from one (the
// loader names a swept value's key under "--set"), else as the loader put it with the point.
InputError locate(const SweepSpec& spec, const SweepPoint& point, const InputError& e) {
    if (e.file() == "--set") {
        for (const std::vector<SweepAxis>* axes : {&spec.grid, &spec.zip})
            for (const SweepAxis& a : *axes) {
                const std::string& k = e.key();
                const bool under =
                    k == a.path || k.rfind(a.path + ".", 0) == 0 || k.rfind(a.path + "[", 0) == 0;
                if (!under) continue;
                const auto set = std::find_if(point.sets.begin(), point.sets.end(),
                                              [&](const Override& o) { return o.path == a.path; });
                if (set == point.sets.end()) continue;
                const auto i = static_cast<std::size_t>(
                    std::find(a.values.begin(), a.values.end(), set->value) - a.values.begin());
                const auto [line, column] = i < a.marks.size() ? a.marks[i] : std::pair{0u, 0u};
                const std::string where = fmt::format("{}.{}[{}]", a.section, a.path, i);
                const std::string what = k == a.path ? e.what() : k + ": " + e.what();
                if (line == 0) return InputError("--grid", 0, 0, where, what);
                return InputError(spec.file, line, column, where, what);
            }
    }
    std::string sets;
    for (const Override& o : point.sets)
        sets.append(sets.empty() ? "" : ", ").append(o.path).append("=").append(o.value);
    return InputError(e.file(), e.line(), e.column(), e.key(),
                      std::string(e.what()) + " (at the point " + sets + ")");
}

}  // namespace

SweepCheck check_sweep(const SweepSpec& spec) {
    SweepCheck c;
    std::set<std::string> seen;
    auto add = [&](const InputError& e) {
        if (seen.insert(e.formatted()).second) c.errors.push_back(e);
    };
    bool objective_checked = spec.objective.empty();
    // A routing axis changes nothing where no switch of any point's fabric has a choice.
    const SweepAxis* routing = nullptr;
    for (const std::vector<SweepAxis>* axes : {&spec.grid, &spec.zip})
        for (const SweepAxis& a : *axes)
            if (a.path == "network.routing") routing = &a;
    bool route_choice = false;
    std::set<std::string> fabrics_seen;  // the other axes' values: one fabric each
    const std::vector<SweepPoint> points = sweep_points(spec);
    c.points = points.size();
    const std::string& anchor = spec.base_file.empty() ? spec.file : spec.base_file;
    for (const SweepPoint& point : points) {
        Scenario s;
        try {
            s = load_scenario_text(spec.base_text, anchor, point.sets);
            c.availability = c.availability || spec.availability || s.availability.set;
            if (s.sim.replicates > 1)
                throw s.error_at("sim.replicates",
                                 "a sweep runs its points' seeds itself (expected the sweep "
                                 "file's seeds: N instead)");
        } catch (const InputError& e) {
            add(locate(spec, point, e));
            continue;
        }
        if (!objective_checked) {
            std::string hint;
            if (!known_result_key(s, spec.objective, hint))
                add(InputError(spec.file, spec.objective_line, spec.objective_column, "objective",
                               fmt::format("'{}' is not a number a run of this sweep reports "
                                           "(expected {})",
                                           InputError::printable(spec.objective, 80), hint)));
            objective_checked = true;
        }
        ++c.valid_points;
        if (routing && !route_choice) {
            std::string others;
            for (const Override& o : point.sets)
                if (o.path != routing->path)
                    others.append(o.path).append("=").append(o.value).append(";");
            if (fabrics_seen.insert(others).second) {
                try {
                    route_choice = fabric_has_route_choice(s);
                } catch (const std::exception&) {
                    route_choice = true;  // cannot tell: no warning
                }
            }
        }
        if (s.workload.kind.empty()) {  // cost only: the inventory, no simulation
            c.runs += 1;
            continue;
        }
        if (s.serving.set) {  // step runs as the step cache needs them: no count beforehand
            try {
                c.memory_bytes = std::max(c.memory_bytes, serving_memory_bytes(check_serving(s)));
                c.runs += spec.seeds;
                ++c.unestimated;
            } catch (const InputError& e) {
                add(locate(spec, point, e));
                --c.valid_points;
            }
            continue;
        }
        try {
            const ScenarioEstimate e = estimate_scenario(s);
            c.runs += spec.seeds;
            if (!e.has_workload || e.run.events == 0) {
                ++c.unestimated;
                continue;
            }
            c.events += e.run.events * spec.seeds;
            c.wall_s += wall_s_estimate(e.run) * spec.seeds;
            c.memory_bytes = std::max(c.memory_bytes, e.run.memory_bytes());
        } catch (const InputError& e) {
            add(locate(spec, point, e));
            --c.valid_points;
        }
    }
    if (routing && !route_choice && c.valid_points > 0)
        c.warnings.emplace_back(
            routing->line == 0 ? "--grid" : spec.file, routing->line, routing->column,
            routing->section + "." + routing->path,
            "changes nothing: no switch of these fabrics has more than one next hop toward any "
            "destination, so every policy routes alike (warning: expected a fabric with path "
            "diversity, or drop the axis)");
    return c;
}

std::string sweep_check_summary(const SweepSpec& spec, const SweepCheck& c, std::uint32_t threads) {
    const std::uint32_t t = std::max<std::uint32_t>(1, threads);
    if (c.valid_points > 0 && c.unestimated == c.valid_points)  // serving or trace points
        return fmt::format(
            "{}: {} ({} points, {} valid; {} runs at {} seed{}; memory about {} per point; "
            "events and wall time not estimated: no point has a size formula{})",
            spec.file, c.errors.empty() ? "ok" : "not ok", c.points, c.valid_points, c.runs,
            spec.seeds, spec.seeds == 1 ? "" : "s", format_bytes(c.memory_bytes),
            spec.serve_search
                ? fmt::format("; each run is a serve-search of at most {} serving runs sharing "
                              "one step cache",
                              spec.search.max_probes)
                : std::string());
    std::string out = fmt::format(
        "{}: {} ({} points, {} valid; {} runs at {} seed{}; at most about {} events; memory about "
        "{} per "
        "point; wall time about {:.0f} s on {} thread{}, {:.3g} events/s per thread on "
        "average{})",
        spec.file, c.errors.empty() ? "ok" : "not ok", c.points, c.valid_points, c.runs, spec.seeds,
        spec.seeds == 1 ? "" : "s", c.events, format_bytes(c.memory_bytes), c.wall_s / t, t,
        t == 1 ? "" : "s", c.wall_s > 0 ? static_cast<double>(c.events) / c.wall_s : 0.0,
        c.unestimated > 0 ? fmt::format("; {} point{} with no size formula not counted",
                                        c.unestimated, c.unestimated == 1 ? "" : "s")
                          : std::string());
    if (c.availability)
        out +=
            "; each point is an availability analysis: the figures above are its healthy "
            "runs', and every failure mode its sampled days meet adds a run (at most "
            "availability.max_modes)";
    return out;
}

}  // namespace clustersim
