#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "models/hardware/hardware_catalog.hpp"
#include "models/hardware/moe_compute.hpp"
#include "models/hardware/node_rates.hpp"

using namespace clustersim;

// The compute model's kernels against DeepSeek's published H800 kernel tables. Rows marked
// `set` are the ones models/data/nodes.yaml's h800 efficiencies were derived from (so their
// errors only show the spread of a mean); `check` rows set nothing and carry a tolerance.
// tools/validation_table.sh turns the rows (CLUSTERSIM_KERNEL_VALIDATION_OUT) into the kernel
// table of docs/validation-moe.md.
namespace {

const char* kDeepGemm = "DeepGEMM README 55ab91f7";
const char* kFlashMla = "FlashMLA README 4edea86f";

struct KernelRow {
    const char* source;
    std::string shape, quantity;
    double published = 0, model = 0;
    bool sets = false;
    double tolerance = 0.25;
};

void record(const KernelRow& r) {
    const double error = r.model / r.published - 1;
    INFO(r.shape << " " << r.quantity << ": published " << r.published << ", model " << r.model);
    if (!r.sets) CHECK(std::abs(error) <= r.tolerance);
    if (const char* out = std::getenv("CLUSTERSIM_KERNEL_VALIDATION_OUT")) {
        std::ofstream f(out, std::ios::app);
        f << fmt::format(
            "| {} | {} | {} | {:.0f} | {:.0f} | {:+.1f} % | {} |\n", r.source, r.shape, r.quantity,
            r.published, r.model, 100 * error,
            r.sets ? "sets"
            : r.tolerance > 0.25
                ? fmt::format("checks ({:.0f} %: tiling, see above)", 100 * r.tolerance)
                : fmt::format("checks ({:.0f} %)", 100 * r.tolerance));
    }
}

GpuThroughput h800() {
    const NodePreset* n = HardwareCatalog::builtin().find_node("h800");
    REQUIRE(n);
    return gpu_throughput(*n);
}

// DeepGEMM's TFLOPS for `groups` x (m x n x k), as its test computes it from the kernel time.
double gemm_tflops(std::uint64_t groups, std::uint64_t m, std::uint64_t n, std::uint64_t k) {
    const Time t = grouped_gemm_time(h800(), groups, groups * m, n, k);
    return 2.0 * static_cast<double>(groups * m * n * k) / t.us() / 1e6;
}

}  // namespace

