#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/settle_layers.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

// An FT2 of radix 8 (32 NICs, 8 leaves, 4 spines) of bare NICs: every cross-leaf path is
// NIC - leaf - spine - leaf - NIC. switch-0 is the first leaf, switch-8 the first spine.
const char* kFabric =
    "topology: {kind: ft2, switch_radix: 8, endpoints: 32}\n"
    "cluster: {node: none}\n";

struct Outcome {
    SimulationResult result;
    Json results;
    std::vector<Channel> channels;  // the simulated graph's, as results index them
    std::vector<Message> messages;  // the workload's, as results index them
};

Outcome run_scenario(const std::string& name, const std::string& yaml,
                     const std::vector<std::string>& sets = {}) {
    const auto dir = temp_dir("faults-" + name);
    write_text(dir / "s.yaml", yaml);
    std::vector<Override> o;
    for (const auto& s : sets) o.push_back(parse_override(s));
    const Scenario s = load_scenario((dir / "s.yaml").string(), o);
    PreparedRun p = prepare_run(s);
    RunOutcome r = execute_settled(s, p, false);
    const auto ch = p.fabric.simulated().graph.channels();
    return {std::move(r.result), std::move(r.results), {ch.begin(), ch.end()}, p.workload.messages};
}

// One message from NIC 0 to NIC 16 (another leaf), written as a trace.
std::string one_message(const std::string& name, std::uint64_t bytes) {
    const auto dir = temp_dir("faults-trace-" + name);
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n0,16," + std::to_string(bytes) + ",0\n");
    return std::string(kFabric) + "workload: {kind: trace, file: " + (dir / "m.csv").string() +
           "}\n";
}

double latency_us(const Outcome& o) {
    const MessageState& m = o.result.messages.at(0);
    return (m.finished - m.started).us();
}

const char* kPermutation = "workload: {kind: permutation, message_bytes: 1MiB}\n";

// A 32-rank DeepSeek-V3 decode of two simulated layers, 32 requests per GPU, on an MPFT of
// `endpoints` GPUs (more than 32: the rest idle), with `more` added to its workload.
std::string small_decode(std::uint32_t endpoints, const std::string& more = "") {
    return "model: {name: deepseek-v3}\n"
           "topology: {kind: mpft, endpoints: " +
           std::to_string(endpoints) +
           "}\n"
           "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 32, "
           "simulated_layers: 2" +
           more + "}\n";
}

}  // namespace

TEST_CASE("link_slow of 0.5 halves the cables' rate: a message over them takes twice as long",
          "[faults]") {
    const std::string yaml = one_message("slow", 4 << 20);
    const Outcome healthy = run_scenario("slow-healthy", yaml);
    const Outcome slow = run_scenario(
        "slow", yaml,
        {"faults=[{kind: link_slow, target: {tier: leaf-spine, count: 32}, rate_factor: 0.5}]"});
    // 4 MiB at 400 Gb/s less headers is 87 us; the few hundred ns of pipeline fill do not halve.
    const double ratio = latency_us(slow) / latency_us(healthy);
    CHECK(ratio > 1.98);
    CHECK(ratio < 2.0);
    CHECK(slow.results["faults"][0]["kind"] == "link_slow");
    CHECK(slow.results["faults"][0]["packets_lost"] == 0);
}

TEST_CASE("link_latency adds its delay once per faulty cable crossed", "[faults]") {
    const std::string yaml = one_message("latency", 4096);
    const Outcome healthy = run_scenario("latency-healthy", yaml);
    const Outcome late = run_scenario(
        "latency", yaml,
        {"faults=[{kind: link_latency, target: {tier: leaf-spine, count: 32}, add_ns: 1000}]"});
    // Up to a spine and down again: two leaf-spine cables, 1 us each.
    CHECK(latency_us(late) - latency_us(healthy) == Approx(2.0).margin(1e-6));
}

