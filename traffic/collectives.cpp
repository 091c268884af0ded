#include "traffic/collectives.hpp"

#include <stdexcept>
#include <vector>

namespace clustersim {
namespace {

// `steps` ring steps of `bytes` each: rank r sends to r + 1; its step k waits for step k - 1
// from r - 1 (received), as NCCL's ring does.
Workload ring(const PatternParams& p, std::uint32_t steps, std::uint64_t bytes) {
    const std::uint32_t n = p.endpoints;
    if (n < 2) throw std::invalid_argument("a collective needs at least 2 ranks");
    Workload w;
    std::vector<std::uint32_t> prev(n, kNone);  // per rank: its previous step's message
    for (std::uint32_t k = 0; k < steps; ++k) {
        std::vector<std::uint32_t> cur(n);
        for (std::uint32_t r = 0; r < n; ++r) {
            MessageSpec m{r, (r + 1) % n, bytes, k == 0 ? p.start : Time::never(), 0};
            cur[r] = w.add_message(m);
        }
        if (k > 0)
            for (std::uint32_t r = 0; r < n; ++r)
                w.depend({TaskKind::Transfer, prev[(r + n - 1) % n]}, Completion::Done,
                         {TaskKind::Transfer, cur[r]});
        prev = cur;
    }
    return w;
}

}  // namespace

Workload all_reduce(const PatternParams& p, CollectiveAlgorithm algorithm,
                    std::uint32_t tree_chunks) {
    const std::uint32_t n = p.endpoints;
    if (algorithm == CollectiveAlgorithm::Ring)
        return ring(p, 2 * (n - 1), (p.message_bytes + n - 1) / n);
    if (n < 2) throw std::invalid_argument("a collective needs at least 2 ranks");
    // NCCL's double binary tree: even chunks on a binary tree rooted at rank 0 (parent of
    // position i is (i - 1) / 2), odd chunks on its mirror (position i is rank n - 1 - i), so a
    // rank that is interior in one tree is a leaf in the other.
    const std::uint32_t chunks = std::max<std::uint32_t>(1, tree_chunks);
    const std::uint64_t chunk = (p.message_bytes + chunks - 1) / chunks;
    Workload w;
    // A connection sends its chunks in order, as NCCL's do: a position's chunk c goes once its
    // chunk c - 2 (the previous one on the same tree) has left. Without it every chunk would
    // move at once and the pipeline would collapse into one long transfer per tree level.
    std::vector<std::uint32_t> last_up[2] = {std::vector<std::uint32_t>(n, kNone),
                                             std::vector<std::uint32_t>(n, kNone)};
    std::vector<std::uint32_t> last_down[2] = {std::vector<std::uint32_t>(n, kNone),
                                               std::vector<std::uint32_t>(n, kNone)};
    for (std::uint32_t c = 0; c < chunks; ++c) {
        auto rank = [&](std::uint32_t i) { return c % 2 == 0 ? i : n - 1 - i; };
        auto& prev_up = last_up[c % 2];
        auto& prev_down = last_down[c % 2];
        // Reduce: position i sends chunk c up once it has it from each child (leaves at once).
        std::vector<std::uint32_t> up(n, kNone), down(n, kNone);
        for (std::uint32_t i = n; i-- > 1;) {
            up[i] = w.add_message(MessageSpec{rank(i), rank((i - 1) / 2), chunk, Time::never(), 0});
            bool has_child = false;
            for (std::uint32_t kid : {2 * i + 1, 2 * i + 2})
                if (kid < n) {
                    w.depend({TaskKind::Transfer, up[kid]}, Completion::Done,
                             {TaskKind::Transfer, up[i]});
                    has_child = true;
                }
            if (prev_up[i] != kNone)
                w.depend({TaskKind::Transfer, prev_up[i]}, Completion::Sent,
                         {TaskKind::Transfer, up[i]});
            else if (!has_child)
                w.set_start(up[i], p.start);
            prev_up[i] = up[i];
        }
        // Broadcast: the root sends chunk c down once its children's partial sums are in;
        // every other position once it has it from its parent.
        for (std::uint32_t i = 1; i < n; ++i) {
            const std::uint32_t parent = (i - 1) / 2;
            down[i] = w.add_message(MessageSpec{rank(parent), rank(i), chunk, Time::never(), 0});
            if (parent == 0) {
                for (std::uint32_t kid : {1u, 2u})
                    if (kid < n)
                        w.depend({TaskKind::Transfer, up[kid]}, Completion::Done,
                                 {TaskKind::Transfer, down[i]});
            } else {
                w.depend({TaskKind::Transfer, down[parent]}, Completion::Done,
                         {TaskKind::Transfer, down[i]});
            }
            if (prev_down[i] != kNone)
                w.depend({TaskKind::Transfer, prev_down[i]}, Completion::Sent,
                         {TaskKind::Transfer, down[i]});
            prev_down[i] = down[i];
        }
    }
    return w;
}

Workload all_gather(const PatternParams& p) {
    const std::uint32_t n = p.endpoints;
    return ring(p, n - 1, (p.message_bytes + n - 1) / n);
}

Workload reduce_scatter(const PatternParams& p) {
    const std::uint32_t n = p.endpoints;
    return ring(p, n - 1, (p.message_bytes + n - 1) / n);
}

BusBandwidth nccl_bandwidth(CollectiveKind kind, std::uint32_t ranks, std::uint64_t message_bytes,
                            double seconds) {
    if (seconds <= 0 || ranks == 0) return {};
    const double n = ranks;
    const double size =
        static_cast<double>(message_bytes) * (kind == CollectiveKind::AllToAll ? n : 1);
    const double algbw = size / seconds / 1e9;
    const double factor = kind == CollectiveKind::AllReduce ? 2 * (n - 1) / n : (n - 1) / n;
    return {algbw, algbw * factor};
}

}  // namespace clustersim
