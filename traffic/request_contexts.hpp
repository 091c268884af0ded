#pragma once
// The context (KV-cache) length of each decoding request, and which attention rank serves it:
// a fixed length, or one drawn per request from a distribution (uniform, or lognormal as
// production context lengths are heavy-tailed), then assigned to the ranks of a micro-batch
// as a deployment's load balancer does, so that attention is unbalanced as it is in serving.
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/random.hpp"

namespace clustersim {

enum class KvLengthKind : std::uint8_t { Fixed, Uniform, Lognormal };
inline constexpr std::array<std::string_view, 3> kKvLengthKindNames = {"fixed", "uniform",
                                                                       "lognormal"};

struct KvLengthDistribution {
    KvLengthKind kind = KvLengthKind::Fixed;
    std::uint64_t tokens = 4096;             // fixed
    std::uint64_t min_tokens = 1;            // uniform: [min, max]; lognormal: clamped to it
    std::uint64_t max_tokens = 4096;         //
    double mean_tokens = 4096, sigma = 1.0;  // lognormal: the mean and the log's deviation

    /// The mean context of a request (what an analytic estimate uses).
    double mean() const;
};

/// One length drawn from `d` (a context, a prompt, an output).
std::uint64_t draw_length(const KvLengthDistribution& d, RandomStream& rng);

/// How requests are spread over a micro-batch's attention ranks: every rank gets the same
/// number; `kv` then balances their KV tokens too (largest first to the lightest rank, as
/// DeepSeek's decode load balancer balances KV-cache use and request counts), `count` deals
/// them out in arrival order (round-robin).
enum class RequestBalance : std::uint8_t { Kv, Count };
inline constexpr std::array<std::string_view, 2> kRequestBalanceNames = {"kv", "count"};

/// `ranks` x `per_rank` requests drawn from `dist` and assigned: entry r of the result holds
/// rank r's requests' context lengths.
std::vector<std::vector<std::uint64_t>> assign_request_contexts(const KvLengthDistribution& dist,
                                                                RequestBalance balance,
                                                                std::uint32_t ranks,
                                                                std::uint32_t per_rank,
                                                                RandomStream& rng);

}  // namespace clustersim
