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
#include <cstdint>
#include <span>
#include <vector>

#include "models/moe_model.hpp"
#include "models/packet.hpp"
#include "sim/random.hpp"

namespace clustersim {

enum class GatingKind : std::uint8_t { Uniform, Zipf, Hot, WorstCase, Trace };

struct ExpertPlacement {
    std::uint32_t ep_size = 0;                 // GPUs holding routed experts
    std::uint32_t gpus_per_node = 1;           // to count the nodes a token reaches
    std::vector<std::uint32_t> gpu_of_expert;  // its primary copy
    std::vector<std::uint32_t> second_gpu;     // a redundant copy, or kNone (none at all: empty)

    /// The GPU that serves expert e for one token: with a redundant copy, either, by a hash of
    /// (src, token), so the two copies share the expert's load.
    std::uint32_t gpu_for(std::uint32_t e, std::uint32_t src, std::uint64_t token) const {
        if (second_gpu.empty() || second_gpu[e] == kNone) return gpu_of_expert[e];
        return mix64(std::uint64_t{src} << 40 ^ token << 8 ^ e) & 1 ? second_gpu[e]
                                                                    : gpu_of_expert[e];
    }
    /// Expert slots per GPU (primaries and copies).
    std::vector<std::uint32_t> slots_per_gpu() const;

    std::uint32_t nodes() const { return (ep_size + gpus_per_node - 1) / gpus_per_node; }
    std::uint32_t node_of_gpu(std::uint32_t g) const { return g / gpus_per_node; }
    std::uint32_t node_of_expert(std::uint32_t e) const { return node_of_gpu(gpu_of_expert[e]); }
};

/// Contiguous placement: expert e on GPU floor(e x ep_size / experts), so that a group of
/// experts lands on one node whenever the sizes allow (DeepSeek-V3's group-per-node design).
ExpertPlacement place_experts_contiguous(std::uint32_t experts, std::uint32_t ep_size,
                                         std::uint32_t gpus_per_node);
/// Redundant placement, as DeepSeek's decode deployment (256 routed experts + 32 redundant
/// over 144 GPUs): the `redundant` heaviest experts (by `weights`) get a second copy; the
/// experts + redundant slots are laid out evenly over the EP ranks, copies spread among them.
ExpertPlacement place_experts_redundant(std::uint32_t experts, std::uint32_t redundant,
                                        std::uint32_t ep_size, std::uint32_t gpus_per_node,
                                        std::span<const double> weights);

struct GatingParams {
    GatingKind kind = GatingKind::Uniform;
    double zipf_s = 1.0;                    // Zipf exponent: weight of the r-th expert = 1 / r^s
    std::uint32_t hot_experts = 0;          // Hot: this many experts ...
    double hot_factor = 10.0;               // ... this many times likelier than the others
    std::uint32_t max_nodes_per_token = 0;  // 0: no node limit
    std::vector<double> recorded_load;      // Trace: per-expert load (traffic/expert_load.hpp)
    std::uint64_t seed = 1;
};

/// Each expert's popularity weight for a gating kind (seeded: which expert is hot is drawn).
std::vector<double> expert_weights(std::uint32_t experts, const GatingParams& params);

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
    std::vector<std::vector<std::uint32_t>> experts_on_node_;
    // Scratch, reused per token.
    std::vector<double> score_;
    std::vector<std::uint32_t> order_;
    std::vector<char> allowed_;
};

}  // namespace clustersim
