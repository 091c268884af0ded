#pragma once
// The numeric keys a completed run's results.json holds (dotted paths), for checking a sweep's
// objective before any point runs: a misspelt key is refused, not found empty after hours.
// The phase sections come from the writer itself (moe_step_section); the others are listed
// here, and a test runs real scenarios to keep the list true (tests/sweep_check_test.cpp).
#include <string>
#include <vector>

#include "tools/scenario/scenario.hpp"

namespace clustersim {

/// Whether `path` names a number a completed run of `s` reports; `hint` gets the sections (or
/// the keys of the section named) it could have meant.
bool known_result_key(const Scenario& s, const std::string& path, std::string& hint);
/// Every such path of the fixed sections (messages, bandwidth, network, load, topology) and of
/// the scenario's phase section; a prefix ending in '.' stands for a family (topology.cables.).
std::vector<std::string> result_keys(const Scenario& s);

}  // namespace clustersim
