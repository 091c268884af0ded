#pragma once
// YAML aliases share nodes: `&t {self: *t}` is a cycle, and nine nested 9-way aliases expand to
// 9^9 nodes from 454 bytes. Every walk of a document goes through this bound first: nesting at
// most kMaxYamlDepth deep, at most kMaxYamlNodes nodes visited counting each alias expansion,
// else a located input error (docs/input-validation.md).
#include <cstdint>
#include <string>

#include <yaml-cpp/yaml.h>

namespace clustersim {

inline constexpr std::uint32_t kMaxYamlDepth = 64;
inline constexpr std::uint64_t kMaxYamlNodes = 1'000'000;
// Scenario and sweep files are a few kilobytes; yaml-cpp holds about 75 bytes per byte it
// parses (a 15 MiB file took 1.2 GB before any check), so files past 1 MiB are refused unread.
inline constexpr std::uintmax_t kMaxYamlFileBytes = std::uintmax_t{1} << 20;

/// Throws InputError at the node where `root` (read from `file`) nests too deep (a cycle does),
/// expands past the node budget, or holds text that is not UTF-8 or has a control character.
void check_yaml_bounds(const YAML::Node& root, const std::string& file);

}  // namespace clustersim