TEST_CASE("FP8 GEMM efficiencies against DeepGEMM's published H800 tables",
          "[validation][compute]") {
    struct Shape {
        std::uint64_t groups, m, n, k;
        double tflops;
        bool sets;
        const char* table;
    };
    // DeepGEMM README at 55ab91f7 (2025-03-25, H800 SXM5, NVCC 12.8, after its L2-flush fix).
    const Shape shapes[] = {
        // Normal GEMMs, M = 64 (memory-bound): set hbm_efficiency.
        {1, 64, 2112, 7168, 206, true, "dense"},
        {1, 64, 24576, 1536, 289, true, "dense"},
        {1, 64, 32768, 512, 219, true, "dense"},
        {1, 64, 7168, 16384, 336, true, "dense"},
        {1, 64, 4096, 7168, 287, true, "dense"},
        {1, 64, 7168, 2048, 295, true, "dense"},
        // Grouped contiguous (prefill and training experts, compute-bound): set mfu.
        {4, 8192, 4096, 7168, 1346, true, "contiguous"},
        {4, 8192, 7168, 2048, 1214, true, "contiguous"},
        {8, 4096, 4096, 7168, 1346, true, "contiguous"},
        {8, 4096, 7168, 2048, 1214, true, "contiguous"},
        // Checked only: the decode experts' masked layout and the other dense rows.
        {1, 1024, 4096, 7168, 1233, false, "masked"},
        {1, 1024, 7168, 2048, 925, false, "masked"},
        {2, 512, 4096, 7168, 1040, false, "masked"},
        {2, 512, 7168, 2048, 916, false, "masked"},
        {4, 256, 4096, 7168, 932, false, "masked"},
        {4, 256, 7168, 2048, 815, false, "masked"},
        {1, 128, 2112, 7168, 352, false, "dense"},
        {1, 128, 24576, 1536, 535, false, "dense"},
        {1, 128, 32768, 512, 358, false, "dense"},
        {1, 128, 7168, 16384, 645, false, "dense"},
        {1, 128, 4096, 7168, 533, false, "dense"},
        {1, 128, 7168, 2048, 510, false, "dense"},
        {1, 4096, 2112, 7168, 1009, false, "dense"},
        {1, 4096, 24576, 1536, 1125, false, "dense"},
        {1, 4096, 7168, 16384, 1426, false, "dense"},
        {1, 4096, 4096, 7168, 1265, false, "dense"},
        {1, 4096, 7168, 2048, 1168, false, "dense"},
    };
    for (const Shape& s : shapes) {
        KernelRow r{kDeepGemm,
                    fmt::format("{} {} x {} x {} x {}", s.table, s.groups, s.m, s.n, s.k),
                    "TFLOPS",
                    s.tflops,
                    gemm_tflops(s.groups, s.m, s.n, s.k),
                    s.sets};
        // What a roofline cannot see, held to a wider tolerance and said so in the table:
        // N = 2112 (the MLA q/kv down-projection) leaves DeepGEMM fewer output tiles than the
        // 132 SMs, and the masked K = 2048 rows (expert down-projections) run a short K loop
        // whose pipeline fill and epilogue the model does not charge.
        if (!s.sets && (s.n == 2112 || (s.k == 2048 && std::string(s.table) == "masked" &&
                                        s.groups * s.m >= 1024)))
            r.tolerance = 0.6;
        record(r);
    }
}

TEST_CASE("core attention efficiencies against FlashMLA's published H800 figures",
          "[validation][compute]") {
    MoeModel m;  // DeepSeek-V3's MLA: 128 heads, latent 512 + rope 64
    m.attention = "mla";
    m.heads = 128;
    m.kv_lora_rank = 512;
    m.qk_rope_head_dim = 64;
    const GpuThroughput g = h800();
    // FlashMLA's benchmark: batch 128, 4,096 cached tokens each; FLOPs and bytes as it counts
    // them (d = 576, dv = 512).
    const std::uint64_t kv = 128 * 4096;
    auto tflops = [&](std::uint32_t heads, std::uint32_t queries) {
        m.heads = heads;
        const double flops = 2.0 * queries * heads * (576 + 512) * static_cast<double>(kv);
        return flops / core_attention_time(m, g, kv, queries).us() / 1e6;
    };
    auto gbps = [&](std::uint32_t heads, std::uint32_t queries) {
        m.heads = heads;
        return 576.0 * 2 * static_cast<double>(kv) / core_attention_time(m, g, kv, queries).us() /
               1e3;
    };
    // Set: "up to 3000 GB/s in memory-bound configuration and 580 TFLOPS in computation-bound"
    // (h_q 16, one query: memory-bound; h_q 128, two queries: compute-bound).
    record({kFlashMla, "b 128, s_k 4096, h_q 16, s_q 1", "GB/s", 3000, gbps(16, 1), true});
    record({kFlashMla, "b 128, s_k 4096, h_q 128, s_q 2", "TFLOPS", 580, tflops(128, 2), true});
    // Checked: its deep dive (c2067be3) says the kernel is compute-bound once h_q x s_q reaches
    // about 128, so DeepSeek's decode (h_q 128, no TP) is compute-bound: the model must say so,
    // and say memory-bound at h_q x s_q = 32.
    CHECK(tflops(128, 1) == Approx(tflops(128, 2)).epsilon(1e-6));
    CHECK(tflops(32, 1) < 0.5 * tflops(128, 2));
}
