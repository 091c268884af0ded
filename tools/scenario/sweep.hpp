#pragma once
// `clustersim sweep`: many runs of one base scenario over a grid (cartesian) and zipped lists
// of key values, each point a full run (with `seeds`, several), ranked by cost against an
// objective. Points run on threads of one process (no global state); each finished point is
// kept under OUT/points/ so that rerunning the same command resumes.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tools/scenario/results_json.hpp"
#include "tools/scenario/scenario.hpp"

namespace clustersim {

struct SweepAxis {
    std::string path;                 // scenario key
    std::vector<std::string> values;  // YAML text of each value
};

struct SweepSpec {
    std::string file;       // the sweep file
    std::string base_file;  // base scenario file (resolved; it anchors relative paths), and
    std::string base_text;  // the base scenario as YAML text: the file's, or the inline map's
    std::vector<SweepAxis> grid, zip;
    std::uint32_t seeds = 1;
    std::string objective;  // a results.json key path (a.b.c); empty: none
    bool maximize = true;   // `objective.goal` (default: min for times and latencies, else max)
    bool goal_inferred = false;  // a plain objective key: the goal came from its name
};

/// At most this many points in one sweep (grid sizes multiplied, times the zip's length),
/// refused before any is listed.
inline constexpr std::uint64_t kMaxSweepPoints = 1'000'000;

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

/// Gathers every rank's text at rank 0 (rank order); other ranks get an empty list.
using GatherToRoot = std::function<std::vector<std::string>(const std::string&)>;

struct SweepOptions {
    unsigned threads = 1;
    std::string out_dir;  // empty: nothing written, nothing resumed
    bool progress = true;
    // Over MPI: this rank runs points i with i % ranks == rank; rank 0 gathers and writes.
    std::size_t rank = 0, ranks = 1;
    GatherToRoot gather;  // required when ranks > 1
};

struct SweepSummary {
    std::size_t points = 0, failed = 0, resumed = 0;
    std::string csv;  // results.csv
    Json json;        // results.json
};

/// Runs every point not already finished under out_dir, then writes results.csv and
/// results.json there.
SweepSummary run_sweep(const SweepSpec& spec, const SweepOptions& options);

}  // namespace clustersim
