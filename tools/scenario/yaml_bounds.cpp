#include "tools/scenario/yaml_bounds.hpp"

#include <fmt/format.h>

#include "sim/input/input_error.hpp"

namespace clustersim {
namespace {

[[noreturn]] void refuse(const std::string& file, const YAML::Mark& mark, const std::string& msg) {
    if (mark.is_null()) throw InputError(file, 0, 0, {}, msg);
    throw InputError(file, static_cast<std::uint32_t>(mark.line + 1),
                     static_cast<std::uint32_t>(mark.column + 1), {}, msg);
}

void walk(const YAML::Node& node, const std::string& file, std::uint32_t depth,
          std::uint64_t& visited) {
    if (++visited > kMaxYamlNodes)
        refuse(file, node.Mark(),
               fmt::format("the document expands to more than {} nodes through its aliases "
                           "(expected a scenario without alias bombs)",
                           kMaxYamlNodes));
    if (depth > kMaxYamlDepth)
        refuse(file, node.Mark(),
               fmt::format("nested more than {} levels deep, as a self-referencing alias is "
                           "(expected a scenario of plain maps and lists)",
                           kMaxYamlDepth));
    if (node.IsMap()) {
        for (const auto& kv : node) {
            walk(kv.first, file, depth + 1, visited);
            walk(kv.second, file, depth + 1, visited);
        }
    } else if (node.IsSequence()) {
        for (const auto& item : node) walk(item, file, depth + 1, visited);
    }
}

}  // namespace

void check_yaml_bounds(const YAML::Node& root, const std::string& file) {
    std::uint64_t visited = 0;
    walk(root, file, 0, visited);
}

}  // namespace clustersim
