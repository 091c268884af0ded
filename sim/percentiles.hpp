#pragma once
// Order statistics over a sample, with the nearest-rank definition (the value a reader can find
// in the CSV), so results do not depend on an interpolation choice.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace clustersim {

struct Summary {
    std::size_t count = 0;
    double min = 0, mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};

inline double nearest_rank(std::span<const double> sorted, double q) {
    if (sorted.empty()) return 0.0;
    const auto n = sorted.size();
    auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
    rank = std::clamp<std::size_t>(rank, 1, n);
    return sorted[rank - 1];
}

/// The nearest rank of a sample given as (value, how many times it occurs).
inline double weighted_nearest_rank(std::vector<std::pair<double, std::uint64_t>> sample,
                                    double q) {
    std::sort(sample.begin(), sample.end());
    std::uint64_t n = 0;
    for (const auto& v : sample) n += v.second;
    if (n == 0) return 0.0;
    const auto rank = std::clamp<std::uint64_t>(
        static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n))), 1, n);
    std::uint64_t seen = 0;
    for (const auto& [value, count] : sample)
        if ((seen += count) >= rank) return value;
    return sample.back().first;
}

inline Summary summarise(std::vector<double> values) {
    Summary s;
    s.count = values.size();
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    double total = 0;
    for (double v : values) total += v;
    s.min = values.front();
    s.max = values.back();
    s.mean = total / static_cast<double>(values.size());
    s.p50 = nearest_rank(values, 0.50);
    s.p90 = nearest_rank(values, 0.90);
    s.p99 = nearest_rank(values, 0.99);
    return s;
}

}  // namespace clustersim
