#include "traffic/expert_load.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "sim/input/input_file.hpp"

namespace clustersim {

std::vector<double> read_expert_load_file(const std::string& path, std::uint32_t experts,
                                          std::uint32_t top_k) {
    std::ifstream in = open_input_file(path, "the expert-load file", "a CSV of expert,load lines");
    std::vector<double> load(experts, -1.0);
    std::string line;
    std::uint32_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (line_no > 10'000'000) throw InputError(path, "more than 10 million lines");
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        if (line.compare(first, 11, "expert,load") == 0) continue;
        const auto comma = line.find(',');
        if (comma == std::string::npos)
            throw InputError(path, line_no, 1, {}, "expected 'expert,load'");
        auto trim = [](std::string s) {
            const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
            return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
        };
        const std::string e_text = trim(line.substr(0, comma)),
                          l_text = trim(line.substr(comma + 1));
        std::uint64_t e = 0;
        auto [p, ec] = std::from_chars(e_text.data(), e_text.data() + e_text.size(), e);
        if (ec != std::errc() || p != e_text.data() + e_text.size() || e >= experts)
            throw InputError(
                path, line_no, 1, {},
                fmt::format("'{}' is not an expert (expected 0 to {})", e_text, experts - 1));
        double v = 0;
        auto [q, ec2] = std::from_chars(l_text.data(), l_text.data() + l_text.size(), v);
        if (ec2 != std::errc() || q != l_text.data() + l_text.size() || !std::isfinite(v) || v < 0)
            throw InputError(path, line_no, static_cast<std::uint32_t>(comma + 2), {},
                             fmt::format("'{}' is not a load (expected a number >= 0)", l_text));
        if (load[e] >= 0)
            throw InputError(path, line_no, 1, {}, fmt::format("expert {} appears twice", e));
        load[e] = v;
    }
    std::uint32_t positive = 0;
    for (std::uint32_t e = 0; e < experts; ++e) {
        if (load[e] < 0)
            throw InputError(path, fmt::format("expert {} has no line (expected one line per "
                                               "expert, 0 to {})",
                                               e, experts - 1));
        positive += load[e] > 0;
    }
    if (positive < top_k)
        throw InputError(path, fmt::format("{} experts have a positive load, fewer than top_k = {}",
                                           positive, top_k));
    return load;
}

}  // namespace clustersim
