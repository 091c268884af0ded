#include <catch2/catch.hpp>

#include <algorithm>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "support.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/scenario.hpp"

using namespace clustersim;
using namespace clustersim::test;
using Json = nlohmann::json;

// A MoE decode step simulated packet by packet: what it reports, the line-rate bound every
// all-to-all must respect, skew, and the layer extrapolation against a full run.

namespace {

// DeepSeek-V3 shapes on 32 H800 GPUs (4 nodes of an MPFT), few tokens: small enough for the
// sanitizer pass.
const char* kSmall =
    "model: {name: deepseek-v3}\n"
    "topology: {kind: mpft, endpoints: 32}\n"
    "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 8, simulated_layers: 2}\n";

Json run_json(const std::string& name, const std::string& yaml, const std::string& sets = "") {
    const auto dir = temp_dir("moe-decode-" + name);
    write_text(dir / "s.yaml", yaml);
    const auto r = run_cli("run " + (dir / "s.yaml").string() + " " + sets + " --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return Json::parse(r.out);
}

}  // namespace

TEST_CASE("a moe decode run reports dispatch and combine latency, TPOT and tokens/s",
          "[moe][decode][system]") {
    const Json j = run_json("keys", kSmall);
    REQUIRE(j.contains("decode"));
    const Json& d = j["decode"];
    for (const char* k : {"tpot_ms", "tokens_per_s_per_gpu", "tokens_per_s_per_node",
                          "tokens_per_s_per_user", "dispatch_us", "combine_us", "compute_ms"})
        CHECK(d[k].get<double>() > 0);
    // Per GPU: 8 tokens x 2 micro-batches per step; per node: 8 GPUs; per user: one per step.
    const double step_s = d["tpot_ms"].get<double>() / 1000;
    CHECK(d["tokens_per_s_per_gpu"].get<double>() == Approx(16 / step_s));
    CHECK(d["tokens_per_s_per_node"].get<double>() == Approx(8 * 16 / step_s));
    CHECK(d["tokens_per_s_per_user"].get<double>() == Approx(1 / step_s));
    CHECK(d["compute_ms"].get<double>() + d["compute_slowdown_ms"].get<double>() +
              d["exposed_comm_ms"].get<double>() ==
          Approx(d["tpot_ms"].get<double>()));
    CHECK(j["load"]["nic_bytes_total"].get<std::uint64_t>() > 0);

    // Communication that cannot hide: 100 us more per inter-node message adds to the exposed
    // part and to the step, not to compute.
    const Json slow = run_json("keys-slow", kSmall, "--set network.extra_latency_us=100");
    const Json& ds = slow["decode"];
    CHECK(ds["compute_ms"].get<double>() == Approx(d["compute_ms"].get<double>()));
    CHECK(ds["exposed_comm_ms"].get<double>() > d["exposed_comm_ms"].get<double>() + 1.0);
    CHECK(ds["tpot_ms"].get<double>() > d["tpot_ms"].get<double>() + 1.0);
}

TEST_CASE(
    "multi-token prediction pays for its drafts: every layer carries them, the MTP module "
    "runs, and the step grows",
    "[moe][decode][mtp][system][long]") {
    // Issue 19's setting: EP32 on an MPFT, 32 requests per GPU, 4K context, one draft token
    // accepted 85 % of the time.
    const char* yaml =
        "model: {name: deepseek-v3}\n"
        "topology: {kind: mpft, endpoints: 32}\n"
        "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 32, kv_length: 4096}\n";
    const Json plain = run_json("mtp-0", yaml);
    const Json mtp = run_json(
        "mtp-1", yaml, "--set workload.mtp_draft_tokens=1 --set workload.mtp_acceptance=0.85");
    const Json &a = plain["decode"], &b = mtp["decode"];
    // Without drafts the step is the time per output token.
    CHECK(a["tpot_ms"].get<double>() == a["step_ms"].get<double>());
    CHECK(a["mtp_us"].get<double>() == 0);
    CHECK(a["mtp_layer_us"].get<double>() == 0);
    // With one: the step is longer (twice the tokens through every all-to-all, the MTP module
    // and its head), the time per output token is the step over 1.85 tokens.
    CHECK(b["step_ms"].get<double>() >= 1.05 * a["step_ms"].get<double>());
    CHECK(b["tpot_ms"].get<double>() == Approx(b["step_ms"].get<double>() / 1.85));
    const double gain =
        b["tokens_per_s_per_user"].get<double>() / a["tokens_per_s_per_user"].get<double>();
    CHECK(gain >= 1.2);
    CHECK(gain <= 1.85);
    CHECK(b["tokens_per_s_per_user"].get<double>() ==
          Approx(1000 / b["tpot_ms"].get<double>()).epsilon(1e-9));
    CHECK(b["dispatch_us"].get<double>() > a["dispatch_us"].get<double>());
    CHECK(b["mtp_us"].get<double>() > b["lm_head_us"].get<double>());
    CHECK(b["mtp_layer_us"].get<double>() > b["lm_head_us"].get<double>());
    // A main layer's traffic doubles exactly: 1 + 1 tokens per request, each to its top-8.
    const auto dir = temp_dir("moe-decode-mtp-traffic");
    write_text(dir / "s.yaml", yaml);
    auto dispatch_bytes = [&](const std::string& sets) {
        const auto r = run_cli("traffic " + (dir / "s.yaml").string() + " --json " + sets);
        REQUIRE(r.exit_code == 0);
        return Json::parse(r.out)["per_layer"]["dispatch_bytes_per_gpu"].get<std::uint64_t>();
    };
    CHECK(dispatch_bytes("--set workload.mtp_draft_tokens=1") == 2 * dispatch_bytes(""));
}

TEST_CASE("no simulated dispatch or combine beats its busiest node's NICs at line rate",
          "[moe][decode][bound]") {
    for (const char* mode : {"low-latency", "normal"}) {
        const auto dir = temp_dir(std::string("moe-bound-") + mode);
        write_text(dir / "s.yaml", std::string(kSmall));
        Scenario s = load_scenario(
            (dir / "s.yaml").string(),
            {Override{"workload.mode", mode}, Override{"workload.tokens_per_gpu", "16"}});
        const SimulatedFabric f = build_simulated_fabric(s, s.workload.ep_size);
        const MoeRun run = build_moe(s, f.endpoints());
        const SimulationResult r =
            simulate(f.simulated().graph, f.routes, run.workload, network_params(s, f.fabric),
                     SimulationOptions{}, f.node_layout());
        REQUIRE(r.status == SimulationResult::Status::Completed);
        // The bound from the same traffic: every byte between nodes leaves its node through
        // that node's 8 NICs and enters the other's; at 50 GB/s per NIC, the busiest node in
        // either direction needs at least this long.
        const double node_rate = 8 * 50e9;
        for (const auto& a : run.all_to_alls) {
            for (const auto& [first, last] : {std::pair{a.dispatch_first, a.dispatch_last},
                                              std::pair{a.combine_first, a.combine_last}}) {
                std::vector<double> out(4, 0), in(4, 0);
                Time start = Time::never(), end = Time::zero();
                for (std::uint32_t i = first; i < last; ++i) {
                    const Message& m = run.workload.messages[i];
                    if (m.src / 8 != m.dst / 8) {
                        out[m.src / 8] += static_cast<double>(m.bytes);
                        in[m.dst / 8] += static_cast<double>(m.bytes);
                    }
                    start = std::min(start, r.messages[i].first_sent);
                    end = std::max(end, r.messages[i].finished);
                }
                double busiest = 0;
                for (int n = 0; n < 4; ++n) busiest = std::max({busiest, out[n], in[n]});
                INFO(mode << " layer " << a.layer << " micro-batch " << a.micro_batch);
                CHECK((end - start).seconds() >= busiest / node_rate);
                CHECK(busiest > 0);
            }
        }
    }
}

TEST_CASE("Zipf-skewed gating raises the hottest node's share and the dispatch time with it",
          "[moe][decode][skew][system]") {
    const std::string yaml =
        "model: {name: deepseek-v3}\n"
        "topology: {kind: mpft, endpoints: 64}\n"
        "workload: {kind: moe, phase: decode, ep_size: 64, tokens_per_gpu: 16, "
        "simulated_layers: 1}\n";
    const Json uniform = run_json("uniform", yaml);
    const Json zipf =
        run_json("zipf", yaml, "--set workload.gating=zipf --set workload.zipf_s=1.2");
    CHECK(zipf["load"]["hottest_node_share"].get<double>() >
          1.2 * uniform["load"]["hottest_node_share"].get<double>());
    CHECK(zipf["decode"]["dispatch_us"].get<double>() >
          1.2 * uniform["decode"]["dispatch_us"].get<double>());
}

TEST_CASE("TPOT extrapolated from two simulated layers is within 10 % of a full run",
          "[moe][decode][validation][system]") {
    // Six layers, one dense: five MoE layers, simulated in full or two of them.
    const std::string yaml =
        "model: {name: deepseek-v3, layers: 6, dense_layers: 1}\n"
        "topology: {kind: mpft, endpoints: 32}\n"
        "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 8}\n";
    const Json full = run_json("full", yaml, "--set workload.simulated_layers=5");
    const Json two = run_json("two", yaml, "--set workload.simulated_layers=2");
    CHECK(two["decode"]["tpot_ms"].get<double>() ==
          Approx(full["decode"]["tpot_ms"].get<double>()).epsilon(0.10));
}

TEST_CASE("EP groups replicate the step on disjoint GPUs, packed or spread over the fabric",
          "[moe][decode][placement]") {
    for (const char* placement : {"packed", "spread"}) {
        const auto dir = temp_dir(std::string("moe-groups-") + placement);
        write_text(dir / "s.yaml", std::string(kSmall));
        const Scenario s =
            load_scenario((dir / "s.yaml").string(), {Override{"topology.endpoints", "64"},
                                                      Override{"workload.ep_groups", "2"},
                                                      Override{"workload.ep_placement", placement},
                                                      Override{"workload.simulated_layers", "1"}});
        const SimulatedFabric f = build_simulated_fabric(s, 64);
        const MoeRun run = build_moe(s, f.endpoints());
        // Two groups of 32 ranks: every GPU computes, each group's messages stay inside it.
        for (const auto& c : run.workload.computes) CHECK(c.gpu < 64);
        std::set<std::uint32_t> gpus;
        for (const auto& c : run.workload.computes) gpus.insert(c.gpu);
        CHECK(gpus.size() == 64);
        auto group = [&](std::uint32_t gpu) {
            return std::string(placement) == "spread" ? gpu % 2 : gpu / 32;
        };
        for (const auto& m : run.workload.messages) CHECK(group(m.src) == group(m.dst));
    }
}

TEST_CASE("every GPU of an EP group maps back to its group, packed, spread or in pods",
          "[moe][placement]") {
    MoeRunSpec spec;
    spec.placement.ep_size = 4;
    spec.groups = 6;
    spec.first_gpu = 8;
    auto round_trip = [&] {
        std::set<std::uint32_t> used;
        for (std::uint32_t g = 0; g < spec.groups; ++g)
            for (std::uint32_t r = 0; r < 4; ++r) {
                const std::uint32_t gpu = group_gpu(spec, g, r);
                CHECK(gpu_group(spec, gpu) == g);
                used.insert(gpu);
            }
        // Other GPUs are in no group.
        for (std::uint32_t gpu = 0; gpu < 200; ++gpu)
            if (!used.count(gpu)) CHECK(gpu_group(spec, gpu) == spec.groups);
    };
    round_trip();
    spec.spread = true;
    round_trip();
    spec.spread = false;
    spec.groups_per_pod = 2;  // two groups (8 GPUs) at the start of each 20-GPU pod
    spec.pod_stride_gpus = 20;
    round_trip();
}

TEST_CASE(
    "each EP group's step is formed from its own traffic: a straggler slows its group's, and "
    "one group's is the run's step",
    "[moe][decode][system]") {
    const Json one = run_json("group-one", kSmall);
    REQUIRE(one["decode"]["group_step_ms"].size() == 1);
    CHECK(one["decode"]["group_step_ms"][0].get<double>() ==
          one["decode"]["step_ms"].get<double>());
    // Two groups of 32 GPUs, a GPU of the second at half speed: its group is the slow one, and
    // the run's step (the groups together) is that group's.
    const Json two = run_json(
        "group-two",
        std::string(kSmall) + "faults:\n  - {kind: gpu_slow, target: {gpu: 40}, factor: 2}\n",
        "--set topology.endpoints=64 --set workload.ep_groups=2");
    const Json& g = two["decode"]["group_step_ms"];
    REQUIRE(g.size() == 2);
    INFO(two["decode"].dump());
    CHECK(g[1].get<double>() > 1.2 * g[0].get<double>());
    CHECK(g[1].get<double>() == Approx(two["decode"]["step_ms"].get<double>()).epsilon(0.02));
}

TEST_CASE("normal-mode combine returns results over NVLink to the forwarding GPU first",
          "[moe][decode][normal]") {
    const auto dir = temp_dir("moe-normal-combine");
    write_text(dir / "s.yaml", std::string(kSmall));
    const Scenario s =
        load_scenario((dir / "s.yaml").string(), {Override{"workload.mode", "normal"},
                                                  Override{"workload.simulated_layers", "1"},
                                                  Override{"workload.micro_batches", "1"}});
    const SimulatedFabric f = build_simulated_fabric(s, 32);
    const MoeRun run = build_moe(s, f.endpoints());
    REQUIRE(run.all_to_alls.size() == 1);
    const auto& a = run.all_to_alls[0];
    const auto& msgs = run.workload.messages;
    // Every dispatch hop (NVLink forwards included) has its combine hop in reverse, with 2 B per
    // element instead of the FP8 byte plus scales: the same token copies, so the same pairs and
    // proportional bytes.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> dispatch, combine;
    for (std::uint32_t i = a.dispatch_first; i < a.dispatch_last; ++i)
        dispatch[{msgs[i].src, msgs[i].dst}] += msgs[i].bytes;
    for (std::uint32_t i = a.combine_first; i < a.combine_last; ++i)
        combine[{msgs[i].dst, msgs[i].src}] += msgs[i].bytes;
    REQUIRE(dispatch.size() == combine.size());
    // Forward, DeepEP's normal-mode records: FP8 + scales + source record + top-8 indices and
    // weights (7472 B); BF16 + source record + weights (14384 B). Backward: bare BF16.
    const std::uint64_t hidden = 7168, bf16 = 2 * hidden;
    const std::uint64_t fp8 = (hidden + hidden / 128 * 4 + 8 + 8 * 8 + 15) / 16 * 16;
    const std::uint64_t bf16_record = (bf16 + 8 + 4 * 8 + 15) / 16 * 16;
    REQUIRE(fp8 == 7472);
    REQUIRE(bf16_record == 14384);
    for (const auto& [pair, bytes] : dispatch) {
        REQUIRE(combine.count(pair));
        CHECK(combine[pair] / bf16_record == bytes / fp8);
    }
    CHECK(run.workload.messages.size() > 0);
}

TEST_CASE("SMs held by normal-mode kernels slow the compute beside them",
          "[moe][decode][normal][system]") {
    // Four layers: with two, the five-stage step sits on its compute floor, which counts the
    // tasks' nominal durations.
    const Json with =
        run_json("sms-24", kSmall, "--set workload.mode=normal --set workload.simulated_layers=4");
    const Json without = run_json("sms-0", kSmall,
                                  "--set workload.mode=normal --set workload.comm_sms=0 --set "
                                  "workload.simulated_layers=4");
    const Json ll = run_json("sms-ll", kSmall, "--set workload.comm_sms=0");
    const Json ll24 = run_json("sms-ll-24", kSmall);
    CHECK(with["decode"]["tpot_ms"].get<double>() > without["decode"]["tpot_ms"].get<double>());
    // Low-latency kernels receive through hooks, holding no SMs: the setting changes nothing.
    CHECK(ll["decode"]["tpot_ms"].get<double>() == ll24["decode"]["tpot_ms"].get<double>());
}

TEST_CASE("training runs each layer forward then backward, BF16 both ways, on the same routing",
          "[moe][training]") {
    const auto dir = temp_dir("moe-training-dag");
    write_text(dir / "s.yaml", std::string(kSmall));
    const Scenario s = load_scenario(
        (dir / "s.yaml").string(),
        {Override{"workload.phase", "training"}, Override{"workload.tokens_per_gpu", "16"}});
    const SimulatedFabric f = build_simulated_fabric(s, 32);
    const MoeRun run = build_moe(s, f.endpoints());
    REQUIRE(run.all_to_alls.size() == 2 * 2 * 2);  // 2 layers x 2 micro-batches x 2 passes
    const auto& msgs = run.workload.messages;
    const std::uint64_t hidden = 7168, bf16 = 2 * hidden;
    const std::uint64_t fp8 = (hidden + hidden / 128 * 4 + 8 + 8 * 8 + 15) / 16 * 16;
    const std::uint64_t bf16_record = (bf16 + 8 + 4 * 8 + 15) / 16 * 16;
    auto pairs = [&](std::uint32_t first, std::uint32_t last, std::uint64_t per_token) {
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> tokens;
        for (std::uint32_t i = first; i < last; ++i) {
            CHECK(msgs[i].bytes % per_token == 0);
            tokens[{msgs[i].src, msgs[i].dst}] += msgs[i].bytes / per_token;
        }
        return tokens;
    };
    for (const auto& fwd : run.all_to_alls) {
        if (fwd.backward) continue;
        const auto* bwd = &fwd;
        for (const auto& a : run.all_to_alls)
            if (a.backward && a.layer == fwd.layer && a.micro_batch == fwd.micro_batch) bwd = &a;
        REQUIRE(bwd != &fwd);
        // The backward of a layer comes after every forward all-to-all.
        CHECK(bwd->dispatch_first > run.all_to_alls[3].combine_last - 1);
        CHECK(pairs(bwd->dispatch_first, bwd->dispatch_last, bf16) ==
              pairs(fwd.dispatch_first, fwd.dispatch_last, fp8));
        CHECK(pairs(bwd->combine_first, bwd->combine_last, bf16) ==
              pairs(fwd.combine_first, fwd.combine_last, bf16_record));
    }
}

TEST_CASE("prefill and training runs report the step time and throughput",
          "[moe][training][system]") {
    const Json p = run_json("prefill", kSmall,
                            "--set workload.phase=prefill --set workload.tokens_per_gpu=64");
    REQUIRE(p.contains("prefill"));
    const Json& d = p["prefill"];
    const double step_s = d["step_ms"].get<double>() / 1000;
    CHECK(step_s > 0);
    CHECK(d["tokens_per_s_per_gpu"].get<double>() == Approx(64 * 2 / step_s));
    CHECK(d["dispatch_us"].get<double>() > 0);

    const Json t = run_json("training", kSmall,
                            "--set workload.phase=training --set workload.tokens_per_gpu=64");
    REQUIRE(t.contains("training"));
    const Json& tr = t["training"];
    CHECK(tr["forward_layer_us"].get<double>() + tr["backward_layer_us"].get<double>() ==
          Approx(tr["layer_us"].get<double>()));
    // Backward computes twice the forward and moves BF16 both ways: slower than the forward.
    CHECK(tr["backward_layer_us"].get<double>() > tr["forward_layer_us"].get<double>());
    CHECK(tr["step_ms"].get<double>() > d["step_ms"].get<double>());
}

TEST_CASE(
    "workload.issue_order: library issues each GPU's writes token by token, "
    "destination-sorted grouped by destination, the same writes either way",
    "[moe][decode]") {
    const auto dir = temp_dir("moe-issue-order");
    write_text(dir / "s.yaml", std::string(kSmall));
    auto dispatch = [&](const char* order) {
        const Scenario s =
            load_scenario((dir / "s.yaml").string(), {Override{"workload.issue_order", order},
                                                      Override{"workload.simulated_layers", "1"},
                                                      Override{"workload.micro_batches", "1"}});
        const SimulatedFabric f = build_simulated_fabric(s, 32);
        const MoeRun run = build_moe(s, f.endpoints());
        const auto& a = run.all_to_alls.at(0);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> out;  // (src, dst) in issue order
        for (std::uint32_t i = a.dispatch_first; i < a.dispatch_last; ++i)
            if (run.workload.messages[i].bytes > 4)  // writes, not the signals after them
                out.emplace_back(run.workload.messages[i].src, run.workload.messages[i].dst);
        return out;
    };
    const auto library = dispatch("library");
    const auto sorted = dispatch("destination-sorted");
    REQUIRE(library.size() == sorted.size());
    CHECK(std::is_sorted(sorted.begin(), sorted.end()));
    CHECK_FALSE(std::is_sorted(library.begin(), library.end()));
    auto as_set = library;
    std::sort(as_set.begin(), as_set.end());
    CHECK(as_set == sorted);
}

TEST_CASE("intranode_via: rdma sends same-node writes through the NIC and the first switch",
          "[moe][system]") {
    // EP16 on two H800 nodes, one micro-batch: DeepEP's first low-latency release reached its
    // own node's GPUs through the NIC; since NVLink, over NVLink. The NIC path is slower.
    const auto dir = temp_dir("moe-intranode-via");
    write_text(dir / "s.yaml",
               "model: {name: deepseek-v3}\ncluster: {node: h800}\n"
               "topology: {kind: ft2, switch_radix: 64, endpoints: 16}\n"
               "workload: {kind: moe, phase: decode, ep_size: 16, tokens_per_gpu: 128, "
               "mode: low-latency, gating: uniform, max_nodes_per_token: 0, micro_batches: 1, "
               "simulated_layers: 1}\n");
    auto dispatch = [&](const std::string& via) {
        const auto r = run_cli("run " + (dir / "s.yaml").string() +
                               " --set workload.intranode_via=" + via + " --json");
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto j = nlohmann::json::parse(r.out);
        return std::pair{j["decode"]["dispatch_us"].get<double>(),
                         j["decode"]["combine_us"].get<double>()};
    };
    const auto [nvlink_dispatch, nvlink_combine] = dispatch("nvlink");
    const auto [rdma_dispatch, rdma_combine] = dispatch("rdma");
    INFO("dispatch " << nvlink_dispatch << " / " << rdma_dispatch << " us, combine "
                     << nvlink_combine << " / " << rdma_combine << " us");
    CHECK(rdma_dispatch >= 1.1 * nvlink_dispatch);
    CHECK(rdma_combine >= 1.1 * nvlink_combine);
    // On a multi-plane fabric the own node's GPUs are on other planes: check says it cannot
    // apply there.
    const auto c = run_cli("check " + source_path("scenarios/deepseek-v3-decode.yaml") +
                           " --set workload.intranode_via=rdma");
    CHECK(c.out.find("intranode_via: rdma cannot apply on mpft") != std::string::npos);
}

TEST_CASE(
    "per-request contexts from a distribution unbalance attention, and the step waits for "
    "the slowest rank",
    "[moe][decode][contexts][system]") {
    const char* yaml =
        "model: {name: deepseek-v3}\n"
        "topology: {kind: mpft, endpoints: 32}\n"
        "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 16, "
        "simulated_layers: 4, request_balance: count,\n"
        "           kv_length: {kind: lognormal, mean: 4096, sigma: 1.0, max: 131072}}\n";
    const Json spread = run_json("contexts-lognormal", yaml);
    const Json fixed = run_json("contexts-fixed", yaml, "--set workload.kv_length=4096");
    const Json balanced = run_json("contexts-kv", yaml, "--set workload.request_balance=kv");
    const Json &s = spread["decode"], &f = fixed["decode"], &b = balanced["decode"];
    // A fixed context: every rank's attention is the same.
    CHECK(f["attention_max_us"].get<double>() == Approx(f["attention_us"].get<double>()));
    // Drawn contexts dealt out by count: the slowest rank's attention is well above the mean,
    // and every layer waits for it.
    CHECK(s["attention_max_us"].get<double>() > 1.2 * s["attention_us"].get<double>());
    CHECK(s["layer_us"].get<double>() > f["layer_us"].get<double>());
    // Balancing KV tokens as DeepSeek's load balancer does narrows the gap.
    CHECK(b["attention_max_us"].get<double>() < s["attention_max_us"].get<double>());
    CHECK(b["layer_us"].get<double>() < s["layer_us"].get<double>());
}

TEST_CASE(
    "simulated_layers: auto settles within 2 % of six simulated layers and says where it "
    "stopped",
    "[moe][decode][layers][system][long]") {
    const char* yaml =
        "model: {name: deepseek-v3}\n"
        "topology: {kind: mpft, endpoints: 64}\n"
        "workload: {kind: moe, phase: decode, ep_size: 64, tokens_per_gpu: 32}\n";
    const Json settled = run_json("layers-auto", yaml);
    const Json six = run_json("layers-6", yaml, "--set workload.simulated_layers=6");
    const Json& a = settled["decode"];
    REQUIRE(a.contains("simulated_layers_auto"));
    CHECK(a["simulated_layers"].get<std::uint32_t>() >= 4);
    CHECK(a["simulated_layers_auto"]["cap"] == 8);
    CHECK((a["simulated_layers_auto"]["settled"] == true ||
           a["simulated_layers"].get<std::uint32_t>() == 8));
    CHECK(a["tpot_ms"].get<double>() ==
          Approx(six["decode"]["tpot_ms"].get<double>()).epsilon(0.02));
    CHECK_FALSE(six["decode"].contains("simulated_layers_auto"));  // a count is taken as given
}

TEST_CASE("a context distribution is located when it is incomplete or outside decode",
          "[moe][decode][contexts][input][system]") {
    const auto dir = temp_dir("contexts-bad");
    auto err = [&](const std::string& workload) {
        write_text(dir / "s.yaml",
                   "model: {name: deepseek-v3}\ntopology: {kind: mpft, endpoints: 32}\n"
                   "workload: {kind: moe, ep_size: 32, " +
                       workload + "}\n");
        const auto r = run_cli("check " + (dir / "s.yaml").string());
        CHECK(r.exit_code == 2);
        return r.err;
    };
    CHECK(err("kv_length: {}").find("s.yaml:3:") != std::string::npos);
    CHECK(err("kv_length: {}").find("workload.kv_length: a distribution needs its kind") !=
          std::string::npos);
    CHECK(err("phase: prefill, kv_length: {kind: uniform, min: 1, max: 9}")
              .find("workload.kv_length: a distribution of contexts is decode's") !=
          std::string::npos);
    CHECK(err("kv_length: {kind: uniform, max: 9, mean: 4}")
              .find("workload.kv_length.mean: is a lognormal's") != std::string::npos);
    CHECK(err("mtp_acceptance: 0.9").find("workload.mtp_acceptance: accepts draft tokens") !=
          std::string::npos);
    CHECK(err("micro_batches: 1, schedule: five-stage")
              .find("workload.schedule: five-stage overlaps two or more micro-batches") !=
          std::string::npos);
}

TEST_CASE("workload.schedule changes how a step overlaps, not what it computes",
          "[moe][decode][schedule][system][long]") {
    const std::string sets = "--set workload.simulated_layers=4 --set workload.tokens_per_gpu=64 ";
    const Json five = run_json("schedule-5", kSmall, sets + "--set workload.schedule=five-stage");
    const Json two = run_json("schedule-2", kSmall, sets + "--set workload.schedule=two-stage");
    const Json &f = five["decode"], &t = two["decode"];
    // The same kernels (the split ones sum to the whole), ordered and cut differently.
    CHECK(f["compute_ms"].get<double>() == Approx(t["compute_ms"].get<double>()).epsilon(1e-9));
    CHECK(f["step_ms"].get<double>() != t["step_ms"].get<double>());
    CHECK(f["exposed_comm_ms"].get<double>() != t["exposed_comm_ms"].get<double>());
}