TEST_CASE(
    "link_down under static routing stalls its flows until the reroute, then every byte "
    "arrives on the surviving paths, each lost packet resent",
    "[faults]") {
    const std::string yaml = std::string(kFabric) + kPermutation +
                             "network: {routing: static, ack_timeout_exponent: 4}\n"
                             "faults: [{kind: link_down, target: {link: [switch-0, switch-8]}, "
                             "at_us: 5}]\n";
    const Outcome healthy = run_scenario("down-healthy", std::string(kFabric) + kPermutation);
    // network.reroute: switch (SHIELD) reacts in the link layer's 2 ms, not the subnet
    // manager's reroute_us.
    const Outcome shield = run_scenario("down-shield", yaml, {"network.reroute=switch"});
    CHECK(shield.results["faults"][0]["recovered_at_us"].get<double>() == Approx(5 + 2000));
    for (const double reroute : {100.0, 300.0}) {
        const Outcome o =
            run_scenario("down", yaml, {"network.reroute_us=" + std::to_string(reroute)});
        INFO("reroute_us " << reroute);
        REQUIRE(o.result.status == SimulationResult::Status::Completed);
        const Json& f = o.results["faults"][0];
        CHECK(f["target"] == "switch-0-switch-8");
        CHECK(f["recovered_at_us"].get<double>() == Approx(5 + reroute));
        const std::uint64_t lost = f["packets_lost"];
        CHECK(lost > 0);
        CHECK(lost == o.result.counters.packets_dropped);
        // Bytes conserved: all 32 MiB delivered once, every lost packet sent again.
        CHECK(o.result.counters.payload_delivered == 32ull << 20);
        CHECK(o.result.counters.retransmitted_packets >= lost);
        // Stalled until the tables changed: the run ends after the reroute (healthy: 44 us).
        CHECK(healthy.result.end_time.us() < 50);
        CHECK(o.result.end_time.us() > 5 + reroute);
    }
}

TEST_CASE("adaptive routing loses fewer packets to a dead cable than ECMP", "[faults]") {
    const std::string yaml = std::string(kFabric) + kPermutation +
                             "network: {reroute_us: 100, ack_timeout_exponent: 4}\n"
                             "faults: [{kind: link_down, target: {link: [switch-0, switch-8]}, "
                             "at_us: 5}]\n";
    const Outcome ecmp = run_scenario("ecmp", yaml, {"network.routing=ecmp"});
    const Outcome adaptive = run_scenario("adaptive", yaml, {"network.routing=adaptive"});
    const std::uint64_t lost_ecmp = ecmp.results["faults"][0]["packets_lost"];
    const std::uint64_t lost_adaptive = adaptive.results["faults"][0]["packets_lost"];
    // ECMP keeps hashing onto the dead member until its failover (1 ms, past the reroute);
    // the leaf's adaptive routing sees the port down at once, and only the spine's way down,
    // which has no alternative, loses packets until the reroute.
    CHECK(lost_adaptive > 0);
    CHECK(lost_adaptive * 2 < lost_ecmp);
    CHECK(adaptive.result.counters.payload_delivered == 32ull << 20);
}

TEST_CASE("faults keep determinism: same seed and faults, the same event order", "[faults]") {
    const std::string yaml = std::string(kFabric) + kPermutation +
                             "network: {routing: adaptive, reroute_us: 50, "
                             "ack_timeout_exponent: 4}\nsim: {fingerprint: true}\n"
                             "faults: [{kind: link_down, target: {tier: leaf-spine, count: 3}, "
                             "at_us: 2, until_us: 30}]\n";
    const Outcome a = run_scenario("det-a", yaml), b = run_scenario("det-b", yaml);
    REQUIRE(a.result.fingerprint.has_value());
    CHECK(a.result.fingerprint == b.result.fingerprint);
    CHECK(a.results["faults"] == b.results["faults"]);
    const Outcome other = run_scenario("det-c", yaml, {"seed=2"});  // other cables chosen
    CHECK(other.results["faults"][0]["target"] != a.results["faults"][0]["target"]);
}

TEST_CASE("a straggler GPU of the EP group slows every step, one outside it changes nothing",
          "[faults][moe]") {
    // 40 GPUs, the EP group the first 32: GPU 36 runs nothing.
    const std::string yaml = small_decode(40);
    const Outcome healthy = run_scenario("gpu-healthy", yaml);
    const Outcome ranked =
        run_scenario("gpu-rank", yaml, {"faults=[{kind: gpu_slow, target: {gpu: 5}, factor: 2}]"});
    const Outcome idle =
        run_scenario("gpu-idle", yaml, {"faults=[{kind: gpu_slow, target: {gpu: 36}, factor: 2}]"});
    const double tpot = healthy.results["decode"]["tpot_ms"];
    CHECK(ranked.results["decode"]["tpot_ms"].get<double>() > 1.1 * tpot);
    CHECK(idle.results["decode"]["tpot_ms"].get<double>() == tpot);
}

TEST_CASE("a hung GPU stalls the step by as long as it hangs", "[faults][moe]") {
    const std::string yaml = small_decode(32);
    const Outcome healthy = run_scenario("hang-healthy", yaml);
    const Outcome hung = run_scenario(
        "hang", yaml, {"faults=[{kind: gpu_hang, target: {gpu: 5}, at_us: 100, until_us: 2100}]"});
    const double delta = hung.results["decode"]["step_ms"].get<double>() -
                         healthy.results["decode"]["step_ms"].get<double>();
    CHECK(delta > 1.5);
    CHECK(delta < 2.5);
}

