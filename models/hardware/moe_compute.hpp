#pragma once
// The decode compute model: how long a GPU computes for one micro-batch of one layer, from the
// model's shapes and the GPU's achieved throughput (a roofline: the larger of the time to
// stream the bytes from HBM and the time to do the FLOPs). Attention reads its weights and the
// KV cache of every request (decode is memory-bound there); an expert reads its weights once per
// micro-batch however many tokens it gets, and computes 2 x 3 x hidden x intermediate FLOPs per
// token. Weights are FP8 (1 B per parameter), the KV cache BF16: assumptions, stated in
// docs/moe-traffic.md beside the GPU figures of models/data/nodes.yaml.
#include <cstdint>

#include "models/hardware/moe_model.hpp"
#include "sim/time.hpp"

namespace clustersim {

struct GpuThroughput {
    double matmul_flops_per_s = 0;     // FP8 (BF16 where the GPU has no FP8), x MFU
    double attention_flops_per_s = 0;  // BF16 x MFU
    double hbm_bytes_per_s = 0;        // x HBM efficiency
};

/// Attention of `tokens` decoding requests with `kv_length` tokens of context each.
Time attention_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens,
                    std::uint64_t kv_length);
/// Prefill attention of `tokens` prompt tokens from prompts of `prompt_length` tokens: causal,
/// so a token attends to (prompt_length + 1) / 2 keys on average; MLA runs unabsorbed (per-head
/// keys and values), as DeepSeek's prefill does. Compute-bound in practice.
Time prefill_attention_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens,
                            std::uint64_t prompt_length);
/// `experts` routed experts on one GPU that together receive `tokens` token copies, plus the
/// model's shared experts over `own_tokens`.
Time expert_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t experts,
                 std::uint64_t tokens, std::uint64_t own_tokens);
/// The dense FFN of a dense layer over `tokens`.
Time dense_ffn_time(const MoeModel& m, const GpuThroughput& gpu, std::uint64_t tokens);

/// Parameters of one layer's attention (projections), and KV-cache bytes per token per layer.
double attention_params(const MoeModel& m);
double kv_bytes_per_token_layer(const MoeModel& m);

}  // namespace clustersim
