#pragma once
// A Mixture-of-Experts model as expert-parallel traffic and the decode compute model see it.
// Presets live in models/data/moe_models.yaml, each with the published configuration it comes
// from; scenarios override single fields (`model.hidden`, `model.top_k`, ...).
#include <cstdint>
#include <string>
#include <vector>

namespace clustersim {

struct MoeModel {
    std::string name, source;
    std::uint32_t hidden = 0;
    std::uint32_t layers = 0;
    std::uint32_t dense_layers = 0;  // leading layers with a dense FFN
    std::uint32_t routed_experts = 0;
    std::uint32_t top_k = 0;
    std::uint32_t shared_experts = 0;
    std::uint32_t expert_intermediate = 0;
    std::uint32_t dense_intermediate = 0;
    std::uint32_t n_group = 1;     // expert groups
    std::uint32_t topk_group = 1;  // groups one token may use
    std::string attention;         // mla or gqa
    std::uint32_t heads = 0, kv_heads = 0, head_dim = 0;
    std::uint32_t kv_lora_rank = 0, qk_rope_head_dim = 0;
    std::uint32_t vocab = 0;
    std::uint32_t mtp_modules = 0;

    std::uint32_t moe_layers() const { return layers - dense_layers; }
};

/// The built-in preset named `name`, or null.
const MoeModel* find_moe_model(const std::string& name);
std::vector<std::string> moe_model_names();

}  // namespace clustersim
