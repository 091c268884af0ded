#include "traffic/patterns.hpp"

#include <numeric>
#include <stdexcept>
#include <vector>

#include "sim/random.hpp"

namespace clustersim {

Workload all_to_all(const PatternParams& p) {
    Workload w;
    w.messages.reserve(static_cast<std::size_t>(p.endpoints) * (p.endpoints - 1));
    // Order: by shift, so that at any moment every sender targets a different receiver, as
    // NCCL's and DeepEP's all-to-all loops do.
    for (std::uint32_t shift = 1; shift < p.endpoints; ++shift)
        for (std::uint32_t src = 0; src < p.endpoints; ++src)
            w.add_message(MessageSpec{.src = src,
                                      .dst = (src + shift) % p.endpoints,
                                      .bytes = p.message_bytes,
                                      .start = p.start});
    return w;
}

Workload permutation(const PatternParams& p) {
    if (p.endpoints < 2) throw std::invalid_argument("a permutation needs at least 2 endpoints");
    // Sattolo's algorithm: a uniformly random single cycle, hence no fixed point.
    std::vector<std::uint32_t> dst(p.endpoints);
    std::iota(dst.begin(), dst.end(), 0u);
    RandomStream rng(p.seed, "permutation");
    for (std::uint32_t i = p.endpoints - 1; i > 0; --i) std::swap(dst[i], dst[rng.below(i)]);
    Workload w;
    for (std::uint32_t src = 0; src < p.endpoints; ++src)
        w.add_message(
            MessageSpec{.src = src, .dst = dst[src], .bytes = p.message_bytes, .start = p.start});
    return w;
}

Workload incast(const PatternParams& p, std::uint32_t destination, std::uint32_t senders) {
    if (destination >= p.endpoints) throw std::invalid_argument("incast destination out of range");
    if (senders == 0 || senders >= p.endpoints)
        throw std::invalid_argument("incast needs between 1 and endpoints-1 senders");
    Workload w;
    for (std::uint32_t i = 1; i <= senders; ++i)
        w.add_message(MessageSpec{.src = (destination + i) % p.endpoints,
                                  .dst = destination,
                                  .bytes = p.message_bytes,
                                  .start = p.start});
    return w;
}

}  // namespace clustersim
