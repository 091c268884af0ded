#include "tools/scenario/sweep_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "sim/input/input_error.hpp"
#include "sim/input/input_file.hpp"
#include "sim/input/utf8.hpp"
#include "tools/scenario/digest.hpp"
#include "tools/scenario/loader.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/yaml_bounds.hpp"

namespace clustersim {
namespace {

namespace fs = std::filesystem;

InputError located(const std::string& file, const YAML::Mark& m, const std::string& key,
                   const std::string& msg) {
    return InputError(file, static_cast<std::uint32_t>(m.line + 1),
                      static_cast<std::uint32_t>(m.column + 1), key, msg);
}

std::string yaml_text(const YAML::Node& n) {
    if (n.IsScalar()) return n.Scalar();
    YAML::Emitter e;
    e.SetMapFormat(YAML::Flow);
    e.SetSeqFormat(YAML::Flow);
    e << n;
    return e.c_str();
}

SweepAxis read_axis(const std::string& file, const std::string& section,
                    const std::pair<YAML::Node, YAML::Node>& kv) {
    if (!kv.first.IsScalar())
        throw located(file, kv.first.Mark(), section,
                      "a key must be a key path (expected e.g. topology.kind: [ft2, ft3])");
    const std::string path = kv.first.Scalar();
    std::string key = section;
    key.append(".").append(path);
    if (!is_scenario_key(path) && !is_scenario_section(path))
        throw located(file, kv.first.Mark(), key,
                      "not a scenario key (expected a key path such as topology.kind, or a "
                      "section such as topology; clustersim check --schema lists them)");
    if (!kv.second.IsSequence() || kv.second.size() == 0)
        throw located(file, kv.second.Mark(), key, "expected a non-empty list of values");
    SweepAxis a{path,
                {},
                section,
                static_cast<std::uint32_t>(kv.first.Mark().line + 1),
                static_cast<std::uint32_t>(kv.first.Mark().column + 1),
                {}};
    for (const auto& v : kv.second) {
        a.values.push_back(yaml_text(v));
        a.marks.emplace_back(static_cast<std::uint32_t>(v.Mark().line + 1),
                             static_cast<std::uint32_t>(v.Mark().column + 1));
    }
    return a;
}

// The axis just added must be a key no other axis sweeps: two would set it at once.
void check_new_axis(const std::string& file, const YAML::Mark& mark, const std::string& section,
                    const SweepSpec& spec) {
    const std::string& path = (section == "grid" ? spec.grid : spec.zip).back().path;
    std::size_t uses = 0;
    for (const SweepAxis& a : spec.grid) uses += a.path == path;
    for (const SweepAxis& a : spec.zip) uses += a.path == path;
    if (uses > 1)
        throw located(file, mark, section + "." + path,
                      "swept twice (expected each key in one axis, grid or zip, once)");
}

// Times and latencies are better small; throughputs and bandwidths large.
bool better_large(const std::string& objective) {
    for (const char* small : {"_us", "_ms", "latency", "tpot", "cost"})
        if (objective.find(small) != std::string::npos) return false;
    return true;
}

// `serve_search: {attainment, precision, max_probes}` (serve-search's options, each optional):
// every point is a serve-search, as it is when the objective is a serve_search key.
void read_serve_search(const std::string& file, const YAML::Node& root, SweepSpec& spec) {
    spec.serve_search = spec.objective.rfind("serve_search.", 0) == 0;
    const YAML::Node section = root["serve_search"];
    if (!section) return;
    if (!section.IsMap())
        throw located(file, section.Mark(), "serve_search",
                      "expected a map of attainment, precision, max_probes");
    spec.serve_search = true;
    for (const auto& kv : section) {
        const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
        const std::string at = "serve_search." + k;
        if (k == "attainment" || k == "precision") {
            double v = 0;
            if (!YAML::convert<double>::decode(kv.second, v) || !(v > 0 && v <= 1))
                throw located(file, kv.second.Mark(), at, "expected a share above 0 and at most 1");
            (k == "attainment" ? spec.search.attainment : spec.search.precision) = v;
        } else if (k == "max_probes") {
            std::uint32_t n = 0;
            if (!YAML::convert<std::uint32_t>::decode(kv.second, n) || n < 1 || n > 64)
                throw located(file, kv.second.Mark(), at, "expected a count from 1 to 64");
            spec.search.max_probes = n;
        } else {
            throw located(file, kv.first.Mark(), at,
                          "unknown key (expected attainment, precision, max_probes)");
        }
    }
    if (!spec.objective.empty() && spec.objective.rfind("serve_search.", 0) != 0)
        throw InputError(file, spec.objective_line, spec.objective_column, "objective",
                         fmt::format("'{}' is not what a serve-search reports, and the "
                                     "serve_search section makes every point one (expected a "
                                     "serve_search key such as serve_search.rate_per_s_per_musd)",
                                     InputError::printable(spec.objective, 80)));
}

}  // namespace

bool is_sweep_file(const std::string& path) {
    try {
        std::ifstream in =
            open_input_file(path, "the file", "a readable YAML file", kMaxYamlFileBytes);
        std::stringstream ss;
        ss << in.rdbuf();
        const YAML::Node root = YAML::Load(ss.str());
        return root.IsMap() && root["base"];
    } catch (const std::exception&) {
        return false;
    }
}

SweepSpec load_sweep(const std::string& path, const std::vector<std::string>& grid_sets) {
    std::ifstream in =
        open_input_file(path, "the sweep file", "a readable YAML file", kMaxYamlFileBytes);
    std::stringstream ss;
    ss << in.rdbuf();
    return load_sweep_text(ss.str(), path, grid_sets);
}

SweepSpec load_sweep_text(const std::string& text, const std::string& path,
                          const std::vector<std::string>& grid_sets) {
    SweepSpec spec;
    spec.file = path;
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
        throw located(path, e.mark, {}, "YAML syntax error: " + e.msg);
    }
    check_yaml_bounds(root, path);
    if (!root.IsMap())
        throw InputError(path, 1, 1, {}, "a sweep is a mapping (expected base:, grid: ...)");
    std::set<std::string> seen;
    for (const auto& kv : root) {
        if (!kv.first.IsScalar())
            throw located(path, kv.first.Mark(), {},
                          "a key must be a name (expected one of: "
                          "name, base, grid, zip, seeds, objective, "
                          "goal, serve_search)");
        const std::string key = kv.first.Scalar();
        if (!seen.insert(key).second)
            throw located(path, kv.first.Mark(), key, "given twice (expected each key once)");
        if (key != "name" && key != "base" && key != "grid" && key != "zip" && key != "seeds" &&
            key != "objective" && key != "goal" && key != "serve_search")
            throw located(path, kv.first.Mark(), key,
                          "unknown key (expected one of: name, base, grid, zip, seeds, "
                          "objective, goal, serve_search)");
    }
    const YAML::Node base = root["base"];
    if (!base) throw InputError(path, 1, 1, "base", "missing (expected a scenario file or map)");
    if (base.IsScalar()) {
        spec.base_file = (fs::path(path).parent_path() / base.Scalar()).lexically_normal().string();
        try {
            spec.base_text = read_scenario_file(spec.base_file);
        } catch (const InputError& e) {
            throw located(path, base.Mark(), "base", e.formatted());
        }
    } else if (base.IsMap()) {
        spec.base_text = YAML::Dump(base);
    } else {
        throw located(path, base.Mark(), "base", "expected a scenario file name or a map");
    }
    if (const YAML::Node grid = root["grid"]) {
        if (!grid.IsMap())
            throw located(path, grid.Mark(), "grid", "expected a map of key: [values]");
        for (const auto& kv : grid) {
            spec.grid.push_back(read_axis(path, "grid", kv));
            check_new_axis(path, kv.first.Mark(), "grid", spec);
        }
    }
    if (const YAML::Node zip = root["zip"]) {
        if (!zip.IsMap()) throw located(path, zip.Mark(), "zip", "expected a map of key: [values]");
        for (const auto& kv : zip) {
            spec.zip.push_back(read_axis(path, "zip", kv));
            check_new_axis(path, kv.first.Mark(), "zip", spec);
            if (spec.zip.back().values.size() != spec.zip.front().values.size())
                throw located(
                    path, kv.second.Mark(), "zip." + spec.zip.back().path,
                    fmt::format("{} values where the first zip list has {} (expected "
                                "lists of one length)",
                                spec.zip.back().values.size(), spec.zip.front().values.size()));
        }
    }
    if (const YAML::Node seeds = root["seeds"]) {
        std::uint32_t n = 0;
        if (!YAML::convert<std::uint32_t>::decode(seeds, n) || n < 1 || n > 1000)
            throw located(path, seeds.Mark(), "seeds", "expected a count from 1 to 1000");
        spec.seeds = n;
    }
    // `objective: {key: K, goal: max|min}`; a plain key is still accepted, its goal inferred
    // from its name (and said so on stderr when the sweep runs).
    std::optional<bool> objective_goal;
    if (const YAML::Node objective = root["objective"]) {
        if (objective.IsMap()) {
            for (const auto& kv : objective) {
                const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
                if (k != "key" && k != "goal")
                    throw located(path, kv.first.Mark(), "objective." + k,
                                  "unknown key (expected key, goal)");
            }
            const YAML::Node key = objective["key"];
            if (!key || !key.IsScalar() || key.Scalar().empty())
                throw located(path, key ? key.Mark() : objective.Mark(), "objective.key",
                              "expected a results key such as decode.tokens_per_s_per_gpu");
            spec.objective = key.Scalar();
            spec.objective_line = static_cast<std::uint32_t>(key.Mark().line + 1);
            spec.objective_column = static_cast<std::uint32_t>(key.Mark().column + 1);
            if (const YAML::Node goal = objective["goal"]) {
                if (!goal.IsScalar() || (goal.Scalar() != "max" && goal.Scalar() != "min"))
                    throw located(path, goal.Mark(), "objective.goal", "expected max or min");
                objective_goal = goal.Scalar() == "max";
            }
        } else if (objective.IsScalar()) {
            spec.objective = objective.Scalar();
            spec.objective_line = static_cast<std::uint32_t>(objective.Mark().line + 1);
            spec.objective_column = static_cast<std::uint32_t>(objective.Mark().column + 1);
        } else {
            throw located(path, objective.Mark(), "objective",
                          "expected {key: RESULTS_KEY, goal: max|min} or a results key such as "
                          "decode.tokens_per_s_per_gpu");
        }
    }
    spec.availability = spec.objective.rfind("availability.", 0) == 0;
    read_serve_search(path, root, spec);
    spec.maximize = objective_goal.value_or(better_large(spec.objective));
    spec.goal_inferred = !objective_goal && !root["goal"] && !spec.objective.empty();
    if (const YAML::Node goal = root["goal"]) {
        if (!goal.IsScalar() || (goal.Scalar() != "max" && goal.Scalar() != "min"))
            throw located(path, goal.Mark(), "goal", "expected max or min");
        spec.maximize = goal.Scalar() == "max";
    }
    for (const std::string& g : grid_sets) {
        const auto eq = g.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == g.size())
            throw InputError("--grid", fmt::format("'{}' is not PATH=V1,V2,... (expected e.g. "
                                                   "topology.kind=ft2,ft3)",
                                                   InputError::printable(g, 80)));
        SweepAxis a{g.substr(0, eq), {}, "grid", 0, 0, {}};
        if (!is_scenario_key(a.path) && !is_scenario_section(a.path))
            throw InputError("--grid", 0, 0, a.path,
                             "not a scenario key (clustersim check --schema lists them)");
        // Command-line text gets the check a file's text gets (yaml_bounds): UTF-8, no controls.
        if (const std::size_t bad = invalid_utf8_at(g); bad != std::string::npos)
            throw InputError("--grid", 0, 0, a.path,
                             fmt::format("byte {} of '{}' is not UTF-8 (expected UTF-8 text)",
                                         bad + 1, InputError::printable(g, 80)));
        if (std::any_of(g.begin(), g.end(), [](char c) {
                const auto u = static_cast<unsigned char>(c);
                return u < 0x20 || u == 0x7f;
            }))
            throw InputError("--grid", 0, 0, a.path,
                             fmt::format("'{}' holds a control character (expected printable "
                                         "text)",
                                         InputError::printable(g, 80)));
        std::stringstream values(g.substr(eq + 1));
        for (std::string v; std::getline(values, v, ',');) {
            a.values.push_back(v);
            a.marks.emplace_back(0, 0);
        }
        for (const SweepAxis& z : spec.zip)
            if (z.path == a.path)
                throw InputError("--grid", 0, 0, a.path,
                                 "the sweep's zip already sweeps it (expected a key of the grid "
                                 "or a new one)");
        bool replaced = false;
        for (auto& existing : spec.grid)
            if (existing.path == a.path) existing = a, replaced = true;
        if (!replaced) spec.grid.push_back(a);
    }
    if (spec.grid.empty() && spec.zip.empty())
        throw InputError(path, 1, 1, "grid", "missing: a sweep needs grid: or zip: (or --grid)");
    // The points, counted before any is listed.
    long double points =
        spec.zip.empty() ? 1 : static_cast<long double>(spec.zip.front().values.size());
    std::string sizes;
    for (const SweepAxis& a : spec.grid) {
        points *= static_cast<long double>(a.values.size());
        sizes.append(sizes.empty() ? "" : " x ").append(std::to_string(a.values.size()));
    }
    if (!spec.zip.empty())
        sizes.append(sizes.empty() ? "" : " x ")
            .append(std::to_string(spec.zip.front().values.size()))
            .append(" (zip)");
    if (points > static_cast<long double>(kMaxSweepPoints))
        throw InputError(path, 1, 1, spec.grid.empty() ? "zip" : "grid",
                         fmt::format("{} = {:.4g} points, more than the {} one sweep may have "
                                     "(expected fewer values, or several sweeps)",
                                     sizes, static_cast<double>(points), kMaxSweepPoints));
    return spec;
}

