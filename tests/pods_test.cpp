#include <catch2/catch.hpp>

#include <string>

#include "support.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/settle_layers.hpp"

using namespace clustersim;
using namespace clustersim::test;

// Dual-plane and shuffle clusters larger than a pod are pods with nothing between them
// (shared/reference/moe-inference-traffic.md): each EP group and every message stays in one.

namespace {

// Two dual-plane pods of 16 NICs (two H800 nodes each): switches 0-1 are pod 0's planes,
// 2-3 pod 1's.
const std::string kPods = "topology: {kind: dual-plane, switch_radix: 16, pods: 2}\n";

std::string decode(const std::string& groups) {
    return "model: {name: deepseek-v3}\n" + kPods +
           "workload: {kind: moe, phase: decode, tokens_per_gpu: 8, simulated_layers: 1, " +
           groups + "}\n";
}

// The input error preparing the scenario's run gives: its key, then its message.
std::pair<std::string, std::string> error_of(const std::string& name, const std::string& yaml) {
    const auto dir = temp_dir("pods-" + name);
    write_text(dir / "s.yaml", yaml);
    try {
        const Scenario s = load_scenario((dir / "s.yaml").string(), {});
        (void)prepare_run(s);
    } catch (const InputError& e) {
        return {e.key(), e.what()};
    }
    return {};
}

}  // namespace

TEST_CASE("a cluster of dual-plane pods runs an EP group in each pod, no message leaving it",
          "[pods]") {
    const auto dir = temp_dir("pods-run");
    write_text(dir / "s.yaml", decode("ep_size: 16, ep_groups: 2"));
    const Scenario s = load_scenario((dir / "s.yaml").string(), {});
    PreparedRun p = prepare_run(s);
    CHECK(p.fabric.fabric.pod_nics == 16);
    CHECK(p.fabric.fabric.inventory.switches == 4);
    std::size_t between_nodes = 0;
    for (const Message& m : p.workload.messages) {
        REQUIRE(m.src / 16 == m.dst / 16);
        between_nodes += m.src / 8 != m.dst / 8;
    }
    CHECK(between_nodes > 0);  // the groups' all-to-alls do cross their pods' switches
    const RunOutcome o = execute_settled(s, p, false);
    REQUIRE(o.result.status == SimulationResult::Status::Completed);
    CHECK(o.results["topology"]["switches"] == 4);
}

TEST_CASE(
    "on dual-plane pods, an EP group across two pods, traffic between pods, a whole plane as "
    "a fault target and pods of a connected fabric are located input errors",
    "[pods]") {
    auto [key, what] = error_of("span", decode("ep_size: 32"));
    CHECK(key == "workload.ep_size");
    CHECK(what.find("EP group 0 on GPUs 0-31 spans pods 0 and 1") != std::string::npos);

    std::tie(key, what) = error_of("spread", decode("ep_size: 16, ep_groups: 2, "
                                                    "ep_placement: spread"));
    CHECK(key == "workload.ep_placement");

    // An incast into GPU 0 from every other GPU: half of them are in the other pod.
    std::tie(key, what) =
        error_of("incast", kPods + "workload: {kind: incast, message_bytes: 64KiB}\n");
    CHECK(key == "topology.pods");
    CHECK(what.find("(pod 1) to GPU 0 (pod 0) has no path") != std::string::npos);

    std::tie(key, what) =
        error_of("plane", decode("ep_size: 16, ep_groups: 2") +
                              "faults: [{kind: plane_down, target: {plane: 1}}]\n");
    CHECK(key == "faults[0].target.plane");
    CHECK(what.find("target {switch: pod x 2 + 1}") != std::string::npos);

    std::tie(key, what) =
        error_of("ft2",
                 "topology: {kind: ft2, switch_radix: 8, pods: 2}\ncluster: {node: none}\n"
                 "workload: {kind: incast, message_bytes: 64KiB}\n");
    CHECK(key == "topology.pods");

    // 48 NICs in 2 pods of 16 ports: 24 a pod.
    std::tie(key, what) = error_of("full",
                                   "topology: {kind: dual-plane, switch_radix: 16, "
                                   "pods: 2, endpoints: 48}\n"
                                   "workload: {kind: incast, message_bytes: 64KiB}\n");
    CHECK(key == "topology.endpoints");
    CHECK(what.find("or topology.pods: 3") != std::string::npos);
}

TEST_CASE("an EP group across pods is one located line and exit 2", "[pods][input][system]") {
    const auto dir = temp_dir("pods-cli");
    write_text(dir / "s.yaml", decode("ep_size: 32"));
    const auto r = run_cli("check " + (dir / "s.yaml").string());
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find((dir / "s.yaml").string() + ":") == 0);
    CHECK(r.err.find(" workload.ep_size: EP group 0") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}
