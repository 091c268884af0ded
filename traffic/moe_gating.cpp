#include "traffic/moe_gating.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace clustersim {

ExpertPlacement place_experts_contiguous(std::uint32_t experts, std::uint32_t ep_size,
                                         std::uint32_t gpus_per_node) {
    if (experts == 0 || ep_size == 0 || gpus_per_node == 0)
        throw std::invalid_argument("placement needs experts, EP ranks and GPUs per node");
    ExpertPlacement p;
    p.ep_size = ep_size;
    p.gpus_per_node = gpus_per_node;
    p.gpu_of_expert.resize(experts);
    for (std::uint32_t e = 0; e < experts; ++e)
        p.gpu_of_expert[e] = static_cast<std::uint32_t>(std::uint64_t{e} * ep_size / experts);
    return p;
}

std::vector<std::uint32_t> ExpertPlacement::slots_per_gpu() const {
    std::vector<std::uint32_t> out(ep_size, 0);
    for (std::uint32_t g : gpu_of_expert) ++out[g];
    for (std::uint32_t g : second_gpu)
        if (g != kNone) ++out[g];
    return out;
}

ExpertPlacement place_experts_redundant(std::uint32_t experts, std::uint32_t redundant,
                                        std::uint32_t ep_size, std::uint32_t gpus_per_node,
                                        std::span<const double> weights) {
    if (redundant == 0) return place_experts_contiguous(experts, ep_size, gpus_per_node);
    if (redundant > experts || weights.size() != experts)
        throw std::invalid_argument("at most one redundant copy per expert");
    std::vector<std::uint32_t> by_weight(experts);
    std::iota(by_weight.begin(), by_weight.end(), 0u);
    std::stable_sort(by_weight.begin(), by_weight.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return weights[a] > weights[b]; });
    // Slots: copy i sits at slot floor((i + 1/2) x slots / redundant), primaries fill the rest
    // in order; slot s is on GPU floor(s x ep / slots).
    const std::uint32_t slots = experts + redundant;
    std::vector<std::uint32_t> content(slots, kNone);
    std::vector<char> is_copy(slots, 0);
    for (std::uint32_t i = 0; i < redundant; ++i) {
        const auto s = static_cast<std::uint32_t>((2ull * i + 1) * slots / (2ull * redundant));
        content[s] = by_weight[i];
        is_copy[s] = 1;
    }
    ExpertPlacement p;
    p.ep_size = ep_size;
    p.gpus_per_node = gpus_per_node;
    p.gpu_of_expert.assign(experts, kNone);
    p.second_gpu.assign(experts, kNone);
    std::uint32_t next = 0;
    for (std::uint32_t s = 0; s < slots; ++s) {
        const auto gpu = static_cast<std::uint32_t>(std::uint64_t{s} * ep_size / slots);
        if (is_copy[s])
            p.second_gpu[content[s]] = gpu;
        else
            p.gpu_of_expert[next++] = gpu;
    }
    return p;
}

std::vector<double> expert_weights(std::uint32_t n, const GatingParams& params) {
    if (params.kind == GatingKind::Trace) {
        if (params.recorded_load.size() != n)
            throw std::invalid_argument("the recorded load does not cover every expert");
        return params.recorded_load;
    }
    // Which expert is how popular is itself drawn from the seed (a permutation of ranks), so
    // that the hot experts are not simply the first ones.
    std::vector<std::uint32_t> rank(n);
    std::iota(rank.begin(), rank.end(), 0u);
    RandomStream shuffle(params.seed, "moe-expert-ranks");
    for (std::uint32_t i = n; i > 1; --i)
        std::swap(rank[i - 1], rank[static_cast<std::uint32_t>(shuffle.below(i))]);
    std::vector<double> w(n, 1.0);
    for (std::uint32_t e = 0; e < n; ++e) {
        if (params.kind == GatingKind::Zipf)
            w[e] = 1.0 / std::pow(static_cast<double>(rank[e]) + 1.0, params.zipf_s);
        else if (params.kind == GatingKind::Hot && rank[e] < params.hot_experts)
            w[e] = params.hot_factor;
    }
    return w;
}

Gating::Gating(const MoeModel& model, const ExpertPlacement& placement, const GatingParams& params)
    : model_(model), placement_(placement), params_(params) {
    const std::uint32_t n = model.routed_experts;
    if (n == 0 || model.top_k == 0 || model.top_k > n)
        throw std::invalid_argument("gating needs 1 <= top_k <= routed experts");
    if (placement.gpu_of_expert.size() != n)
        throw std::invalid_argument("placement does not cover every routed expert");
    if (model.n_group == 0 || n % model.n_group != 0 || model.topk_group == 0 ||
        model.topk_group > model.n_group)
        throw std::invalid_argument("expert groups must divide the experts evenly");
    weights_ = expert_weights(n, params);
    log_weights_.resize(n);
    for (std::uint32_t e = 0; e < n; ++e) log_weights_[e] = std::log(weights_[e]);
    experts_on_node_.resize(placement.nodes());
    for (std::uint32_t e = 0; e < n; ++e)
        experts_on_node_[placement.node_of_expert(e)].push_back(e);
    score_.resize(n);
    order_.resize(n);
    allowed_.resize(n);
}