std::string point_fingerprint(const SweepSpec& spec, const SweepPoint& point) {
    Digest d;
    d.part("clustersim sweep point 1");
    d.part(spec.base_text);
    for (const Override& o : point.sets) {
        d.part(o.path);
        d.part(o.value);
    }
    d.part(std::to_string(spec.seeds));
    if (spec.availability) d.part("availability");  // another analysis of the same point
    if (spec.serve_search)
        d.part(fmt::format("serve_search {} {} {}", spec.search.attainment, spec.search.precision,
                           spec.search.max_probes));
    return fmt::format("{:016x}", d.value());
}

std::vector<SweepPoint> sweep_points(const SweepSpec& spec) {
    std::vector<SweepPoint> points{SweepPoint{}};
    for (const SweepAxis& a : spec.grid) {  // the first axis varies slowest
        std::vector<SweepPoint> next;
        for (const SweepPoint& p : points)
            for (const std::string& v : a.values) {
                SweepPoint q = p;
                q.sets.push_back(Override{a.path, v});
                next.push_back(std::move(q));
            }
        points = std::move(next);
    }
    if (!spec.zip.empty()) {
        std::vector<SweepPoint> next;
        for (const SweepPoint& p : points)
            for (std::size_t i = 0; i < spec.zip.front().values.size(); ++i) {
                SweepPoint q = p;
                for (const SweepAxis& a : spec.zip) q.sets.push_back(Override{a.path, a.values[i]});
                next.push_back(std::move(q));
            }
        points = std::move(next);
    }
    return points;
}

}  // namespace clustersim
