#pragma once
// A sweep file: its base scenario, grid and zip axes, seeds and objective, read and checked
// before any point runs; the points it lists and the fingerprint a point's record carries.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tools/scenario/scenario.hpp"
#include "tools/scenario/serve_search.hpp"

namespace clustersim {

struct SweepAxis {
    std::string path;                    // scenario key
    std::vector<std::string> values;     // YAML text of each value
    std::string section = "grid";        // grid or zip
    std::uint32_t line = 0, column = 0;  // where its key is written (0: given by --grid)
    // Where each value is written in the sweep file (line, column; 0: given by --grid).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> marks;
};

struct SweepSpec {
    std::string file;       // the sweep file
    std::string base_file;  // base scenario file (resolved; it anchors relative paths), and
    std::string base_text;  // the base scenario as YAML text: the file's, or the inline map's
    std::vector<SweepAxis> grid, zip;
    std::uint32_t seeds = 3;  // replicates per point: enough for an interval (issue 19)
    std::string objective;    // a results.json key path (a.b.c); empty: none
    bool maximize = true;     // `objective.goal` (default: min for times and latencies, else max)
    bool goal_inferred = false;  // a plain objective key: the goal came from its name
    std::uint32_t objective_line = 1, objective_column = 1;  // where the objective's key is
    // Each point's runs are availability analyses (tools/scenario/availability.hpp): the
    // objective is an availability key, or `clustersim availability` runs the sweep.
    bool availability = false;
    // Each point is a serve-search (tools/scenario/serve_search.hpp): the highest request rate
    // its deployment takes at the SLO. Set by a `serve_search:` section (its options) or an
    // objective under serve_search.
    bool serve_search = false;
    ServeSearchOptions search;
};

/// At most this many points in one sweep (grid sizes multiplied, times the zip's length),
/// refused before any is listed.
inline constexpr std::uint64_t kMaxSweepPoints = 1'000'000;

/// Whether `path` holds a sweep (a mapping with `base:`) rather than a scenario; false for
/// anything unreadable, which the scenario loader then reports.
bool is_sweep_file(const std::string& path);
/// Reads a sweep file; `grid_sets` are `--grid PATH=V1,V2` texts that add or replace grid keys.
/// Throws InputError, located, for anything wrong with the sweep itself.
SweepSpec load_sweep(const std::string& path, const std::vector<std::string>& grid_sets);
/// The same from text already read; `path` names it in errors and anchors the base file.
SweepSpec load_sweep_text(const std::string& text, const std::string& path,
                          const std::vector<std::string>& grid_sets);

struct SweepPoint {
    std::vector<Override> sets;  // the swept values of this point, in axis order
};
std::vector<SweepPoint> sweep_points(const SweepSpec& spec);

/// What a point's record under points/ is checked against when a sweep resumes: a hash of the
/// base scenario's text, the point's values and the seed count (16 hex digits).
std::string point_fingerprint(const SweepSpec& spec, const SweepPoint& point);

}  // namespace clustersim
