#pragma once
// The scenario's front door: YAML text -> every key checked against the schema (type, range,
// choices, duplicates, exact integers), `--set` overrides applied, and the source position of
// each key kept for later error messages. Internal to the scenario library.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/input/key_spec.hpp"
#include "tools/scenario/scenario.hpp"

namespace clustersim {

struct LoadedKeys {
    std::string path;  // the scenario file, as given
    KeyValues values;
    std::map<std::string, SourcePosition> positions;  // every key given, sections included
    std::set<std::string> overridden;                 // paths set by --set
};

/// Reads a scenario file (bounded in size; devices and pipes refused). Throws InputError.
std::string read_scenario_file(const std::string& path);
/// Parses and validates; throws InputError, located, for anything wrong.
LoadedKeys load_keys(const std::string& text, const std::string& path,
                     const std::vector<Override>& overrides);

}  // namespace clustersim
