#pragma once
// Where a MoE layer's routed experts live: each on an EP rank (GPU), some with a redundant
// copy. Placement decides which tokens cross the network, so it is a policy: contiguous (a group
// of experts per node, as DeepSeek-V3 is designed), round-robin, or by co-activation
// (traffic/moe_gating.hpp, which needs the gating to measure it).
#include <cstdint>
#include <span>
#include <vector>

#include "models/network/packet.hpp"
#include "sim/random.hpp"

namespace clustersim {

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
/// The general layout, as DeepSeek's decode deployment (256 routed experts + 32 redundant over
/// 144 GPUs): the `redundant` heaviest experts (by `weights`) get a second copy; the experts +
/// redundant slots are laid out evenly over the EP ranks, copies spread among them, and the
/// primaries fill the other slots in `order` (empty: expert index order, i.e. contiguous).
ExpertPlacement place_experts(std::uint32_t experts, std::uint32_t redundant, std::uint32_t ep_size,
                              std::uint32_t gpus_per_node, std::span<const double> weights,
                              std::span<const std::uint32_t> order = {});
/// The node each primary slot (in layout order) lies on, for policies that fill nodes.
std::vector<std::uint32_t> primary_slot_nodes(std::uint32_t experts, std::uint32_t redundant,
                                              std::uint32_t ep_size, std::uint32_t gpus_per_node);
/// Round-robin order: expert e on EP rank e mod ep_size (a group of experts spread over nodes).
std::vector<std::uint32_t> round_robin_order(std::uint32_t experts, std::uint32_t ep_size);

}  // namespace clustersim
