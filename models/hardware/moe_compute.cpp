#include "models/hardware/moe_compute.hpp"

#include <algorithm>
#include <utility>

namespace clustersim {
namespace {

Time roofline(double bytes, double flops, double bytes_per_s, double flops_per_s) {
    const double s = std::max(bytes_per_s > 0 ? bytes / bytes_per_s : 0.0,
                              flops_per_s > 0 ? flops / flops_per_s : 0.0);
    return Time::from_ps(static_cast<std::int64_t>(s * 1e12 + 0.5));
}

// Projection parameters before the core (queries, KV latent, MLA's key absorption) and after
// it (MLA's value absorption, the output projection); together attention_params.
std::pair<double, double> projection_params(const MoeModel& m) {
    const double h = m.hidden, heads = m.heads;
    if (m.attention == "mla") {
        // DeepSeek MLA: q down/up (q_lora_rank 1536 in V2/V3), kv down (latent + rope), kv
        // up (no-rope key and value per head), output projection.
        const double q_lora = 1536, nope = 128, v = m.head_dim;
        const double latent = m.kv_lora_rank, rope = m.qk_rope_head_dim;
        return {h * q_lora + q_lora * heads * (nope + rope) + h * (latent + rope) +
                    latent * heads * nope,
                latent * heads * v + heads * v * h};
    }
    const double hd = m.head_dim;
    return {h * heads * hd + 2 * h * m.kv_heads * hd, heads * hd * h};
}

}  // namespace

Time grouped_gemm_time(const GpuThroughput& gpu, std::uint64_t groups, std::uint64_t m_total,
                       std::uint64_t n, std::uint64_t k) {
    const double g = static_cast<double>(groups), m = static_cast<double>(m_total);
    const double nn = static_cast<double>(n), kk = static_cast<double>(k);
    const double bytes = m * kk + g * kk * nn + 2 * m * nn;
    return roofline(bytes, 2 * m * nn * kk, gpu.hbm_bytes_per_s, gpu.matmul_flops_per_s);
}

double attention_params(const MoeModel& m) {
    const auto [before, after] = projection_params(m);
    return before + after;
}

double kv_bytes_per_token_layer(const MoeModel& m) {
    if (m.attention == "mla") return (m.kv_lora_rank + m.qk_rope_head_dim) * 2.0;
    return 2.0 * m.kv_heads * m.head_dim * 2.0;
}

Time attention_before_core(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens) {
    // FP8 projection GEMMs, weights streamed once (their activations are small beside them).
    const double before = projection_params(m).first;
    return roofline(before, 2.0 * before * static_cast<double>(tokens), gpu.hbm_bytes_per_s,
                    gpu.matmul_flops_per_s);
}

Time core_attention_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t kv_tokens,
                         std::uint32_t queries) {
    // Scores and values over the context: MLA attends in the latent space (latent + rope for
    // scores, latent for values), GQA per head. The KV cache of a request is read once for all
    // its queries (FlashMLA and MTP verification batch them in one pass over its cache).
    const double core_per_key = m.attention == "mla"
                                    ? 2.0 * m.heads * (2.0 * m.kv_lora_rank + m.qk_rope_head_dim)
                                    : 2.0 * m.heads * 2.0 * m.head_dim;
    const double kv = static_cast<double>(kv_tokens);
    return roofline(kv * kv_bytes_per_token_layer(m), core_per_key * kv * queries,
                    gpu.attention_hbm_bytes_per_s, gpu.attention_flops_per_s);
}

AttentionParts attention_parts(const MoeModel& m, const GpuThroughput& gpu,
                               std::span<const std::uint64_t> kv_lengths, std::uint32_t queries) {
    std::uint64_t kv_total = 0;
    for (const std::uint64_t kv : kv_lengths) kv_total += kv;
    const std::uint64_t tokens = kv_lengths.size() * std::uint64_t{queries};
    const double after = projection_params(m).second;
    AttentionParts p;
    p.before_core = attention_before_core(m, gpu, tokens);
    // The core, then the output projections as FP8 GEMMs.
    p.core_and_output = core_attention_time(m, gpu, kv_total, queries) +
                        roofline(after, 2.0 * after * static_cast<double>(tokens),
                                 gpu.hbm_bytes_per_s, gpu.matmul_flops_per_s);
    return p;
}