void Gating::select(RandomStream& rng, std::uint32_t src, std::uint64_t token,
                    std::vector<std::uint32_t>& experts) {
    experts.clear();
    if (params_.kind == GatingKind::WorstCase) {
        select_worst_case(src, token, experts);
        return;
    }
    const std::uint32_t n = model_.routed_experts;
    for (std::uint32_t e = 0; e < n; ++e) {
        // Gumbel-max: log w + G, G = -log(-log U); U in (0, 1).
        const double u = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
        score_[e] = log_weights_[e] - std::log(-std::log(u));
    }
    std::fill(allowed_.begin(), allowed_.end(), char{1});
    // Group limit: keep the topk_group groups with the best sum of their two best scores.
    if (model_.topk_group < model_.n_group) {
        const std::uint32_t size = n / model_.n_group;
        std::vector<std::pair<double, std::uint32_t>> groups(model_.n_group);
        for (std::uint32_t g = 0; g < model_.n_group; ++g) {
            double best = -INFINITY, second = -INFINITY;
            for (std::uint32_t e = g * size; e < (g + 1) * size; ++e) {
                if (score_[e] > best) {
                    second = best;
                    best = score_[e];
                } else if (score_[e] > second) {
                    second = score_[e];
                }
            }
            groups[g] = {best + (size > 1 ? second : 0.0), g};
        }
        std::partial_sort(groups.begin(), groups.begin() + model_.topk_group, groups.end(),
                          [](const auto& a, const auto& b) {
                              return a.first > b.first ||
                                     (a.first == b.first && a.second < b.second);
                          });
        std::fill(allowed_.begin(), allowed_.end(), char{0});
        for (std::uint32_t i = 0; i < model_.topk_group; ++i)
            std::fill(allowed_.begin() + groups[i].second * size,
                      allowed_.begin() + (groups[i].second + 1) * size, char{1});
    }
    // Node limit: keep the M nodes with the best sum of their top_k / M allowed scores.
    const std::uint32_t m = params_.max_nodes_per_token;
    const std::uint32_t nodes = placement_.nodes();
    if (m > 0 && m < nodes) {
        const std::uint32_t per_node = (model_.top_k + m - 1) / m;
        std::vector<std::pair<double, std::uint32_t>> node_score;
        std::vector<double> best;
        for (std::uint32_t node = 0; node < nodes; ++node) {
            best.clear();
            for (std::uint32_t e : experts_on_node_[node])
                if (allowed_[e]) best.push_back(score_[e]);
            if (best.empty()) continue;
            const std::size_t take = std::min<std::size_t>(per_node, best.size());
            std::partial_sort(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(take),
                              best.end(), std::greater<>());
            node_score.emplace_back(
                std::accumulate(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(take),
                                0.0),
                node);
        }
        const std::size_t keep = std::min<std::size_t>(m, node_score.size());
        std::partial_sort(
            node_score.begin(), node_score.begin() + static_cast<std::ptrdiff_t>(keep),
            node_score.end(), [](const auto& a, const auto& b) {
                return a.first > b.first || (a.first == b.first && a.second < b.second);
            });
        std::vector<char> node_ok(nodes, 0);
        for (std::size_t i = 0; i < keep; ++i) node_ok[node_score[i].second] = 1;
        for (std::uint32_t e = 0; e < n; ++e)
            if (!node_ok[placement_.node_of_expert(e)]) allowed_[e] = 0;
    }
    std::uint32_t count = 0;
    for (std::uint32_t e = 0; e < n; ++e)
        if (allowed_[e]) order_[count++] = e;
    const std::uint32_t k = std::min(model_.top_k, count);
    std::partial_sort(order_.begin(), order_.begin() + k, order_.begin() + count,
                      [&](std::uint32_t a, std::uint32_t b) {
                          return score_[a] > score_[b] || (score_[a] == score_[b] && a < b);
                      });
    experts.assign(order_.begin(), order_.begin() + k);
}

void Gating::select_worst_case(std::uint32_t src, std::uint64_t token,
                               std::vector<std::uint32_t>& experts) const {
    const std::uint32_t nodes = placement_.nodes();
    const std::uint32_t m = params_.max_nodes_per_token == 0 ? nodes : params_.max_nodes_per_token;
    const std::uint32_t spread = std::min({m, nodes, model_.top_k});
    const std::uint32_t own = placement_.node_of_gpu(src % placement_.ep_size);
    // Nodes other than the source's own when there are enough of them, rotating with the token
    // so that every destination node receives the same load.
    const bool remote_only = nodes > spread;
    const std::uint32_t candidates = remote_only ? nodes - 1 : nodes;
    std::vector<std::uint32_t> chosen;
    for (std::uint32_t i = 0; i < spread; ++i) {
        std::uint32_t c = static_cast<std::uint32_t>((token * spread + i) % candidates);
        std::uint32_t node = remote_only ? (own + 1 + c) % nodes : c;
        chosen.push_back(node);
    }
    // top_k experts over the chosen nodes in turn, distinct, each node's in rotation.
    for (std::uint32_t j = 0; j < model_.top_k; ++j) {
        const std::uint32_t node = chosen[j % spread];
        const auto& on = experts_on_node_[node];
        const std::uint32_t slot = static_cast<std::uint32_t>((token + j / spread) % on.size());
        experts.push_back(on[slot]);
    }
    // Distinctness holds while top_k / spread <= experts on a node; fall back to a scan if not.
    std::sort(experts.begin(), experts.end());
    if (std::adjacent_find(experts.begin(), experts.end()) != experts.end())
        throw std::invalid_argument(
            "worst-case gating needs at least top_k / nodes experts on every node");
}

}  // namespace clustersim
