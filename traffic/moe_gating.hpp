#pragma once
// Token-to-expert gating for expert-parallel traffic: where each token's routed experts are, so
// that dispatch and combine bytes follow from it. Experts are placed on EP ranks (GPUs); a token
// picks `top_k` distinct routed experts by seeded scores under the model's group limit (its
// experts come from `topk_group` of `n_group` groups, groups chosen by the sum of their two best
// scores, as DeepSeek-V3 does) and the deployment's node limit (at most M nodes, chosen by the
// sum of their best top_k / M scores). Scores are log-weights plus Gumbel noise, so the top k
// of them is a draw without replacement proportional to the weights: uniform, Zipf-skewed or a
// few hot experts. `worst-case` is deterministic: every token reaches top_k distinct experts on
// exactly min(M, nodes, top_k) nodes other than its own (when there are enough).
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "models/hardware/moe_model.hpp"
#include "sim/random.hpp"
#include "traffic/expert_placement.hpp"

namespace clustersim {

enum class GatingKind : std::uint8_t { Uniform, Zipf, Hot, WorstCase, Trace };
inline constexpr std::array<std::string_view, 5> kGatingNames = {"uniform", "zipf", "hot",
                                                                 "worst-case", "trace"};
inline std::string_view gating_name(GatingKind g) {
    return kGatingNames[static_cast<std::size_t>(g)];
}

struct GatingParams {
    GatingKind kind = GatingKind::Uniform;
    double zipf_s = 1.0;                    // Zipf exponent: weight of the r-th expert = 1 / r^s
    std::uint32_t hot_experts = 0;          // Hot: this many experts ...
    double hot_factor = 10.0;               // ... this many times likelier than the others
    std::uint32_t max_nodes_per_token = 0;  // 0: no node limit
    std::vector<double> recorded_load;      // Trace: per-expert load (traffic/expert_load.hpp)
    // Co-activation: each token belongs to one of `affinity_groups` latent kinds (0: none) and
    // the experts of its kind (a seeded partition of the experts, unrelated to their index) are
    // `affinity_factor` times likelier for it, so that some experts are often selected together.
    std::uint32_t affinity_groups = 0;
    double affinity_factor = 1.0;
    std::uint64_t seed = 1;
};

/// Each expert's popularity weight for a gating kind (seeded: which expert is hot is drawn).
std::vector<double> expert_weights(std::uint32_t experts, const GatingParams& params);
/// Each expert's affinity kind (empty without co-activation).
std::vector<std::uint32_t> expert_affinity(std::uint32_t experts, const GatingParams& params);

inline constexpr std::uint32_t kMaxCoactivationExperts = 4096;
/// Placement by co-activation: gates a profiling sample of tokens (the model's group limit, no
/// node limit), counts how often each pair of experts is selected together, and fills the
/// nodes one by one, each with the experts most often selected with those already there; the
/// experts then lie on the EP ranks as place_experts lays out an order.
ExpertPlacement place_experts_by_coactivation(const MoeModel& model, std::uint32_t redundant,
                                              std::uint32_t ep_size, std::uint32_t gpus_per_node,
                                              const GatingParams& params);

class Gating {
  public:
    Gating(const MoeModel& model, const ExpertPlacement& placement, const GatingParams& params);

    /// The routed experts (distinct, in score order) of token `token` of GPU `src`; the stream
    /// is the caller's, so each (layer, micro-batch) can draw its own.
    void select(RandomStream& rng, std::uint32_t src, std::uint64_t token,
                std::vector<std::uint32_t>& experts);
    /// Each expert's weight (what its expected share is proportional to before the limits).
    std::span<const double> weights() const { return weights_; }

  private:
    void select_worst_case(std::uint32_t src, std::uint64_t token,
                           std::vector<std::uint32_t>& experts) const;

    const MoeModel& model_;
    const ExpertPlacement& placement_;
    GatingParams params_;
    std::vector<double> weights_, log_weights_;
    std::vector<std::uint32_t> affinity_;  // each expert's kind (co-activation)
    double log_affinity_ = 0;
    std::vector<std::vector<std::uint32_t>> experts_on_node_;
    // Scratch, reused per token.
    std::vector<double> score_;
    std::vector<std::uint32_t> order_;
    std::vector<char> allowed_;
};

}  // namespace clustersim
