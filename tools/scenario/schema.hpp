#pragma once
// The scenario schema: every key the loader accepts, assembled from the core keys (sections
// common to every scenario) and the keys each registry row declares (topology kinds, routing
// policies, congestion controls). Internal to the scenario library.
#include <string>
#include <vector>

#include "sim/input/key_spec.hpp"

namespace clustersim {

const std::vector<KeySpec>& schema();
/// The key at `path`, or null.
const KeySpec* find_key(const std::string& path);
/// The names of the keys directly under `prefix` ("" for the top level).
std::vector<std::string> children_of(const std::string& prefix);
std::string join(const std::vector<std::string>& v);
std::string type_name(KeyType t);
std::string format_number(double v);
std::vector<std::string> topology_kind_names();

}  // namespace clustersim
