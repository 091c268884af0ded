#pragma once
// A scenario key as a registry row declares it (path, type, range, default, help), as ns-3's
// TypeId attributes and SST's documented params do, and the validated values a row parses its
// own parameters from. The schema is assembled from these declarations; a key's fixed default
// is written once, here, and read back by KeyValues when the scenario leaves the key out.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace clustersim {

// List: a sequence of mappings, each validated against the keys under the list's path
// (`faults.kind` for `faults[2].kind`). Names: a sequence of names (`[switch-3, nic-0]`).
enum class KeyType : std::uint8_t { Integer, Number, String, Boolean, Section, List, Names };

struct KeySpec {
    std::string path;
    KeyType type = KeyType::String;
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    std::vector<std::string> choices;    // every name the contract knows
    std::vector<std::string> supported;  // the ones this build implements (empty: all)
    std::string default_text;            // as `check --schema` shows it
    std::string help;
    std::optional<double> default_number;  // a fixed default (Integer, Number, Boolean 0/1)
    std::optional<std::string> default_text_value;  // a fixed default (String)
    std::vector<std::string> words;  // Integer: names accepted instead of a count (`auto`)
    bool or_section = false;         // Integer: a mapping of its own keys instead (a distribution)
};

namespace keys {

inline std::string number_text(double v) {
    if (v == std::floor(v) && std::abs(v) < 1e15)
        return fmt::format("{}", static_cast<long long>(v));
    return fmt::format("{}", v);
}
inline std::string with_note(const std::string& value, const std::string& note) {
    return note.empty() ? value : value + " (" + note + ")";
}

/// Keys whose default depends on something else (a preset, another key): `dflt` says what.
inline KeySpec number(std::string path, double min, double max, std::string dflt,
                      std::string help) {
    return KeySpec{std::move(path), KeyType::Number, min, max, {}, {},
                   std::move(dflt), std::move(help), {},  {},  {}, false};
}
inline KeySpec integer(std::string path, double min, double max, std::string dflt,
                       std::string help) {
    return KeySpec{std::move(path), KeyType::Integer, min, max, {}, {},
                   std::move(dflt), std::move(help),  {},  {},  {}, false};
}
inline KeySpec text(std::string path, std::string dflt, std::string help) {
    return KeySpec{std::move(path), KeyType::String, -INFINITY, INFINITY, {}, {},
                   std::move(dflt), std::move(help), {},        {},       {}, false};
}
inline KeySpec choice(std::string path, std::vector<std::string> choices,
                      std::vector<std::string> supported, std::string dflt, std::string help) {
    return KeySpec{std::move(path),
                   KeyType::String,
                   -INFINITY,
                   INFINITY,
                   std::move(choices),
                   std::move(supported),
                   std::move(dflt),
                   std::move(help),
                   {},
                   {},
                   {},
                   false};
}
inline KeySpec boolean(std::string path, std::string dflt, std::string help) {
    return KeySpec{std::move(path), KeyType::Boolean, -INFINITY, INFINITY, {}, {},
                   std::move(dflt), std::move(help),  {},        {},       {}, false};
}
inline KeySpec section(std::string path) {
    return KeySpec{
        std::move(path), KeyType::Section, -INFINITY, INFINITY, {}, {}, "", "", {}, {}, {}, false};
}
inline KeySpec list(std::string path, std::string dflt, std::string help) {
    return KeySpec{std::move(path), KeyType::List,   -INFINITY, INFINITY, {}, {},
                   std::move(dflt), std::move(help), {},        {},       {}, false};
}
/// `max` names at most (min at least), kept comma-joined.
inline KeySpec names(std::string path, double min, double max, std::string help) {
    return KeySpec{
        std::move(path), KeyType::Names, min, max, {}, {}, "", std::move(help), {}, {}, {}, false};
}

/// Keys with a fixed default, written once: the value, and `note` saying where it comes from
/// (a paper, a firmware default, or "assumption").
inline KeySpec number_default(std::string path, double min, double max, double dflt,
                              std::string note, std::string help) {
    KeySpec k =
        number(std::move(path), min, max, with_note(number_text(dflt), note), std::move(help));
    k.default_number = dflt;
    return k;
}
inline KeySpec integer_default(std::string path, double min, double max, std::uint64_t dflt,
                               std::string note, std::string help) {
    KeySpec k =
        integer(std::move(path), min, max, with_note(std::to_string(dflt), note), std::move(help));
    k.default_number = static_cast<double>(dflt);
    return k;
}
inline KeySpec choice_default(std::string path, std::vector<std::string> choices, std::string dflt,
                              std::string help) {
    KeySpec k = choice(std::move(path), std::move(choices), {}, dflt, std::move(help));
    k.default_text_value = std::move(dflt);
    return k;
}

}  // namespace keys

/// The values a scenario sets, by key path, after the loader checked each against its KeySpec
/// (type, range, choices): what a registry row parses its parameters from.
class KeyValues {
  public:
    bool has(const std::string& path) const {
        return numbers.count(path) || integers.count(path) || texts.count(path);
    }
    double number(const KeySpec& k) const {
        if (auto it = numbers.find(k.path); it != numbers.end()) return it->second;
        return fixed_default(k);
    }
    std::uint64_t integer(const KeySpec& k) const {
        if (auto it = integers.find(k.path); it != integers.end()) return it->second;
        return static_cast<std::uint64_t>(fixed_default(k));
    }
    std::string text(const KeySpec& k) const {
        if (auto it = texts.find(k.path); it != texts.end()) return it->second;
        if (!k.default_text_value) throw std::logic_error(k.path + " has no fixed default");
        return *k.default_text_value;
    }
    double number_or(const std::string& p, double dflt) const {
        auto it = numbers.find(p);
        return it == numbers.end() ? dflt : it->second;
    }
    std::uint64_t integer_or(const std::string& p, std::uint64_t dflt) const {
        auto it = integers.find(p);
        return it == integers.end() ? dflt : it->second;
    }
    std::string text_or(const std::string& p, const std::string& dflt) const {
        auto it = texts.find(p);
        return it == texts.end() ? dflt : it->second;
    }

    std::map<std::string, double> numbers;
    std::map<std::string, std::uint64_t> integers;
    std::map<std::string, std::string> texts;  // strings, choices and booleans

  private:
    static double fixed_default(const KeySpec& k) {
        if (!k.default_number) throw std::logic_error(k.path + " has no fixed default");
        return *k.default_number;
    }
};

}  // namespace clustersim
