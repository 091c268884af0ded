#include "traffic/moe_gating.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace clustersim {

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

std::vector<std::uint32_t> expert_affinity(std::uint32_t n, const GatingParams& params) {
    if (params.affinity_groups == 0) return {};
    // A seeded permutation dealt round-robin into the kinds: equal sizes, unrelated to index.
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    RandomStream shuffle(params.seed, "moe-expert-affinity");
    for (std::uint32_t i = n; i > 1; --i)
        std::swap(perm[i - 1], perm[static_cast<std::uint32_t>(shuffle.below(i))]);
    std::vector<std::uint32_t> kind(n);
    for (std::uint32_t i = 0; i < n; ++i) kind[perm[i]] = i % params.affinity_groups;
    return kind;
}

ExpertPlacement place_experts_by_coactivation(const MoeModel& model, std::uint32_t redundant,
                                              std::uint32_t ep_size, std::uint32_t gpus_per_node,
                                              const GatingParams& params) {
    const std::uint32_t n = model.routed_experts;
    if (n > kMaxCoactivationExperts)
        throw std::invalid_argument("co-activation placement counts expert pairs: at most " +
                                    std::to_string(kMaxCoactivationExperts) + " routed experts");
    // Profile: tokens gated without a node limit on a contiguous placement (which only the node
    // limit would look at), from a stream of its own.
    const ExpertPlacement flat = place_experts_contiguous(n, ep_size, gpus_per_node);
    GatingParams profile = params;
    profile.max_nodes_per_token = 0;
    Gating gating(model, flat, profile);
    RandomStream rng(params.seed, "moe-coactivation-profile");
    std::vector<std::uint32_t> together(std::size_t{n} * n, 0), load(n, 0), experts;
    const std::uint64_t tokens = std::max<std::uint64_t>(4096, std::uint64_t{n} * 64);
    for (std::uint64_t t = 0; t < tokens; ++t) {
        gating.select(rng, static_cast<std::uint32_t>(t % ep_size), t, experts);
        for (std::uint32_t a : experts) {
            ++load[a];
            for (std::uint32_t b : experts)
                if (a != b) ++together[std::size_t{a} * n + b];
        }
    }
    // Fill each node's primary slots greedily: start from the most loaded expert left, then add
    // the one selected most often with the node's experts so far (ties: the lower index).
    const std::vector<std::uint32_t> slot_node =
        primary_slot_nodes(n, redundant, ep_size, gpus_per_node);
    std::vector<std::uint32_t> capacity;
    for (std::uint32_t node : slot_node) {
        if (node >= capacity.size()) capacity.resize(node + 1, 0);
        ++capacity[node];
    }
    std::vector<char> placed(n, 0);
    std::vector<std::uint64_t> gain(n);
    std::vector<std::uint32_t> order;
    order.reserve(n);
    for (std::uint32_t node = 0; node < capacity.size(); ++node) {
        std::fill(gain.begin(), gain.end(), 0);
        for (std::uint32_t i = 0; i < capacity[node]; ++i) {
            std::uint32_t pick = kNone;
            for (std::uint32_t e = 0; e < n; ++e) {
                if (placed[e]) continue;
                if (pick == kNone || gain[e] > gain[pick] ||
                    (gain[e] == gain[pick] && i == 0 && load[e] > load[pick]))
                    pick = e;
            }
            placed[pick] = 1;
            order.push_back(pick);
            for (std::uint32_t e = 0; e < n; ++e) gain[e] += together[std::size_t{e} * n + pick];
        }
    }
    return place_experts(n, redundant, ep_size, gpus_per_node, gating.weights(), order);
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
    affinity_ = expert_affinity(n, params);
    if (!affinity_.empty()) log_affinity_ = std::log(params.affinity_factor);
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
    if (!affinity_.empty()) {  // the token's kind: its experts are affinity_factor x likelier
        const auto kind = static_cast<std::uint32_t>(rng.below(params_.affinity_groups));
        for (std::uint32_t e = 0; e < n; ++e)
            if (affinity_[e] == kind) score_[e] += log_affinity_;
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
