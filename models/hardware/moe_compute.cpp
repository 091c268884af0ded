#include "models/hardware/moe_compute.hpp"

#include <algorithm>

namespace clustersim {
namespace {

Time roofline(double bytes, double flops, double bytes_per_s, double flops_per_s) {
    const double s = std::max(bytes_per_s > 0 ? bytes / bytes_per_s : 0.0,
                              flops_per_s > 0 ? flops / flops_per_s : 0.0);
    return Time::from_ps(static_cast<std::int64_t>(s * 1e12 + 0.5));
}

}  // namespace

double attention_params(const MoeModel& m) {
    const double h = m.hidden, heads = m.heads;
    if (m.attention == "mla") {
        // DeepSeek MLA: q down/up (q_lora_rank 1536 in V2/V3), kv down (latent + rope), kv up
        // (no-rope key and value per head), output projection.
        const double q_lora = 1536, nope = 128, v = m.head_dim;
        const double latent = m.kv_lora_rank, rope = m.qk_rope_head_dim;
        return h * q_lora + q_lora * heads * (nope + rope) + h * (latent + rope) +
               latent * heads * (nope + v) + heads * v * h;
    }
    const double hd = m.head_dim;
    return h * heads * hd + 2 * h * m.kv_heads * hd + heads * hd * h;
}

double kv_bytes_per_token_layer(const MoeModel& m) {
    if (m.attention == "mla") return (m.kv_lora_rank + m.qk_rope_head_dim) * 2.0;
    return 2.0 * m.kv_heads * m.head_dim * 2.0;
}

Time attention_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens,
                    std::uint64_t kv_length) {
    const double t = static_cast<double>(tokens), kv = static_cast<double>(kv_length);
    const double bytes = attention_params(m) + t * kv * kv_bytes_per_token_layer(m);
    // Projections, then scores and values over the context: MLA attends in the latent space
    // (latent + rope for scores, latent for values), GQA per head.
    const double core = m.attention == "mla"
                            ? 2.0 * m.heads * kv * (2.0 * m.kv_lora_rank + m.qk_rope_head_dim)
                            : 2.0 * m.heads * kv * 2.0 * m.head_dim;
    const double flops = 2.0 * attention_params(m) * t + core * t;
    return roofline(bytes, flops, gpu.hbm_bytes_per_s, gpu.attention_flops_per_s);
}

Time prefill_attention_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens,
                            std::uint64_t prompt_length) {
    const double t = static_cast<double>(tokens);
    const double keys = (static_cast<double>(prompt_length) + 1) / 2;
    // Scores over (no-rope + rope) key dimensions and values per head; GQA: head_dim each.
    const double qk = m.attention == "mla" ? 128.0 + m.qk_rope_head_dim : m.head_dim;
    const double core = 2.0 * m.heads * keys * (qk + m.head_dim);
    // Weights once, the new tokens' KV cache written once.
    const double bytes = attention_params(m) + t * kv_bytes_per_token_layer(m);
    const double flops = 2.0 * attention_params(m) * t + core * t;
    return roofline(bytes, flops, gpu.hbm_bytes_per_s, gpu.attention_flops_per_s);
}

Time expert_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t experts,
                 std::uint64_t tokens, std::uint64_t own_tokens) {
    const double per_expert = 3.0 * m.hidden * m.expert_intermediate;  // gate, up, down
    const double bytes = per_expert * static_cast<double>(experts + m.shared_experts);
    const double flops =
        2.0 * per_expert *
        (static_cast<double>(tokens) + static_cast<double>(m.shared_experts * own_tokens));
    return roofline(bytes, flops, gpu.hbm_bytes_per_s, gpu.matmul_flops_per_s);
}

Time dense_ffn_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens) {
    const double params = 3.0 * m.hidden * m.dense_intermediate;
    return roofline(params, 2.0 * params * static_cast<double>(tokens), gpu.hbm_bytes_per_s,
                    gpu.matmul_flops_per_s);
}

}  // namespace clustersim