TEST_CASE("bad fault entries are located input errors, exit 2", "[faults][system]") {
    const auto dir = temp_dir("faults-bad");
    const struct {
        const char* faults;
        const char* where;
        const char* says;
    } cases[] = {
        {"[{kind: link_melt, target: {switch: 0}}]", "faults[0].kind", "unknown value 'link_melt'"},
        {"[{kind: switch_down, target: {switch: 99}}]", "faults[0].target.switch", "no switch 99"},
        {"[{kind: link_down, target: {link: [switch-0, switch-1]}}]", "faults[0].target.link",
         "no cable joins switch-0 and switch-1"},
        {"[{kind: link_down, target: {link: [switch-0, nic-99]}}]", "faults[0].target.link",
         "no element 'nic-99'"},
        {"[{kind: gpu_slow, target: {gpu: 1}, factor: 2, at_us: 10, until_us: 5}]",
         "faults[0].until_us", "is not after at_us"},
        {"[{kind: gpu_slow, target: {switch: 1}, factor: 2}]", "faults[0].target.switch",
         "gpu_slow does not fail a switch"},
        {"[{kind: link_slow, target: {tier: leaf-spine}}]", "faults[0]",
         "link_slow needs rate_factor"},
        {"[{kind: switch_down, target: {switch: 1}, factor: 2}]", "faults[0].factor",
         "applies to gpu_slow only"},
        {"[{kind: link_down, target: {tier: leaf-core}}]", "faults[0].target.tier",
         "no cable joins the tiers 'leaf-core'"},
        {"[{kind: link_down, target: {switch: 1, gpu: 2}}]", "faults[0].target",
         "a fault has one target"},
        {"{kind: link_down}", "faults", "expected a list of entries"},
    };
    for (const auto& c : cases) {
        write_text(dir / "s.yaml",
                   std::string(kFabric) + kPermutation + "faults: " + c.faults + "\n");
        const auto r = run_cli("run " + (dir / "s.yaml").string());
        INFO(c.faults << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find((dir / "s.yaml").string() + ":") == 0);
        CHECK(r.err.find(std::string(" ") + c.where + ": ") != std::string::npos);
        CHECK(r.err.find(c.says) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
}

TEST_CASE("a fault after the simulated window is an input error", "[faults][system]") {
    const auto dir = temp_dir("faults-late");
    write_text(dir / "s.yaml",
               std::string(kFabric) + kPermutation +
                   "faults: [{kind: switch_down, target: {switch: 8}, at_us: 5000}]\n");
    const auto r = run_cli("run " + (dir / "s.yaml").string() + " --out " + (dir / "o").string());
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("faults[0].at_us: 5000 us is after the simulated window") !=
          std::string::npos);
    CHECK(!std::filesystem::exists(dir / "o" / "results.json"));
}

TEST_CASE("link_lossy loses about its rate of the packets sent over the cable, all resent",
          "[faults]") {
    const std::string yaml = std::string(kFabric) + kPermutation +
                             "network: {ack_timeout_exponent: 4}\n"
                             "faults: [{kind: link_lossy, target: {tier: leaf-spine, count: 32}, "
                             "loss_rate: 0.02}]\n";
    const Outcome o = run_scenario("lossy", yaml);
    REQUIRE(o.result.status == SimulationResult::Status::Completed);
    // Packets put on leaf-to-spine and spine-to-leaf cables (lost ones included: each was a
    // draw), from links.csv's counts: hops over those channels plus the losses.
    const std::uint64_t lost = o.results["faults"][0]["packets_lost"];
    const std::uint64_t crossed = o.result.counters.packet_hops;  // every hop, NIC links too
    CHECK(lost > 0);
    // About 2 % of what crossed the 64 leaf-spine channels (half the hops of a cross-leaf
    // path are on them): generous binomial bounds.
    CHECK(static_cast<double>(lost) > 0.01 * 0.5 * static_cast<double>(crossed));
    CHECK(static_cast<double>(lost) < 0.03 * 0.5 * static_cast<double>(crossed));
    CHECK(o.result.counters.payload_delivered == 32ull << 20);
    CHECK(o.result.counters.retransmitted_packets >= lost);
}

TEST_CASE("link_flap takes the cable down each period, and every message still completes",
          "[faults]") {
    const std::string yaml = std::string(kFabric) + kPermutation +
                             "network: {routing: ecmp, reroute_us: 3, failover_us: 1, "
                             "ack_timeout_exponent: 3}\n"
                             "faults: [{kind: link_flap, target: {link: [switch-0, switch-8]}, "
                             "period_us: 10, down_us: 4, until_us: 40}]\n";
    const Outcome o = run_scenario("flap", yaml);
    REQUIRE(o.result.status == SimulationResult::Status::Completed);
    const Json& f = o.results["faults"][0];
    CHECK(f["packets_lost"].get<std::uint64_t>() > 0);
    // The last reroute follows the last cycle's failure (at 30 us) by reroute_us.
    CHECK(f["recovered_at_us"].get<double>() == Approx(33));
    CHECK(o.result.counters.payload_delivered == 32ull << 20);
}

TEST_CASE("nic_slow through a degraded PCIe path slows the all-to-alls of its GPU",
          "[faults][moe]") {
    const std::string yaml = small_decode(32);
    const Outcome healthy = run_scenario("pcie-healthy", yaml);
    const Outcome slow =
        run_scenario("pcie", yaml, {"faults=[{kind: nic_slow, target: {nic: 3}, pcie_lanes: 4}]"});
    CHECK(slow.results["faults"][0]["target"].get<std::string>().find("PCIe at 25 %") !=
          std::string::npos);
    CHECK(slow.results["decode"]["dispatch_us"].get<double>() >
          1.5 * healthy.results["decode"]["dispatch_us"].get<double>());
}

TEST_CASE("a lost plane or NIC fails the instance: exit 3 and one line naming the fault",
          "[faults][system]") {
    const auto dir = temp_dir("faults-fail");
    const std::string base =
        "model: {name: deepseek-v3}\n"
        "topology: {kind: mpft, endpoints: 32}\n"
        "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 8, "
        "simulated_layers: 2}\n";
    for (const auto& [fault, says] :
         {std::pair{"{kind: plane_down, target: {plane: 1}, at_us: 200}",
                    "faults[0] (plane_down at 200 us) failed the instance: plane 1"},
          std::pair{"{kind: nic_down, target: {nic: 3}, at_us: 100}",
                    "faults[0] (nic_down at 100 us) failed the instance: nic-3"}}) {
        write_text(dir / "s.yaml", base + "faults: [" + fault + "]\n");
        const auto r = run_cli("run " + (dir / "s.yaml").string() + " --quiet");
        INFO(r.err);
        CHECK(r.exit_code == 3);
        CHECK(r.err.find(says) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
    // A plane on a fabric without planes is an input error.
    write_text(dir / "s.yaml", std::string(kFabric) + kPermutation +
                                   "faults: [{kind: plane_down, target: {plane: 0}}]\n");
    const auto r = run_cli("run " + (dir / "s.yaml").string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("faults[0].target.plane: a ft2 fabric has no planes") != std::string::npos);
}

TEST_CASE("run --baseline reports the healthy run beside the faulted one, and their difference",
          "[faults][system]") {
    const auto dir = temp_dir("faults-baseline");
    write_text(dir / "s.yaml",
               "model: {name: deepseek-v3}\n"
               "topology: {kind: mpft, endpoints: 40}\n"
               "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 8, "
               "simulated_layers: 2}\n"
               "faults: [{kind: gpu_slow, target: {gpu: 5}, factor: 3}]\n");
    const auto r = run_cli("run " + (dir / "s.yaml").string() + " --baseline --json --out " +
                           (dir / "o").string() + " --report");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Json j = Json::parse(r.out);
    const double faulted = j["decode"]["tpot_ms"], healthy = j["baseline"]["decode"]["tpot_ms"];
    CHECK(faulted > healthy);
    CHECK(j["delta"]["decode"]["tpot_ms"].get<double>() == Approx(faulted - healthy));
    CHECK(j["delta"]["decode"]["tokens_per_s_per_gpu"].get<double>() < 0);
    CHECK(j["delta"]["messages"].contains("latency_p99_us"));
    const std::string html = read_text(dir / "o" / "report.html");
    CHECK(html.find("Healthy and degraded") != std::string::npos);
    CHECK(html.find("gpu_slow") != std::string::npos);
    // Nothing to compare against without faults.
    write_text(dir / "h.yaml", std::string(kFabric) + kPermutation);
    const auto none = run_cli("run " + (dir / "h.yaml").string() + " --baseline");
    CHECK(none.exit_code == 2);
    CHECK(none.err.find("--baseline: the scenario has no faults") != std::string::npos);
}

TEST_CASE(
    "gpu_down with redundant copies of its experts completes with fewer tokens, without "
    "copies it fails the instance",
    "[faults][moe][system]") {
    const std::string yaml = small_decode(32, ", redundant_experts: 256");
    const Outcome healthy = run_scenario("down-gpu-healthy", yaml);
    const Outcome lost =
        run_scenario("down-gpu", yaml, {"faults=[{kind: gpu_down, target: {gpu: 5}}]"});
    REQUIRE(lost.result.status == SimulationResult::Status::Completed);
    const Json &h = healthy.results["decode"], &l = lost.results["decode"];
    // 31 of 32 ranks hold requests: at least 1/32 fewer tokens per GPU paid for, and a step no
    // faster (the copies' GPUs serve twice the experts).
    CHECK(l["tokens_per_s_per_gpu"].get<double>() <
          h["tokens_per_s_per_gpu"].get<double>() * 31 / 32 * 1.001);
    CHECK(l["step_ms"].get<double>() >= h["step_ms"].get<double>() * 0.999);
    // Without copies (the default: none), or with on_rank_loss: fail, the instance fails.
    const auto dir = temp_dir("faults-gpu-down");
    for (const auto& [sets, says] :
         {std::pair{"--set workload.redundant_experts=0",
                    "faults[0] (gpu_down at 0 us) failed the instance: gpu-5 lost; its experts"},
          std::pair{"--set workload.on_rank_loss=fail", "(workload.on_rank_loss: fail)"},
          std::pair{"--set workload.redundant_experts=32 --set workload.on_rank_loss=redundant",
                    "have no redundant copy (workload.redundant_experts: 32)"},
          std::pair{"--set 'faults=[{kind: node_down, target: {node: 1}}]'",
                    "faults[0] (node_down at 0 us) failed the instance: node 1 (gpu-8 to gpu-15) "
                    "lost; 64 of its experts"}}) {
        write_text(dir / "s.yaml", yaml + "faults: [{kind: gpu_down, target: {gpu: 5}}]\n");
        const auto r = run_cli("run " + (dir / "s.yaml").string() + " --quiet " + sets);
        INFO(sets << "\n" << r.err);
        CHECK(r.exit_code == 3);
        CHECK(r.err.find(says) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
    // Served from copies, the loss is the steady state after it: not a moment inside the step.
    write_text(dir / "s.yaml", yaml + "faults: [{kind: gpu_down, target: {gpu: 5}, at_us: 10}]\n");
    const auto r = run_cli("run " + (dir / "s.yaml").string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("faults[0].at_us: a lost GPU served from redundant copies") !=
          std::string::npos);
}

TEST_CASE("a dual-plane NIC's bond fails over to its surviving port after its detection time",
          "[faults][moe][long]") {
    const std::string yaml =
        "model: {name: deepseek-v3}\n"
        "topology: {kind: dual-plane, endpoints: 32}\n"
        "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 32, "
        "simulated_layers: 2}\n"
        "network: {ack_timeout_exponent: 6}\n";
    const std::string cut =
        "faults=[{kind: link_down, target: {link: [nic-3, switch-0]}, at_us: 500}]";
    // With a bond that notices in 50 us, the port's connections move and the step completes;
    // the losses are what the dead port took in those 50 us.
    const Outcome quick = run_scenario("bond-quick", yaml, {cut, "network.failover_us=50"});
    REQUIRE(quick.result.status == SimulationResult::Status::Completed);
    const Json& f = quick.results["faults"][0];
    CHECK(f["recovered_at_us"].get<double>() == Approx(550));
    CHECK(f["packets_lost"].get<std::uint64_t>() > 0);
    // One that waits longer than the queue pairs' retries (7 x 262 us) loses them: the run
    // stalls with failed connections before the bond moves.
    const Outcome slow = run_scenario("bond-slow", yaml, {cut, "network.failover_us=5000"});
    CHECK(slow.result.status != SimulationResult::Status::Completed);
    CHECK(slow.result.counters.connections_failed > 0);
    // Present from the start, the bond has long moved: nothing is lost, the NIC runs on one
    // 200G port, and the step is slower than healthy.
    const Outcome healthy = run_scenario("bond-healthy", yaml);
    const Outcome steady = run_scenario(
        "bond-steady", yaml, {"faults=[{kind: link_down, target: {link: [nic-3, switch-0]}}]"});
    CHECK(steady.results["faults"][0]["packets_lost"] == 0);
    CHECK(steady.results["decode"]["step_ms"].get<double>() >
          healthy.results["decode"]["step_ms"].get<double>());
}

TEST_CASE(
    "plane_down with on_plane_loss: reroute moves the plane's bytes to the other planes "
    "through NVLink, as nics.csv shows",
    "[faults][moe][system]") {
    const auto dir = temp_dir("faults-plane-reroute");
    write_text(dir / "s.yaml",
               "model: {name: deepseek-v3}\n"
               "topology: {kind: mpft, endpoints: 32}\n"
               "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 32, "
               "simulated_layers: 2, on_plane_loss: reroute}\n"
               "faults: [{kind: plane_down, target: {plane: 1}}]\n");
    const auto r = run_cli("run " + (dir / "s.yaml").string() + " --json --baseline --out " +
                           (dir / "o").string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Json j = Json::parse(r.out);
    CHECK(j["faults"][0]["packets_lost"] == 0);  // present from the start: long rerouted
    CHECK(j["decode"]["tpot_ms"].get<double>() > j["baseline"]["decode"]["tpot_ms"].get<double>());
    // nics.csv: kind,index,node,bytes_sent,bytes_received,busy_us. Plane-1 NICs (index 1 of each
    // node) carry nothing; the network's bytes are the same, carried by the other planes.
    std::uint64_t plane1 = 0, others = 0;
    std::istringstream in(read_text(dir / "o" / "nics.csv"));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        if (line.rfind("nic,", 0) != 0) continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        const std::uint64_t bytes = std::stoull(f[3]) + std::stoull(f[4]);
        (std::stoul(f[1]) % 8 == 1 ? plane1 : others) += bytes;
    }
    CHECK(plane1 == 0);
    CHECK(others > 0);
}

TEST_CASE(
    "switch_down takes every cable of a spine: the tables route around it and it carries "
    "nothing",
    "[faults]") {
    // A spine of the radix-8 FT2 has 8 cables, one per leaf. Present from the start: the
    // subnet manager has long rerouted, so nothing is lost and every message completes over
    // the three other spines.
    const std::string yaml = std::string(kFabric) + kPermutation +
                             "network: {routing: static}\n"
                             "faults: [{kind: switch_down, target: {switch: 8}}]\n";
    const Outcome o = run_scenario("switch-down", yaml);
    REQUIRE(o.result.status == SimulationResult::Status::Completed);
    CHECK(o.results["faults"][0]["target"] == "switch-8 (8 cables)");
    CHECK(o.results["faults"][0]["packets_lost"] == 0);
    CHECK(o.result.counters.payload_delivered == 32ull << 20);
    // The spine's channels (both ways) carry no byte; the other spines carry the traffic.
    std::uint64_t dead = 0, spines = 0;
    for (std::size_t c = 0; c < o.channels.size(); ++c) {
        const Channel& ch = o.channels[c];
        const bool touches = (ch.from.kind == NodeKind::Switch && ch.from.index == 8) ||
                             (ch.to.kind == NodeKind::Switch && ch.to.index == 8);
        const bool spine = (ch.from.kind == NodeKind::Switch && ch.from.index >= 8) ||
                           (ch.to.kind == NodeKind::Switch && ch.to.index >= 8);
        if (touches)
            dead += o.result.channels[c].bytes;
        else if (spine)
            spines += o.result.channels[c].bytes;
    }
    CHECK(dead == 0);
    CHECK(spines > 0);
}

TEST_CASE(
    "bytes_rerouted under static and ECMP routing: exactly the payload whose healthy path crossed "
    "the dead cable",
    "[faults]") {
    const std::string yaml = std::string(kFabric) + kPermutation;
    const std::string cut = "faults=[{kind: link_down, target: {link: [switch-0, switch-8]}}]";
    for (const std::string routing : {"static", "ecmp"}) {
        INFO(routing);
        const Outcome healthy = run_scenario("rr-healthy", yaml, {"network.routing=" + routing});
        const Outcome faulted = run_scenario("rr", yaml, {"network.routing=" + routing, cut});
        REQUIRE(faulted.result.status == SimulationResult::Status::Completed);
        // Wire bytes of one 1 MiB message: what NIC 0's uplink carried (it sent one, no ACKs).
        std::uint64_t message_wire = 0, cable_wire = 0;
        for (std::uint32_t c = 0; c < healthy.channels.size(); ++c) {
            const Channel& ch = healthy.channels[c];
            if (ch.from.kind == NodeKind::Endpoint && ch.from.index == 0)
                message_wire = healthy.result.channels[c].bytes;
            const bool leaf0 = ch.from.kind == NodeKind::Switch && ch.from.index == 0;
            const bool spine8 = ch.to.kind == NodeKind::Switch && ch.to.index == 8;
            const bool back = ch.from.kind == NodeKind::Switch && ch.from.index == 8 &&
                              ch.to.kind == NodeKind::Switch && ch.to.index == 0;
            if ((leaf0 && spine8) || back) cable_wire += healthy.result.channels[c].bytes;
        }
        REQUIRE(message_wire > 0);
        REQUIRE(cable_wire > 0);  // the healthy permutation used that cable
        REQUIRE(cable_wire % message_wire == 0);
        const std::uint64_t expected = cable_wire / message_wire << 20;
        CHECK(faulted.results["faults"][0]["bytes_rerouted"] == expected);
        CHECK(faulted.results["faults"][0]["packets_lost"] == 0);  // rerouted from the start
    }
}

TEST_CASE(
    "bytes_rerouted of a lost plane is every byte that entered its GPUs' nodes through another "
    "plane, and of a bond's lost port about half its NIC's",
    "[faults][moe]") {
    const Outcome plane = run_scenario("rr-plane", small_decode(32, ", on_plane_loss: reroute"),
                                       {"faults=[{kind: plane_down, target: {plane: 1}}]"});
    REQUIRE(plane.result.status == SimulationResult::Status::Completed);
    // The plane's GPUs (index 1 of each 8-GPU node) receive from other nodes through the NIC
    // of another plane.
    std::uint64_t into_plane = 0;
    for (const Message& m : plane.messages)
        if (m.dst % 8 == 1 && m.src / 8 != m.dst / 8) into_plane += m.bytes;
    REQUIRE(into_plane > 0);
    CHECK(plane.results["faults"][0]["bytes_rerouted"] == into_plane);

    const Outcome bond =
        run_scenario("rr-bond",
                     "model: {name: deepseek-v3}\n"
                     "topology: {kind: dual-plane, endpoints: 32}\n"
                     "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 32, "
                     "simulated_layers: 2}\n",
                     {"faults=[{kind: link_down, target: {link: [nic-3, switch-0]}}]"});
    REQUIRE(bond.result.status == SimulationResult::Status::Completed);
    // Flows hash over the NIC's two ports: those of its own and its peers' that hashed onto the
    // lost plane move, about half of what GPU 3 sends and receives across nodes.
    std::uint64_t through_nic = 0;
    for (const Message& m : bond.messages)
        if ((m.src == 3 || m.dst == 3) && m.src / 8 != m.dst / 8) through_nic += m.bytes;
    const auto moved = bond.results["faults"][0]["bytes_rerouted"].get<double>();
    CHECK(moved > 0.4 * static_cast<double>(through_nic));
    CHECK(moved < 0.6 * static_cast<double>(through_nic));
}

TEST_CASE(
    "a fault inside the window reports the step that contains its transient and the degraded "
    "steady state after it, and the timeline shows the stalled layer",
    "[faults][moe][long]") {
    const std::string yaml = small_decode(32);
    const Outcome healthy = run_scenario("transient-healthy", yaml);
    const double healthy_tpot = healthy.results["decode"]["tpot_ms"];
    // A 1 ms hang in the second (last) simulated layer, over inside the window: its steady state
    // is the healthy fabric, and the layers after the simulated ones run at the healthy pace,
    // not at the stalled layer's.
    const Json& h = healthy.results["decode"]["timeline"];
    REQUIRE(h.size() >= 2);
    const double at = h[0]["end_us"].get<double>() + 20;
    const Outcome hung =
        run_scenario("transient-hang", yaml,
                     {"faults=[{kind: gpu_hang, target: {gpu: 5}, at_us: " + std::to_string(at) +
                      ", until_us: " + std::to_string(at + 1000) + "}]"});
    const Json& d = hung.results["decode"];
    REQUIRE(d.contains("degraded_steady_state"));
    CHECK(d["degraded_steady_state"]["faults"] == 0);
    CHECK(d["degraded_steady_state"]["tpot_ms"].get<double>() == healthy_tpot);
    CHECK(d["layer_us"].get<double>() == healthy.results["decode"]["layer_us"].get<double>());
    // The step that contains it: longer by about the hang, not by the hang once per layer.
    const double delta =
        d["step_ms"].get<double>() - healthy.results["decode"]["step_ms"].get<double>();
    CHECK(delta > 0.5);
    CHECK(delta < 1.5);
    // The timeline: the first layer as healthy, the second stalled past the hang's end.
    const Json& t = d["timeline"];
    REQUIRE(t.size() == h.size());
    CHECK(t[0]["end_us"].get<double>() == Approx(h[0]["end_us"].get<double>()).epsilon(0.05));
    CHECK(t[1]["end_us"].get<double>() > at + 1000);
    CHECK(h[1]["end_us"].get<double>() < at + 1000);

    // A straggler from 200 us on lasts past the window: its steady state is the same straggler
    // from the start, simulated as such.
    const Outcome late =
        run_scenario("transient-slow", yaml,
                     {"faults=[{kind: gpu_slow, target: {gpu: 5}, factor: 2, at_us: 200}]"});
    const Outcome from_start = run_scenario(
        "transient-slow-0", yaml, {"faults=[{kind: gpu_slow, target: {gpu: 5}, factor: 2}]"});
    const Json& ds = late.results["decode"]["degraded_steady_state"];
    CHECK(ds["faults"] == 1);
    CHECK(ds["tpot_ms"].get<double>() == from_start.results["decode"]["tpot_ms"].get<double>());
    CHECK_FALSE(from_start.results["decode"].contains("degraded_steady_state"));
    CHECK(late.results["decode"]["layer_us"].get<double>() ==
          from_start.results["decode"]["layer_us"].get<double>());
}

TEST_CASE("target.index picks one of parallel cables: that one carries nothing, its twins carry on",
          "[faults]") {
    // Two leaves of radix 8 and one spine: four parallel cables from each leaf to the spine.
    const std::string yaml =
        "topology: {kind: ft2, switch_radix: 8, endpoints: 8}\n"
        "cluster: {node: none}\n"
        "network: {routing: static}\n"
        "workload: {kind: alltoall, message_bytes: 64KiB}\n";
    auto parallel_bytes = [](const Outcome& o) {
        std::vector<std::uint64_t> up;  // switch-0 to switch-2, in channel order
        for (std::uint32_t c = 0; c < o.channels.size(); ++c)
            if (o.channels[c].from == NodeRef{NodeKind::Switch, 0} &&
                o.channels[c].to == NodeRef{NodeKind::Switch, 2})
                up.push_back(o.result.channels[c].bytes);
        return up;
    };
    const Outcome healthy = run_scenario("index-healthy", yaml);
    const auto h = parallel_bytes(healthy);
    REQUIRE(h.size() == 4);
    for (const std::uint64_t b : h) REQUIRE(b > 0);
    for (const std::uint32_t index : {0u, 2u}) {
        const Outcome o =
            run_scenario("index", yaml,
                         {"faults=[{kind: link_down, target: {link: [switch-0, switch-2], index: " +
                          std::to_string(index) + "}}]"});
        REQUIRE(o.result.status == SimulationResult::Status::Completed);
        const auto b = parallel_bytes(o);
        INFO("index " << index);
        for (std::uint32_t i = 0; i < 4; ++i) CHECK((b[i] == 0) == (i == index));
    }
}

TEST_CASE("nic_slow: rate_factor scales the NIC's cable, pcie_gen its PCIe path", "[faults]") {
    const std::string yaml = one_message("nic-slow", 4 << 20);
    const Outcome healthy = run_scenario("nic-slow-healthy", yaml);
    const Outcome half = run_scenario(
        "nic-slow-half", yaml, {"faults=[{kind: nic_slow, target: {nic: 0}, rate_factor: 0.5}]"});
    const double ratio = latency_us(half) / latency_us(healthy);
    CHECK(ratio > 1.98);
    CHECK(ratio < 2.0);
    // PCIe generations halve per step down (x16: Gen5 ~ 4x the Gen3 rate): an older
    // generation's path is slower, each below the 400G cable.
    const std::string decode = small_decode(32);
    auto dispatch = [&](const std::string& name, const std::string& fault) {
        const Outcome o = run_scenario(
            name, decode, fault.empty() ? std::vector<std::string>{} : std::vector{fault});
        return o.results["decode"]["dispatch_us"].get<double>();
    };
    const double d5 = dispatch("pcie-gen-healthy", "");
    const double d4 =
        dispatch("pcie-gen4", "faults=[{kind: nic_slow, target: {nic: 3}, pcie_gen: 4}]");
    const double d3 =
        dispatch("pcie-gen3", "faults=[{kind: nic_slow, target: {nic: 3}, pcie_gen: 3}]");
    CHECK(d4 > d5);
    CHECK(d3 > 1.2 * d4);
}

TEST_CASE("network.failover_us: ECMP keeps hashing onto a dead member until it has noticed",
          "[faults]") {
    const std::string yaml = std::string(kFabric) + kPermutation +
                             "network: {routing: ecmp, reroute_us: 1000, ack_timeout_exponent: 4}\n"
                             "faults: [{kind: link_down, target: {link: [switch-0, switch-8]}, "
                             "at_us: 5}]\n";
    const Outcome quick = run_scenario("failover-quick", yaml, {"network.failover_us=2"});
    const Outcome slow = run_scenario("failover-slow", yaml, {"network.failover_us=30"});
    REQUIRE(quick.result.status == SimulationResult::Status::Completed);
    REQUIRE(slow.result.status == SimulationResult::Status::Completed);
    const std::uint64_t lost_quick = quick.results["faults"][0]["packets_lost"];
    const std::uint64_t lost_slow = slow.results["faults"][0]["packets_lost"];
    CHECK(lost_quick > 0);
    CHECK(lost_slow > lost_quick);
    // Both before the routing protocol's reroute: the members were removed locally.
    CHECK(quick.result.end_time.us() < 1000);
}
