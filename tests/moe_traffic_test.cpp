#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "support.hpp"
#include "traffic/moe_traffic.hpp"

using namespace clustersim;
using namespace clustersim::test;
using Json = nlohmann::json;

// Expert-parallel traffic from model parameters: the reference volumes of
// shared/reference/moe-inference-traffic.md and the ISCA '25 section 2.3.2 bound, and the
// invariants of gating (fan-out, node limit, reproducibility, the requested distribution).

namespace {

Json traffic(const std::string& sets) {
    const auto dir = temp_dir("moe-traffic");
    write_text(dir / "s.yaml",
               "model: {name: deepseek-v3}\nworkload: {kind: moe, phase: decode}\n");
    const auto r = run_cli("traffic " + (dir / "s.yaml").string() + " " + sets + " --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return Json::parse(r.out);
}

MoeModel deepseek() {
    MoeModel m;
    m.name = "test";
    m.hidden = 7168;
    m.layers = 61;
    m.dense_layers = 3;
    m.routed_experts = 256;
    m.top_k = 8;
    m.shared_experts = 1;
    m.n_group = 8;
    m.topk_group = 4;
    return m;
}

// P(X >= x) for a chi-square variable with `df` degrees of freedom (Wilson-Hilferty).
double chi_square_p(double x, double df) {
    const double z = (std::cbrt(x / df) - (1 - 2 / (9 * df))) / std::sqrt(2 / (9 * df));
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}

}  // namespace

TEST_CASE("traffic reproduces the vendor table's DeepSeek-V3 decode and prefill volumes",
          "[moe][traffic][system][validation]") {
    // Decode, normal mode, 4 nodes per token, 128 tokens per GPU: 128 x 7168 x 4 B = 3.5 MiB.
    const Json d = traffic(
        "--set workload.mode=normal --set workload.gating=worst-case "
        "--set workload.max_nodes_per_token=4 --set workload.tokens_per_gpu=128");
    CHECK(d["per_layer"]["dispatch_bytes_per_gpu"].get<std::uint64_t>() == 3670016);
    CHECK(d["per_layer"]["combine_bytes_per_gpu"].get<std::uint64_t>() == 2 * 3670016);
    CHECK(d["comms_per_iteration"].get<std::uint64_t>() == 116);  // 58 MoE layers x 2
    CHECK(d["iteration_bytes_per_gpu"].get<std::uint64_t>() == 1218ull * 1048576);
    // Prefill: the table's 168 MiB per dispatch is 6,144 tokens per GPU per micro-batch.
    const Json p = traffic(
        "--set workload.phase=prefill --set workload.gating=worst-case "
        "--set workload.max_nodes_per_token=4 --set workload.tokens_per_gpu=6144");
    CHECK(p["mode"] == "normal");
    CHECK(p["per_layer"]["dispatch_bytes_per_gpu"].get<std::uint64_t>() == 168ull * 1048576);
    CHECK(p["per_layer"]["combine_bytes_per_gpu"].get<std::uint64_t>() == 336ull * 1048576);
    CHECK(p["iteration_bytes_per_gpu"].get<double>() / (1ull << 30) == Approx(57.09).margin(0.005));
}

TEST_CASE("traffic's analytic keys reproduce the ISCA '25 section 2.3.2 decode bound",
          "[moe][traffic][calibration][system][validation]") {
    const std::string bound =
        "--set workload.mode=low-latency --set workload.gating=worst-case "
        "--set workload.shared_expert_remote=true --set workload.tokens_per_gpu=32 "
        "--set model.hidden=7000";
    const Json h800 = traffic(bound);
    CHECK(h800["analytic"]["alltoall_us"].get<double>() == Approx(120.96));
    CHECK(h800["analytic"]["layer_us"].get<double>() == Approx(241.92));
    CHECK(h800["analytic"]["step_ms"].get<double>() == Approx(14.76).margin(0.005));
    CHECK(h800["analytic"]["tokens_per_s"].get<double>() == Approx(67).margin(1));
    const Json nvl72 = traffic(bound + " --set cluster.node=gb200-nvl72 --set workload.ep_size=72");
    CHECK(nvl72["analytic"]["step_ms"].get<double>() == Approx(0.82).margin(0.005));
    CHECK(nvl72["analytic"]["tokens_per_s"].get<double>() == Approx(1200).epsilon(0.02));
}

TEST_CASE("the traffic matrix carries tokens x fan-out token copies in every mode and gating",
          "[moe][gating]") {
    const MoeModel m = deepseek();
    const ExpertPlacement place = place_experts_contiguous(256, 256, 8);
    for (const GatingKind kind :
         {GatingKind::Uniform, GatingKind::Zipf, GatingKind::Hot, GatingKind::WorstCase}) {
        for (const MoeMode mode : {MoeMode::LowLatency, MoeMode::Normal}) {
            GatingParams gp;
            gp.kind = kind;
            gp.hot_experts = 8;
            gp.max_nodes_per_token = 4;
            Gating gating(m, place, gp);
            MoeTrafficParams tp;
            tp.mode = mode;
            tp.tokens_per_gpu = 16;
            tp.shared_expert_remote = true;
            RandomStream rng(7, "test");
            const MoeAllToAll a = moe_all_to_all(gating, place, m, tp, rng);
            std::uint64_t copies = 0, moved = 0;
            for (auto c : a.copies) copies += c;
            for (const auto& t : a.transfers) moved += t.tokens;
            // Low-latency: one copy per (token, routed expert) plus the remote shared expert.
            // Normal: one per node reached. Copies to the sender itself never cross a link.
            const std::uint64_t expected =
                mode == MoeMode::LowLatency ? 256ull * 16 * (8 + 1) : a.node_visits;
            INFO("gating " << static_cast<int>(kind) << " mode " << static_cast<int>(mode));
            CHECK(copies == expected);
            CHECK(moved <= copies);  // copies to the sender itself are counted, not moved
        }
    }
}

TEST_CASE("node-limited routing never sends a token to more than M nodes", "[moe][gating]") {
    const MoeModel m = deepseek();
    const ExpertPlacement place = place_experts_contiguous(256, 256, 8);  // 32 nodes
    for (std::uint32_t limit : {1u, 2u, 3u, 4u}) {
        for (const GatingKind kind : {GatingKind::Uniform, GatingKind::Zipf}) {
            GatingParams gp;
            gp.kind = kind;
            gp.max_nodes_per_token = limit;
            Gating gating(m, place, gp);
            RandomStream rng(3, "test");
            std::vector<std::uint32_t> experts;
            std::uint32_t worst = 0;
            for (std::uint32_t t = 0; t < 2000; ++t) {
                gating.select(rng, t % 256, t, experts);
                REQUIRE(experts.size() == 8);
                std::set<std::uint32_t> nodes, distinct(experts.begin(), experts.end());
                CHECK(distinct.size() == 8);
                for (auto e : experts) nodes.insert(place.node_of_expert(e));
                worst = std::max<std::uint32_t>(worst, static_cast<std::uint32_t>(nodes.size()));
            }
            INFO("M = " << limit);
            CHECK(worst <= limit);
            CHECK(worst >= std::min(limit, 2u));  // the limit binds, it is not vacuous
        }
    }
}

TEST_CASE("gating is reproducible from the seed and changes with it", "[moe][gating]") {
    const MoeModel m = deepseek();
    const ExpertPlacement place = place_experts_contiguous(256, 256, 8);
    auto draw = [&](std::uint64_t seed) {
        GatingParams gp;
        gp.seed = seed;
        Gating gating(m, place, gp);
        RandomStream rng(seed, "moe-gating");
        MoeTrafficParams tp;
        tp.tokens_per_gpu = 8;
        std::vector<std::uint64_t> out;
        for (const auto& t : moe_all_to_all(gating, place, m, tp, rng).transfers) {
            out.push_back(t.src);
            out.push_back(t.dst);
            out.push_back(t.tokens);
        }
        return out;
    };
    CHECK(draw(1) == draw(1));
    CHECK(draw(1) != draw(2));
}

TEST_CASE("Zipf gating's per-expert load fits the requested distribution (chi-square p > 0.01)",
          "[moe][gating]") {
    MoeModel m = deepseek();
    m.top_k = 1;  // one expert per token: its load is exactly the weights' distribution
    m.n_group = 1;
    m.topk_group = 1;
    const ExpertPlacement place = place_experts_contiguous(256, 256, 8);
    GatingParams gp;
    gp.kind = GatingKind::Zipf;
    gp.zipf_s = 1.0;
    Gating gating(m, place, gp);
    const auto w = gating.weights();
    double total_w = 0;
    for (double x : w) total_w += x;
    const std::uint32_t tokens = 60000;  // the rarest expert still expects about 38
    std::vector<double> count(256, 0);
    RandomStream rng(11, "test");
    std::vector<std::uint32_t> experts;
    for (std::uint32_t t = 0; t < tokens; ++t) {
        gating.select(rng, t % 256, t, experts);
        count[experts[0]] += 1;
    }
    auto chi2 = [&](const std::vector<double>& expected_share) {
        double x = 0;
        for (std::size_t e = 0; e < 256; ++e) {
            const double expect = tokens * expected_share[e];
            x += (count[e] - expect) * (count[e] - expect) / expect;
        }
        return x;
    };
    std::vector<double> zipf(256), uniform(256, 1.0 / 256);
    for (std::size_t e = 0; e < 256; ++e) zipf[e] = w[e] / total_w;
    CHECK(chi_square_p(chi2(zipf), 255) > 0.01);
    // The test can fail: the same counts are nothing like uniform.
    CHECK(chi_square_p(chi2(uniform), 255) < 1e-6);
}

TEST_CASE("trace gating follows a recorded per-expert load, and a bad load file is located",
          "[moe][gating][input][system]") {
    const auto dir = temp_dir("expert-load");
    std::string csv = "expert,load\n";
    for (int e = 0; e < 256; ++e) csv += std::to_string(e) + "," + (e == 5 ? "1000" : "1") + "\n";
    write_text(dir / "load.csv", csv);
    write_text(dir / "s.yaml",
               "model: {name: deepseek-v3, top_k: 1, n_group: 1, topk_group: 1}\n"
               "workload: {kind: moe, phase: decode, gating: trace, expert_load_file: load.csv, "
               "max_nodes_per_token: 0}\n");
    auto r = run_cli("traffic " + (dir / "s.yaml").string() + " --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Json j = Json::parse(r.out);
    // Expert 5 (on GPU 5) draws 1000 / 1255 of all tokens: its NIC is the hottest by far.
    CHECK(j["matrix"]["hottest_nic"]["gpu"] == 5);
    CHECK(j["matrix"]["hottest_nic"]["share"].get<double>() > 0.35);
    write_text(dir / "load.csv", "expert,load\n0,1\n1,-3\n");
    r = run_cli("traffic " + (dir / "s.yaml").string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("load.csv:3:3: '-3' is not a load") != std::string::npos);
}

TEST_CASE("placement policies lay every expert out once over the same slots", "[moe][placement]") {
    const ExpertPlacement contiguous = place_experts_contiguous(256, 32, 8);
    const auto rr_order = round_robin_order(256, 32);
    const ExpertPlacement rr = place_experts(256, 0, 32, 8, {}, rr_order);
    for (std::uint32_t e = 0; e < 256; ++e) {
        CHECK(contiguous.gpu_of_expert[e] == e / 8);
        CHECK(rr.gpu_of_expert[e] == e % 32);  // round-robin: expert e on rank e mod 32
    }
    CHECK(rr.slots_per_gpu() == contiguous.slots_per_gpu());
    // With redundant copies: the same slots per GPU whatever the order of the primaries.
    const std::vector<double> weights(256, 1.0);
    const ExpertPlacement a = place_experts(256, 32, 144, 8, weights);
    const ExpertPlacement b = place_experts(256, 32, 144, 8, weights, round_robin_order(256, 144));
    CHECK(a.slots_per_gpu() == b.slots_per_gpu());
    for (std::uint32_t n : a.slots_per_gpu()) CHECK(n == 2);
    // A copy never shares its primary's GPU (it would balance nothing and survive nothing):
    // the even layout would put them together at 256 + 256 slots over 32 GPUs.
    for (const ExpertPlacement& p :
         {a, b, place_experts(256, 256, 32, 8, weights), place_experts(256, 128, 32, 8, weights)})
        for (std::uint32_t e = 0; e < 256; ++e) {
            INFO("expert " << e);
            CHECK(p.second_gpu[e] != p.gpu_of_expert[e]);
        }
}

TEST_CASE("placement by co-activation puts experts selected together on one node",
          "[moe][placement]") {
    // No group or node limit, so that only placement decides how many nodes a token reaches;
    // normal mode, so that cross-node bytes follow the nodes reached.
    MoeModel m = deepseek();
    m.n_group = 1;
    m.topk_group = 1;
    auto cross_node = [&](const ExpertPlacement& place, const GatingParams& gp) {
        Gating gating(m, place, gp);
        MoeTrafficParams tp;
        tp.mode = MoeMode::Normal;
        tp.tokens_per_gpu = 64;
        RandomStream rng(3, "test");
        const MoeAllToAll a = moe_all_to_all(gating, place, m, tp, rng);
        std::uint64_t rdma = 0;
        for (auto r : a.rdma_sent) rdma += r;
        return static_cast<double>(rdma);
    };
    GatingParams gp;
    gp.affinity_groups = 16;  // as many token kinds as nodes
    gp.affinity_factor = 100;
    const ExpertPlacement contiguous = place_experts_contiguous(256, 128, 8);
    const ExpertPlacement coactive = place_experts_by_coactivation(m, 0, 128, 8, gp);
    CHECK(coactive.slots_per_gpu() == contiguous.slots_per_gpu());
    // Strong co-activation: far fewer bytes cross nodes when the kinds share nodes.
    CHECK(cross_node(coactive, gp) < 0.6 * cross_node(contiguous, gp));
    // No co-activation to find: the placement changes little.
    GatingParams plain;
    const ExpertPlacement blind = place_experts_by_coactivation(m, 0, 128, 8, plain);
    CHECK(cross_node(blind, plain) == Approx(cross_node(contiguous, plain)).epsilon(0.03));
}
