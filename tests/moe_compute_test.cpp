#include <catch2/catch.hpp>

#include <array>
#include <vector>

#include "models/hardware/moe_compute.hpp"

using namespace clustersim;

// Each kernel of the compute model against its own FLOP and byte count, worked out here from
// DeepSeek-V3's published shapes on a GPU of round rates (1 TB/s, 1 PFLOP/s FP8, 0.5 BF16), so
// that every expected time is bytes / rate or FLOPs / rate by hand.
namespace {

// DeepSeek-V3's preset: its published configuration (hidden 7,168, vocab 129,280, MLA with
// 128 heads, latent 512 + rope 64, experts of 2,048); the expected values below are written out.
MoeModel v3() {
    const MoeModel* m = find_moe_model("deepseek-v3");
    REQUIRE(m);
    return *m;
}

GpuThroughput round_gpu() {
    GpuThroughput g;
    g.matmul_flops_per_s = 1e15;
    g.bf16_matmul_flops_per_s = 0.5e15;
    g.hbm_bytes_per_s = 1e12;
    g.attention_flops_per_s = 0.25e15;
    g.attention_hbm_bytes_per_s = 2e12;
    return g;
}

double us(Time t) {
    return t.us();
}

}  // namespace

TEST_CASE("the LM head reads vocab x hidden BF16 weights and writes FP32 logits", "[compute]") {
    const MoeModel m = v3();
    const GpuThroughput g = round_gpu();
    // 64 tokens: bytes 2 x 129,280 x 7,168 + 4 x 129,280 x 64 = 1,886,453,760 -> 1,886.45 us at
    // 1 TB/s; FLOPs 2 x 926.68 M x 64 = 118.6 G -> 237 us at 0.5 PFLOP/s: memory-bound.
    CHECK(us(lm_head_time(m, g, 64)) == Approx(1886.45376).epsilon(1e-9));
    // 2,048 tokens: FLOPs 3.796 T -> 7,591.9 us beat the 2,912.6 us of bytes: compute-bound.
    CHECK(us(lm_head_time(m, g, 2048)) == Approx(2.0 * 129280 * 7168 * 2048 / 0.5e15 * 1e6));
    // Sampling reads the logits once: 4 B x 129,280 x 64.
    CHECK(us(sampling_time(m, g, 64)) == Approx(4.0 * 129280 * 64 / 1e12 * 1e6));
}

TEST_CASE("embedding, router and the MTP projection count their own bytes and FLOPs", "[compute]") {
    const MoeModel m = v3();
    const GpuThroughput g = round_gpu();
    // Embedding: a BF16 row of 7,168 read and written per token.
    CHECK(us(embedding_time(m, g, 100)) == Approx(100 * 7168 * 2 * 2 / 1e12 * 1e6));
    // Router: 256 x 7,168 BF16 weights (3.67 MB -> 3.67 us) beat 2 x 1.835 M x 64 FLOPs.
    CHECK(us(router_time(m, g, 64)) == Approx(256.0 * 7168 * 2 / 1e12 * 1e6));
    // MTP projection: 2 hidden -> hidden, FP8: 102.8 MB of weights, 64 x 14,336 in, 64 x 7,168
    // out (BF16).
    const double bytes = 64.0 * 14336 + 14336.0 * 7168 + 2.0 * 64 * 7168;
    CHECK(us(mtp_projection_time(m, g, 64)) == Approx(bytes / 1e12 * 1e6));
}

TEST_CASE("grouped GEMMs count DeepGEMM's bytes and FLOPs", "[compute]") {
    const GpuThroughput g = round_gpu();
    // 4 groups of 256 x 7,168 x 2,048: FLOPs 2 x 1,024 x 7,168 x 2,048 = 30.06 G -> 30.06 us;
    // bytes 1,024 x 2,048 + 4 x 2,048 x 7,168 + 2 x 1,024 x 7,168 = 75.5 MB -> 75.5 us.
    const double bytes = 1024.0 * 2048 + 4.0 * 2048 * 7168 + 2.0 * 1024 * 7168;
    CHECK(us(grouped_gemm_time(g, 4, 1024, 7168, 2048)) == Approx(bytes / 1e12 * 1e6));
    // 8,192 rows: compute-bound.
    CHECK(us(grouped_gemm_time(g, 4, 8192, 7168, 2048)) ==
          Approx(2.0 * 8192 * 7168 * 2048 / 1e15 * 1e6));
}

TEST_CASE("attention reads each request's KV cache once for all its queries", "[compute]") {
    const MoeModel m = v3();
    const GpuThroughput g = round_gpu();
    // Core: 1,152 B (latent 512 + rope 64, BF16) per cached token at 2 TB/s, against
    // 2 x 128 x 1,088 FLOPs per cached token per query at 0.25 PFLOP/s: 278,528 / 0.25e15 =
    // 1.114 ns vs 0.576 ns, compute-bound for one query.
    const std::uint64_t kv = 4096 * 32;
    CHECK(us(core_attention_time(m, g, kv, 1)) == Approx(278528.0 * kv / 0.25e15 * 1e6));
    CHECK(us(core_attention_time(m, g, kv, 2)) == Approx(2 * 278528.0 * kv / 0.25e15 * 1e6));
    // The same total context on more or fewer requests costs the same core; a longer context
    // costs more.
    const std::vector<std::uint64_t> even(32, 4096), skewed = [] {
        std::vector<std::uint64_t> v(32, 2048);
        v[0] = 2048 + 4096 * 16;
        return v;
    }();
    CHECK(attention_time(m, g, even, 1) == attention_time(m, g, skewed, 1));
    const std::vector<std::uint64_t> longer(32, 8192);
    CHECK(attention_time(m, g, longer, 1) > attention_time(m, g, even, 1));
    // Two parts: before the core, the query and KV projections (weights only, FP8 GEMMs), the
    // same with any context.
    const AttentionParts p = attention_parts(m, g, even, 1), q = attention_parts(m, g, longer, 1);
    CHECK(p.before_core == q.before_core);
    CHECK(p.before_core + p.core_and_output == attention_time(m, g, even, 1));
    const double before = 7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 128;
    CHECK(us(p.before_core) == Approx(before / 1e12 * 1e6));
}

TEST_CASE("experts: routed ones read their weights once, the shared one runs on its own tokens",
          "[compute]") {
    const MoeModel m = v3();
    const GpuThroughput g = round_gpu();
    // Two routed experts, 16 token copies: gate+up 2 x 7,168 x 4,096 and down 7,168 x 2,048
    // weights per expert (88.1 MB in all) plus activations; memory-bound.
    const double up = 16.0 * 7168 + 2 * 7168.0 * 4096 + 2.0 * 16 * 4096;
    const double down = 16.0 * 2048 + 2 * 2048.0 * 7168 + 2.0 * 16 * 7168;
    CHECK(us(routed_expert_time(m, g, 2, 16)) == Approx((up + down) / 1e12 * 1e6));
    CHECK(expert_time(m, g, 2, 16, 8) ==
          routed_expert_time(m, g, 2, 16) + shared_expert_time(m, g, 8));
    CHECK(shared_expert_time(m, g, 8) == routed_expert_time(m, g, 1, 8));
}
