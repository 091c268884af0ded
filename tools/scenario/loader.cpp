#include "tools/scenario/loader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "sim/input/input_file.hpp"
#include "tools/scenario/schema.hpp"
#include "tools/scenario/yaml_bounds.hpp"

namespace clustersim {
namespace {

// Keys a release removed, with what replaces them (docs/scenarios.md says why).
const char* removed_key(const std::string& path) {
    if (path == "network.retransmit_timeout_us")
        return "removed: an RC queue pair times out after 4.096 us x 2^exponent (expected "
               "network.ack_timeout_exponent, and network.retry_count for the retries)";
    return nullptr;
}

using Type = KeyType;

// An integer read exactly (64 bits, never through a double), with an optional unit suffix for
// byte counts. Decimal or exponent forms ("1e6", "1.5MiB") are accepted when their value is an
// integer that a double holds exactly (at most 2^53). Negative values come back as nullopt
// with `negative` set, so the caller can say "out of range" rather than "not an integer".
std::optional<std::uint64_t> parse_integer_text(const std::string& text, bool allow_units,
                                                bool& negative) {
    static const std::vector<std::pair<std::string, std::uint64_t>> units = {
        {"KiB", 1024},      {"MiB", 1048576}, {"GiB", 1073741824}, {"KB", 1000}, {"MB", 1000000},
        {"GB", 1000000000}, {"B", 1}};
    negative = false;
    std::string number = text;
    std::uint64_t scale = 1;
    if (allow_units) {
        for (const auto& [suffix, s] : units) {
            if (number.size() > suffix.size() &&
                number.compare(number.size() - suffix.size(), suffix.size(), suffix) == 0) {
                number = number.substr(0, number.size() - suffix.size());
                while (!number.empty() && number.back() == ' ') number.pop_back();
                scale = s;
                break;
            }
        }
    }
    std::uint64_t exact = 0;
    const char* end = number.data() + number.size();
    if (auto [p, ec] = std::from_chars(number.data(), end, exact); ec == std::errc() && p == end) {
        if (exact > std::numeric_limits<std::uint64_t>::max() / scale) return std::nullopt;
        return exact * scale;
    } else if (ec == std::errc::result_out_of_range && p == end) {
        return std::nullopt;
    }
    double v = 0;
    const auto [p, ec] = std::from_chars(number.data(), end, v);
    if (ec != std::errc() || p != end || !std::isfinite(v)) return std::nullopt;
    v *= static_cast<double>(scale);
    if (v != std::floor(v)) return std::nullopt;
    if (v < 0) {
        negative = true;
        return std::nullopt;
    }
    if (v > 9007199254740992.0) return std::nullopt;  // 2^53: beyond it a double is not exact
    return static_cast<std::uint64_t>(v);
}

// The largest integer a key accepts, from its schema maximum (2^64 - 1 for the seed).
std::uint64_t integer_max(double max) {
    return max >= 18446744073709551615.0 ? std::numeric_limits<std::uint64_t>::max()
                                         : static_cast<std::uint64_t>(max);
}

std::optional<double> parse_number_text(const std::string& text) {
    double v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

class Loader {
  public:
    Loader(std::string path) : path_(std::move(path)) {}

    LoadedKeys load(const std::string& text, const std::vector<Override>& overrides) {
        parse(text);
        for (const auto& o : overrides) apply(o);
        validate(root_, "", "");
        LoadedKeys out;
        out.path = path_;
        for (const auto& [key, mark] : positions_) {
            SourcePosition pos;
            if (overridden_.count(key) || overridden_prefix(key)) {
                pos.file = "--set";
            } else {
                pos.file = path_;
                if (!mark.is_null()) {
                    pos.line = static_cast<std::uint32_t>(mark.line + 1);
                    pos.column = static_cast<std::uint32_t>(mark.column + 1);
                }
            }
            out.positions[key] = pos;
        }
        out.values = std::move(values_);
        out.overridden = std::move(overridden_);
        return out;
    }

  private:
    [[noreturn]] void fail_at(const std::string& key, const YAML::Mark& mark,
                              const std::string& msg) const {
        if (overridden_.count(key) || overridden_prefix(key))
            throw InputError("--set", 0, 0, key, msg);
        if (mark.is_null()) throw InputError(path_, 0, 0, key, msg);
        throw InputError(path_, static_cast<std::uint32_t>(mark.line + 1),
                         static_cast<std::uint32_t>(mark.column + 1), key, msg);
    }
    bool overridden_prefix(const std::string& key) const {
        for (const auto& o : overridden_)
            if (key.size() > o.size() && key.compare(0, o.size(), o) == 0 &&
                (key[o.size()] == '.' || key[o.size()] == '['))
                return true;
        return false;
    }

    // YAML parsers keep one of two equal keys silently; a scenario with two `topology:` maps
    // would take keys from both. Each map's keys must be distinct.
    void reject_duplicate_keys(const YAML::Node& node, const std::string& prefix) const {
        if (node.IsSequence()) {
            for (const auto& item : node) reject_duplicate_keys(item, prefix);
            return;
        }
        if (!node.IsMap()) return;
        std::map<std::string, YAML::Mark> seen;
        for (const auto& kv : node) {
            if (!kv.first.IsScalar()) continue;
            const std::string key = kv.first.Scalar();
            const std::string path = prefix.empty() ? key : prefix + "." + key;
            const auto [it, fresh] = seen.emplace(key, kv.first.Mark());
            if (!fresh)
                throw InputError(path_, static_cast<std::uint32_t>(kv.first.Mark().line + 1),
                                 static_cast<std::uint32_t>(kv.first.Mark().column + 1), path,
                                 fmt::format("duplicate key, first given on line {} (expected "
                                             "each key once per map)",
                                             it->second.line + 1));
            reject_duplicate_keys(kv.second, path);
        }
    }

    void parse(const std::string& text) {
        try {
            root_ = YAML::Load(text);
        } catch (const YAML::ParserException& e) {
            throw InputError(path_, static_cast<std::uint32_t>(e.mark.line + 1),
                             static_cast<std::uint32_t>(e.mark.column + 1), {},
                             "YAML syntax error: " + e.msg);
        }
        if (root_.IsNull()) root_ = YAML::Node(YAML::NodeType::Map);
        check_yaml_bounds(root_, path_);
        reject_duplicate_keys(root_, "");
        if (!root_.IsMap())
            throw InputError(path_, static_cast<std::uint32_t>(root_.Mark().line + 1),
                             static_cast<std::uint32_t>(root_.Mark().column + 1), {},
                             "a scenario is a mapping of keys (expected key: value lines)");
    }

    void apply(const Override& o) {
        const KeySpec* spec = find_key(o.path);
        if (!spec && removed_key(o.path))
            throw InputError("--set", 0, 0, o.path, removed_key(o.path));
        if (!spec) {
            const auto dot = o.path.rfind('.');
            const std::string parent = dot == std::string::npos ? "" : o.path.substr(0, dot);
            const auto siblings = children_of(parent);
            throw InputError("--set", 0, 0, o.path,
                             fmt::format("unknown key (expected one of: {})", join(siblings)));
        }
        YAML::Node value;
        try {
            value = YAML::Load(o.value);
        } catch (const YAML::ParserException& e) {
            throw InputError("--set", 0, 0, o.path, "the value is not valid YAML: " + e.msg);
        }
        check_yaml_bounds(value, "--set");
        std::vector<std::string> parts;
        std::stringstream ss(o.path);
        for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
        set_path(root_, parts, 0, value);
        overridden_.insert(o.path);
    }

    static void set_path(YAML::Node node, const std::vector<std::string>& parts, std::size_t i,
                         const YAML::Node& value) {
        if (i + 1 == parts.size()) {
            node[parts[i]] = value;
            return;
        }
        YAML::Node child = node[parts[i]];
        if (!child.IsMap()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
        set_path(node[parts[i]], parts, i + 1, value);
    }

    // `prefix` names the keys in the schema, `at` in the scenario: they differ inside a list's
    // entries (`faults.kind` is the key of `faults[2].kind`).
    void validate(const YAML::Node& map, const std::string& prefix, const std::string& at) {
        for (auto it = map.begin(); it != map.end(); ++it) {
            const YAML::Node key_node = it->first;
            const YAML::Node value = it->second;
            const std::string key = key_node.IsScalar() ? key_node.Scalar() : "?";
            const std::string path = prefix.empty() ? key : prefix + "." + key;
            const std::string where = at.empty() ? key : at + "." + key;
            const KeySpec* spec = find_key(path);
            if (!spec && removed_key(path)) fail_at(where, key_node.Mark(), removed_key(path));
            if (!spec)
                fail_at(
                    where, key_node.Mark(),
                    fmt::format("unknown key (expected one of: {})", join(children_of(prefix))));
            if (spec->type == Type::Section) {
                positions_[where] = key_node.Mark();  // where a missing key of it is blamed
                if (value.IsNull()) continue;
                if (!value.IsMap())
                    fail_at(where, value.Mark(), "expected a mapping of keys (e.g. kind: ...)");
                validate(value, path, where);
                continue;
            }
            if (spec->type == Type::List) {
                positions_[where] = key_node.Mark();
                std::uint64_t n = 0;
                if (!value.IsNull() && !value.IsSequence())
                    fail_at(where, value.Mark(), "expected a list of entries (e.g. - kind: ...)");
                for (const auto& item : value) {
                    const std::string entry = fmt::format("{}[{}]", where, n++);
                    positions_[entry] = item.Mark();
                    if (!item.IsMap())
                        fail_at(entry, item.Mark(), "expected a mapping of keys (e.g. kind: ...)");
                    validate(item, path, entry);
                }
                values_.integers[where] = n;
                continue;
            }
            positions_[where] = value.Mark();
            if (spec->or_section && value.IsMap()) {  // a number's alternative: its own keys
                validate(value, path, where);
                continue;
            }
            check_value(*spec, value, where);
        }
    }

    void check_value(const KeySpec& spec, const YAML::Node& v, const std::string& path) {
        if (spec.type == Type::Names) {
            std::string joined;
            std::size_t n = 0;
            if (v.IsSequence())
                for (const auto& name : v) {
                    if (!name.IsScalar() || name.Scalar().empty() ||
                        name.Scalar().find(',') != std::string::npos)
                        fail_at(path, name.Mark(),
                                "expected a name such as switch-3 or nic-0 (no commas)");
                    joined += (n++ ? "," : "") + name.Scalar();
                }
            if (!v.IsSequence() || static_cast<double>(n) < spec.min ||
                static_cast<double>(n) > spec.max)
                fail_at(path, v.Mark(),
                        fmt::format("expected a list of {} names (e.g. [switch-3, nic-0])",
                                    format_number(spec.max)));
            values_.texts[path] = joined;
            return;
        }
        if (!v.IsScalar() || (v.IsNull()))
            fail_at(path, v.Mark(),
                    fmt::format("expected {}{}", type_name(spec.type),
                                spec.or_section ? " or a mapping (e.g. kind: uniform)" : ""));
        const std::string text = v.Scalar();
        double num = 0;
        switch (spec.type) {
            case Type::Integer: {
                if (std::find(spec.words.begin(), spec.words.end(), text) != spec.words.end()) {
                    values_.texts[path] = text;
                    return;
                }
                const bool bytes =
                    path.size() > 6 && path.compare(path.size() - 6, 6, "_bytes") == 0;
                bool negative = false;
                const auto parsed = parse_integer_text(text, bytes, negative);
                const std::uint64_t lo = static_cast<std::uint64_t>(spec.min),
                                    hi = integer_max(spec.max);
                if (!parsed && !negative &&
                    text.find_first_not_of("0123456789") == std::string::npos && !text.empty())
                    negative = true;  // all digits but beyond 64 bits: out of range too
                if (negative || (parsed && (*parsed < lo || *parsed > hi)))
                    fail_at(path, v.Mark(),
                            fmt::format("{} is out of range (expected {} to {})", text,
                                        format_number(spec.min), hi));
                if (!parsed)
                    fail_at(path, v.Mark(),
                            fmt::format("'{}' is not {}{}{}", text, type_name(spec.type),
                                        bytes ? " (units KB, MB, GB, KiB, MiB, GiB allowed)" : "",
                                        spec.words.empty()
                                            ? ""
                                            : " (expected a count or " + join(spec.words) + ")"));
                values_.integers[path] = *parsed;
                return;
            }
            case Type::Number: {
                auto parsed = parse_number_text(text);
                if (!parsed)
                    fail_at(path, v.Mark(),
                            fmt::format("'{}' is not {}", text, type_name(spec.type)));
                num = *parsed;
                break;
            }
            case Type::Boolean:
                if (text != "true" && text != "false")
                    fail_at(path, v.Mark(), fmt::format("'{}' is not true or false", text));
                values_.texts[path] = text;
                return;
            case Type::String:
                if (!spec.choices.empty()) {
                    if (std::find(spec.choices.begin(), spec.choices.end(), text) ==
                        spec.choices.end())
                        fail_at(path, v.Mark(),
                                fmt::format("unknown value '{}' (expected one of: {})", text,
                                            join(spec.choices)));
                    if (!spec.supported.empty() &&
                        std::find(spec.supported.begin(), spec.supported.end(), text) ==
                            spec.supported.end())
                        fail_at(
                            path, v.Mark(),
                            fmt::format("unsupported value '{}': not implemented in this build yet "
                                        "(expected one of: {})",
                                        text, join(spec.supported)));
                }
                values_.texts[path] = text;
                return;
            case Type::Section:
            case Type::List:
            case Type::Names:
                return;
        }
        if (num < spec.min || num > spec.max)
            fail_at(path, v.Mark(),
                    fmt::format("{} is out of range (expected {} to {})", text,
                                format_number(spec.min), format_number(spec.max)));
        values_.numbers[path] = num;
    }

    std::string path_;
    YAML::Node root_;
    std::set<std::string> overridden_;
    std::map<std::string, YAML::Mark> positions_;
    KeyValues values_;
};

}  // namespace

std::string read_scenario_file(const std::string& path) {
    std::ifstream in =
        open_input_file(path, "the scenario file", "a readable YAML file", kMaxYamlFileBytes);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

LoadedKeys load_keys(const std::string& text, const std::string& path,
                     const std::vector<Override>& overrides) {
    return Loader(path).load(text, overrides);
}

Override parse_override(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw InputError(
            "--set",
            fmt::format("'{}' is not PATH=VALUE (expected e.g. network.mtu_bytes=4096)", text));
    return Override{text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace clustersim
