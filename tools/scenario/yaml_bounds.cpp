#include "tools/scenario/yaml_bounds.hpp"

#include <fmt/format.h>

#include "sim/input/input_error.hpp"
#include "sim/input/utf8.hpp"

namespace clustersim {
namespace {

// Where the walk is, as a chain up to the root; the key path is spelled only for an error.
struct Frame {
    const Frame* parent = nullptr;
    const YAML::Node* key = nullptr;  // in a map: the key (a key itself has none)
    std::size_t index = 0;            // in a list: the position
};

std::string key_path(const Frame* f) {
    std::string path;
    for (; f && f->parent; f = f->parent) {
        std::string part = f->key ? (f->key->IsScalar() ? f->key->Scalar() : std::string("?"))
                                  : fmt::format("[{}]", f->index);
        if (!path.empty() && path.front() != '[') part.append(".");
        path.insert(0, part);
    }
    return path;
}

[[noreturn]] void refuse(const std::string& file, const YAML::Node& node, const Frame& at,
                         const std::string& msg) {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) throw InputError(file, 0, 0, key_path(&at), msg);
    throw InputError(file, static_cast<std::uint32_t>(mark.line + 1),
                     static_cast<std::uint32_t>(mark.column + 1), key_path(&at), msg);
}

// Every scalar (keys too) is valid UTF-8 without control characters but tab and line breaks:
// it may become a name in JSON, HTML or CSV, and an error message must show it whole.
void check_text(const YAML::Node& node, const std::string& file, const Frame& at) {
    const std::string& text = node.Scalar();
    if (const std::size_t bad = invalid_utf8_at(text); bad != std::string::npos)
        refuse(file, node, at,
               fmt::format("byte {} of this text is not UTF-8 (\\x{:02x}; expected UTF-8 text)",
                           bad + 1, static_cast<unsigned char>(text[bad])));
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
            refuse(file, node, at,
                   fmt::format("character {} of this text is the control character U+{:04X} "
                               "(expected printable text)",
                               i + 1, c));
    }
}

void walk(const YAML::Node& node, const std::string& file, const Frame& at, std::uint32_t depth,
          std::uint64_t& visited) {
    if (++visited > kMaxYamlNodes)
        refuse(file, node, at,
               fmt::format("the document expands to more than {} nodes through its aliases "
                           "(expected a scenario without alias bombs)",
                           kMaxYamlNodes));
    if (depth > kMaxYamlDepth)
        refuse(file, node, at,
               fmt::format("nested more than {} levels deep, as a self-referencing alias is "
                           "(expected a scenario of plain maps and lists)",
                           kMaxYamlDepth));
    if (node.IsScalar()) check_text(node, file, at);
    if (node.IsMap()) {
        for (const auto& kv : node) {
            const Frame child{&at, &kv.first, 0};
            walk(kv.first, file, child, depth + 1, visited);
            walk(kv.second, file, child, depth + 1, visited);
        }
    } else if (node.IsSequence()) {
        std::size_t i = 0;
        for (const auto& item : node)
            walk(item, file, Frame{&at, nullptr, i++}, depth + 1, visited);
    }
}

}  // namespace

void check_yaml_bounds(const YAML::Node& root, const std::string& file) {
    std::uint64_t visited = 0;
    walk(root, file, Frame{}, 0, visited);
}

}  // namespace clustersim