Time attention_time(const MoeModel& m, const GpuThroughput& gpu,
                    std::span<const std::uint64_t> kv_lengths, std::uint32_t queries) {
    const AttentionParts p = attention_parts(m, gpu, kv_lengths, queries);
    return p.before_core + p.core_and_output;
}

Time prefill_attention_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens,
                            std::uint64_t prompt_length) {
    const double t = static_cast<double>(tokens);
    const double keys = (static_cast<double>(prompt_length) + 1) / 2;
    // Scores over (no-rope + rope) key dimensions and values per head; GQA: head_dim each.
    const double qk = m.attention == "mla" ? 128.0 + m.qk_rope_head_dim : m.head_dim;
    const double core = 2.0 * m.heads * keys * (qk + m.head_dim);
    // Projections as FP8 GEMMs (weights once); the core, the new tokens' KV cache written once.
    return roofline(attention_params(m), 2.0 * attention_params(m) * t, gpu.hbm_bytes_per_s,
                    gpu.matmul_flops_per_s) +
           roofline(t * kv_bytes_per_token_layer(m), core * t, gpu.attention_hbm_bytes_per_s,
                    gpu.attention_flops_per_s);
}

// An FFN (gate and up fused, then down) of `experts` experts over `tokens` token copies, as
// two grouped GEMMs.
static Time ffn_time(const GpuThroughput& gpu, std::uint64_t experts, std::uint64_t tokens,
                     std::uint64_t hidden, std::uint64_t intermediate) {
    if (experts == 0) return Time::zero();
    return grouped_gemm_time(gpu, experts, tokens, 2 * intermediate, hidden) +
           grouped_gemm_time(gpu, experts, tokens, hidden, intermediate);
}

Time routed_expert_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t experts,
                        std::uint64_t tokens) {
    return ffn_time(gpu, experts, tokens, m.hidden, m.expert_intermediate);
}

Time shared_expert_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t own_tokens) {
    return ffn_time(gpu, m.shared_experts, own_tokens * m.shared_experts, m.hidden,
                    m.expert_intermediate);
}

Time expert_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t experts,
                 std::uint64_t tokens, std::uint64_t own_tokens) {
    return routed_expert_time(m, gpu, experts, tokens) + shared_expert_time(m, gpu, own_tokens);
}

Time dense_ffn_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens) {
    return ffn_time(gpu, 1, tokens, m.hidden, m.dense_intermediate);
}

Time embedding_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens) {
    // One BF16 row read and written per token.
    const double bytes = 2.0 * 2.0 * m.hidden * static_cast<double>(tokens);
    return roofline(bytes, 0, gpu.hbm_bytes_per_s, 0);
}

Time router_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens) {
    const double params = static_cast<double>(m.routed_experts) * m.hidden;
    return roofline(2.0 * params, 2.0 * params * static_cast<double>(tokens), gpu.hbm_bytes_per_s,
                    gpu.bf16_matmul_flops_per_s);
}

Time lm_head_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens) {
    const double params = static_cast<double>(m.vocab) * m.hidden;
    const double logits_bytes = 4.0 * m.vocab * static_cast<double>(tokens);
    return roofline(2.0 * params + logits_bytes, 2.0 * params * static_cast<double>(tokens),
                    gpu.hbm_bytes_per_s, gpu.bf16_matmul_flops_per_s);
}

Time sampling_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens) {
    return roofline(4.0 * m.vocab * static_cast<double>(tokens), 0, gpu.hbm_bytes_per_s, 0);
}

Time mtp_projection_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens) {
    return grouped_gemm_time(gpu, 1, tokens, m.hidden, 2 * std::uint64_t{m.hidden});
}

}  // namespace clustersim
