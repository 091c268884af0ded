#include "traffic/expert_placement.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace clustersim {
namespace {

// Slot layout: copy i sits at slot floor((i + 1/2) x slots / redundant), primaries fill the
// rest; slot s is on GPU floor(s x ep / slots).
std::vector<char> copy_slots(std::uint32_t slots, std::uint32_t redundant) {
    std::vector<char> is_copy(slots, 0);
    for (std::uint32_t i = 0; i < redundant; ++i)
        is_copy[static_cast<std::uint32_t>((2ull * i + 1) * slots / (2ull * redundant))] = 1;
    return is_copy;
}

std::uint32_t gpu_of_slot(std::uint32_t s, std::uint32_t slots, std::uint32_t ep_size) {
    return static_cast<std::uint32_t>(std::uint64_t{s} * ep_size / slots);
}

}  // namespace

std::vector<std::uint32_t> ExpertPlacement::slots_per_gpu() const {
    std::vector<std::uint32_t> out(ep_size, 0);
    for (std::uint32_t g : gpu_of_expert) ++out[g];
    for (std::uint32_t g : second_gpu)
        if (g != kNone) ++out[g];
    return out;
}

ExpertPlacement place_experts_contiguous(std::uint32_t experts, std::uint32_t ep_size,
                                         std::uint32_t gpus_per_node) {
    return place_experts(experts, 0, ep_size, gpus_per_node, {});
}

ExpertPlacement place_experts(std::uint32_t experts, std::uint32_t redundant, std::uint32_t ep_size,
                              std::uint32_t gpus_per_node, std::span<const double> weights,
                              std::span<const std::uint32_t> order) {
    if (experts == 0 || ep_size == 0 || gpus_per_node == 0)
        throw std::invalid_argument("placement needs experts, EP ranks and GPUs per node");
    if (redundant > experts || (redundant > 0 && weights.size() != experts))
        throw std::invalid_argument("at most one redundant copy per expert");
    if (!order.empty() && order.size() != experts)
        throw std::invalid_argument("a placement order must name every expert once");
    ExpertPlacement p;
    p.ep_size = ep_size;
    p.gpus_per_node = gpus_per_node;
    p.gpu_of_expert.assign(experts, kNone);
    const std::uint32_t slots = experts + redundant;
    const std::vector<char> is_copy = copy_slots(slots, redundant);
    std::vector<std::uint32_t> by_weight;
    if (redundant > 0) {
        p.second_gpu.assign(experts, kNone);
        by_weight.resize(experts);
        std::iota(by_weight.begin(), by_weight.end(), 0u);
        std::stable_sort(by_weight.begin(), by_weight.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return weights[a] > weights[b]; });
    }
    std::uint32_t next = 0, copy = 0;
    for (std::uint32_t s = 0; s < slots; ++s) {
        const std::uint32_t gpu = gpu_of_slot(s, slots, ep_size);
        if (is_copy[s]) {
            p.second_gpu[by_weight[copy++]] = gpu;
        } else {
            const std::uint32_t e = order.empty() ? next : order[next];
            if (e >= experts || p.gpu_of_expert[e] != kNone)
                throw std::invalid_argument("a placement order must name every expert once");
            p.gpu_of_expert[e] = gpu;
            ++next;
        }
    }
    // A copy on its primary's GPU shares no load and survives nothing: trade it with the
    // next copy (in weight order) that can move there, as EPLB never replicates an expert
    // onto the GPU that holds it.
    for (std::uint32_t i = 0; i < copy; ++i) {
        const std::uint32_t e = by_weight[i];
        if (p.second_gpu[e] != p.gpu_of_expert[e]) continue;
        for (std::uint32_t j = 1; j < copy; ++j) {
            const std::uint32_t f = by_weight[(i + j) % copy];
            if (p.second_gpu[f] != p.gpu_of_expert[e] && p.gpu_of_expert[f] != p.second_gpu[e]) {
                std::swap(p.second_gpu[e], p.second_gpu[f]);
                break;
            }
        }
    }
    return p;
}

std::vector<std::uint32_t> primary_slot_nodes(std::uint32_t experts, std::uint32_t redundant,
                                              std::uint32_t ep_size, std::uint32_t gpus_per_node) {
    const std::uint32_t slots = experts + redundant;
    const std::vector<char> is_copy = copy_slots(slots, redundant);
    std::vector<std::uint32_t> nodes;
    nodes.reserve(experts);
    for (std::uint32_t s = 0; s < slots; ++s)
        if (!is_copy[s]) nodes.push_back(gpu_of_slot(s, slots, ep_size) / gpus_per_node);
    return nodes;
}

std::vector<std::uint32_t> round_robin_order(std::uint32_t experts, std::uint32_t ep_size) {
    std::vector<std::uint32_t> order(experts);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return a % ep_size < b % ep_size; });
    return order;
}

}  // namespace clustersim
