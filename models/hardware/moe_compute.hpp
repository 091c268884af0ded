#pragma once
// The decode compute model: how long a GPU computes for one micro-batch of one layer, from the
// model's shapes and the GPU's achieved throughput (a roofline per kernel: the larger of the
// time to stream its bytes from HBM and the time to do its FLOPs, at the fractions DeepGEMM's
// and FlashMLA's published tables set in models/data/nodes.yaml). Projections and experts are
// FP8 GEMMs whose weights are read once per micro-batch however many tokens they get; core
// attention reads every request's KV cache (BF16). Weights are FP8 (1 B per parameter) but the
// embedding, LM head and router (BF16): as DeepSeek-V3's release ships them, stated in
// docs/moe-traffic.md.
#include <cstdint>
#include <span>

#include "models/hardware/moe_model.hpp"
#include "sim/time.hpp"

namespace clustersim {

struct GpuThroughput {
    double matmul_flops_per_s = 0;         // FP8 GEMMs (BF16 where the GPU has no FP8) x mfu
    double bf16_matmul_flops_per_s = 0;    // BF16 GEMMs (LM head, router) x mfu
    double hbm_bytes_per_s = 0;            // GEMM operands streamed from HBM x hbm_efficiency
    double attention_flops_per_s = 0;      // core attention (BF16) x attention_mfu
    double attention_hbm_bytes_per_s = 0;  // KV-cache reads x attention_hbm_efficiency
};

/// `groups` FP8 GEMMs of (m_total / groups) x n x k each, the DeepGEMM way: FP8 operands,
/// BF16 output, bytes m k + k n + 2 m n per group (scales ignored, as DeepGEMM's own figures
/// count), FLOPs 2 m n k; groups = 1 is a dense GEMM. The building block of the expert and
/// projection times, and what docs/validation-moe.md checks against DeepGEMM's tables.
Time grouped_gemm_time(const GpuThroughput& gpu, std::uint64_t groups, std::uint64_t m_total,
                       std::uint64_t n, std::uint64_t k);

/// Decode attention in DeepSeek's two steps: before the core (the query and KV down/up
/// projections, MLA's key absorption) and the core with its output (FlashMLA over each
/// request's KV cache, the value absorption and output projection). attention_time is their sum.
struct AttentionParts {
    Time before_core, core_and_output;
};
/// Core attention as FlashMLA runs it: `queries` per request over `kv_tokens` cached tokens in
/// all (BF16 latent cache; MLA scores over latent + rope, values over the latent).
Time core_attention_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t kv_tokens,
                         std::uint32_t queries);
/// The part before the core for `tokens` queries (weights only: the same on every rank).
Time attention_before_core(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens);
AttentionParts attention_parts(const MoeModel& m, const GpuThroughput& gpu,
                               std::span<const std::uint64_t> kv_lengths,
                               std::uint32_t queries = 1);
/// Decode attention of one GPU's requests, one entry per request with its context length, each
/// request carrying `queries` tokens (1 + MTP draft tokens, which share its KV cache).
Time attention_time(const MoeModel& m, const GpuThroughput& gpu,
                    std::span<const std::uint64_t> kv_lengths, std::uint32_t queries = 1);
/// Prefill attention of `tokens` prompt tokens from prompts of `prompt_length` tokens: causal,
/// so a token attends to (prompt_length + 1) / 2 keys on average; MLA runs unabsorbed (per-head
/// keys and values), as DeepSeek's prefill does. Compute-bound in practice.
Time prefill_attention_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens,
                            std::uint64_t prompt_length);
/// `experts` routed experts on one GPU that together receive `tokens` token copies, plus the
/// model's shared experts over `own_tokens` (expert_time: both; the others: each alone, as
/// DeepSeek's decode runs the shared expert while the dispatch is in flight).
Time expert_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t experts,
                 std::uint64_t tokens, std::uint64_t own_tokens);
Time routed_expert_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t experts,
                        std::uint64_t tokens);
Time shared_expert_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t own_tokens);
/// The dense FFN of a dense layer over `tokens`.
Time dense_ffn_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens);

/// The model's heads and the rest of a decode step's compute, each per `tokens` tokens on one
/// GPU, each GPU holding them whole (data-parallel, as DeepSeek's attention ranks do).
/// Embedding: a row gather (BF16) per token. Router: the gate GEMM (experts x hidden, BF16)
/// per layer. LM head: vocab x hidden (BF16) and the FP32 logits written. Sampling: the
/// logits read once (argmax or top-k). MTP projection: the MTP module's 2 hidden -> hidden
/// linear (FP8) over the concatenated embedding and hidden state.
Time embedding_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens);
Time router_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens);
Time lm_head_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens);
Time sampling_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens);
Time mtp_projection_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens);

/// Parameters of one layer's attention (projections), and KV-cache bytes per token per layer.
double attention_params(const MoeModel& m);
double kv_bytes_per_token_layer(const MoeModel& m);

}  // namespace clustersim
