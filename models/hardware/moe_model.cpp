#include "models/hardware/moe_model.hpp"

#include <yaml-cpp/yaml.h>

#include <map>
#include <stdexcept>

#include "models/hardware/embedded_data.hpp"

namespace clustersim {
namespace {

const std::map<std::string, MoeModel>& presets() {
    static const std::map<std::string, MoeModel> models = [] {
        const std::string_view text = embedded_file("moe_models.yaml");
        if (text.empty()) throw std::logic_error("missing built-in data file moe_models.yaml");
        std::map<std::string, MoeModel> out;
        for (const auto& kv : YAML::Load(std::string(text))) {
            const auto& n = kv.second;
            MoeModel m;
            m.name = kv.first.as<std::string>();
            m.source = n["source"].as<std::string>();
            auto u = [&](const char* key) { return n[key].as<std::uint32_t>(); };
            m.hidden = u("hidden");
            m.layers = u("layers");
            m.dense_layers = u("dense_layers");
            m.routed_experts = u("routed_experts");
            m.top_k = u("top_k");
            m.shared_experts = u("shared_experts");
            m.expert_intermediate = u("expert_intermediate");
            m.dense_intermediate = u("dense_intermediate");
            m.n_group = u("n_group");
            m.topk_group = u("topk_group");
            m.attention = n["attention"].as<std::string>();
            m.heads = u("heads");
            m.kv_heads = u("kv_heads");
            m.head_dim = u("head_dim");
            m.kv_lora_rank = u("kv_lora_rank");
            m.qk_rope_head_dim = u("qk_rope_head_dim");
            m.vocab = u("vocab");
            m.mtp_modules = u("mtp_modules");
            out.emplace(m.name, m);
        }
        return out;
    }();
    return models;
}

}  // namespace

const MoeModel* find_moe_model(const std::string& name) {
    const auto& m = presets();
    auto it = m.find(name);
    return it == m.end() ? nullptr : &it->second;
}

std::vector<std::string> moe_model_names() {
    std::vector<std::string> out;
    for (const auto& [name, m] : presets()) out.push_back(name);
    return out;
}

}  // namespace clustersim
