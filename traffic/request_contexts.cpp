#include "traffic/request_contexts.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

namespace clustersim {

std::uint64_t draw_length(const KvLengthDistribution& d, RandomStream& rng) {
    switch (d.kind) {
        case KvLengthKind::Fixed:
            return d.tokens;
        case KvLengthKind::Uniform:
            return d.min_tokens + rng.below(d.max_tokens - d.min_tokens + 1);
        case KvLengthKind::Lognormal: {
            // Box-Muller from the stream's own uniforms: the same draws on every platform.
            const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
            const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
            const double mu = std::log(d.mean_tokens) - d.sigma * d.sigma / 2;
            const double x = std::round(std::exp(mu + d.sigma * z));
            return std::clamp<std::uint64_t>(
                x >= 1e18 ? d.max_tokens : static_cast<std::uint64_t>(x), d.min_tokens,
                d.max_tokens);
        }
    }
    return d.tokens;
}

double KvLengthDistribution::mean() const {
    switch (kind) {
        case KvLengthKind::Fixed:
            return static_cast<double>(tokens);
        case KvLengthKind::Uniform:
            return (static_cast<double>(min_tokens) + static_cast<double>(max_tokens)) / 2;
        case KvLengthKind::Lognormal:
            return std::clamp(mean_tokens, static_cast<double>(min_tokens),
                              static_cast<double>(max_tokens));
    }
    return static_cast<double>(tokens);
}

std::vector<std::vector<std::uint64_t>> assign_request_contexts(const KvLengthDistribution& dist,
                                                                RequestBalance balance,
                                                                std::uint32_t ranks,
                                                                std::uint32_t per_rank,
                                                                RandomStream& rng) {
    std::vector<std::uint64_t> pool(std::size_t{ranks} * per_rank);
    for (auto& kv : pool) kv = draw_length(dist, rng);
    std::vector<std::vector<std::uint64_t>> out(ranks);
    for (auto& r : out) r.reserve(per_rank);
    if (balance == RequestBalance::Count || dist.kind == KvLengthKind::Fixed) {
        for (std::size_t i = 0; i < pool.size(); ++i) out[i % ranks].push_back(pool[i]);
        return out;
    }
    // Longest first to the rank with the fewest KV tokens that still has a free slot (ties to
    // the lower rank): the greedy balancer.
    std::stable_sort(pool.begin(), pool.end(), std::greater<>());
    std::vector<std::uint64_t> load(ranks, 0);
    for (const std::uint64_t kv : pool) {
        std::uint32_t best = ranks;
        for (std::uint32_t r = 0; r < ranks; ++r)
            if (out[r].size() < per_rank && (best == ranks || load[r] < load[best])) best = r;
        out[best].push_back(kv);
        load[best] += kv;
    }
    return out;
}

}  // namespace clustersim
