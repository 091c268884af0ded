#include <catch2/catch.hpp>

#include "models/network/non_binding_credits.hpp"
#include "scenario_support.hpp"

using namespace clustersim;
using namespace clustersim::test;

// Credits that cannot bind are not kept (models/network/non_binding_credits.hpp): which channels
// the proof admits, and that dropping their credits changes no result.

namespace {

struct Proof {
    Run run;
    std::vector<std::uint32_t> proved;
};

Proof prove(const std::string& name, const std::string& yaml,
            const SimulationOptions& options = {}) {
    Proof p{run_yaml(name, yaml, {}, options), {}};
    const NetworkParams params = network_params(p.run.scenario, p.run.fabric.fabric);
    p.proved = non_binding_channels(p.run.fabric.simulated().graph, *p.run.fabric.node_layout(),
                                    params, p.run.workload.messages);
    return p;
}

// Channels from a switch of role `from` to one of role `to`, ascending.
std::vector<std::uint32_t> between(const Run& r, SwitchRole from, SwitchRole to) {
    const NodeLayout& l = *r.fabric.node_layout();
    const auto channels = r.fabric.simulated().graph.channels();
    std::vector<std::uint32_t> out;
    for (std::uint32_t c = 0; c < channels.size(); ++c)
        if (channels[c].from.kind == NodeKind::Switch && channels[c].to.kind == NodeKind::Switch &&
            l.role[channels[c].from.index] == from && l.role[channels[c].to.index] == to)
            out.push_back(c);
    return out;
}

std::vector<std::uint32_t> joined(std::vector<std::uint32_t> a,
                                  const std::vector<std::uint32_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    std::sort(a.begin(), a.end());
    return a;
}

// The same scenario with every credit kept and with those that cannot bind dropped.
void check_same_results(const std::string& name, const std::string& yaml) {
    SimulationOptions kept, dropped;
    kept.keep_non_binding_credits = true;
    kept.fingerprint = dropped.fingerprint = true;
    const Proof proof = prove("nb-dropped-" + name, yaml, dropped);
    REQUIRE_FALSE(proof.proved.empty());
    const SimulationResult& b = proof.run.result;
    const SimulationResult a = run_yaml("nb-kept-" + name, yaml, {}, kept).result;
    REQUIRE(a.status == SimulationResult::Status::Completed);
    REQUIRE(b.status == SimulationResult::Status::Completed);
    CHECK(a.end_time == b.end_time);
    CHECK(a.events == b.events);
    CHECK(a.fingerprint == b.fingerprint);
    CHECK(a.counters.packet_hops == b.counters.packet_hops);
    REQUIRE(a.messages.size() == b.messages.size());
    std::size_t finish_differs = 0;
    for (std::size_t m = 0; m < a.messages.size(); ++m)
        finish_differs += a.messages[m].finished != b.messages[m].finished;
    CHECK(finish_differs == 0);
    REQUIRE(a.channels.size() == b.channels.size());
    std::size_t channel_differs = 0;
    for (std::size_t c = 0; c < a.channels.size(); ++c)
        channel_differs += a.channels[c].bytes != b.channels[c].bytes ||
                           a.channels[c].max_queue_bytes != b.channels[c].max_queue_bytes;
    CHECK(channel_differs == 0);
}

}  // namespace

TEST_CASE(
    "on H800 nodes the credits into a NIC from the fabric and into a hub from its NIC cannot "
    "bind, and those towards the fabric can",
    "[flow-control][credits]") {
    const Proof p = prove("h800",
                          "topology: {kind: mpft, endpoints: 64}\n"
                          "workload: {kind: alltoall, message_bytes: 16KiB}\n");
    const Run& r = p.run;
    const auto into_nic = between(r, SwitchRole::Fabric, SwitchRole::Nic);
    const auto into_hub = between(r, SwitchRole::Nic, SwitchRole::GpuHub);
    REQUIRE(into_nic.size() == 64);  // one NIC per GPU
    REQUIRE(into_hub.size() == 64);
    // Into the hub: the GPU drains it at 3 TB/s, far faster than PCIe and NVLink together fill
    // it. Into the NIC: PCIe at 56.7 GB/s drains one 50 GB/s port. Each loop holds well under
    // a third of the 128 KiB buffer. The ways out of the node bind: the NIC's port waits for
    // the leaf, PCIe for the port.
    CHECK(p.proved == joined(into_nic, into_hub));
}

TEST_CASE("a NIC behind PCIe slower than its port keeps the credits the fabric uses",
          "[flow-control][credits]") {
    // x8: 28.4 GB/s of PCIe behind a 50 GB/s port, so the NIC's buffer can fill.
    const Proof p = prove("x8",
                          "topology: {kind: mpft, endpoints: 64}\ncluster: {pcie_lanes: 8}\n"
                          "workload: {kind: alltoall, message_bytes: 16KiB}\n");
    CHECK(p.proved == between(p.run, SwitchRole::Nic, SwitchRole::GpuHub));
}

TEST_CASE("the worst wait at a port is its inputs' packets ahead, or none when they outrun it",
          "[flow-control][credits]") {
    // Two 400 Gb/s inputs into a switch whose third port leads out at `out_gbps`.
    auto graph = [](double out_gbps) {
        PortGraph g;
        const std::uint32_t s = g.add_switch(SwitchInfo{});
        g.set_endpoint_count(3);
        const Time d = Time::from_ns(10);
        g.add_cable({NodeKind::Endpoint, 0}, {NodeKind::Switch, s}, DataRate::from_gbps(400), d);
        g.add_cable({NodeKind::Endpoint, 1}, {NodeKind::Switch, s}, DataRate::from_gbps(400), d);
        g.add_cable({NodeKind::Switch, s}, {NodeKind::Endpoint, 2}, DataRate::from_gbps(out_gbps),
                    d);
        g.finalize();
        return g;
    };
    auto out_of_switch = [](const PortGraph& g) {
        const auto channels = g.channels();
        for (std::uint32_t c = 0; c < channels.size(); ++c)
            if (channels[c].from.kind == NodeKind::Switch &&
                channels[c].to == NodeRef{NodeKind::Endpoint, 2})
                return c;
        return kNone;
    };
    const PortGraph fast = graph(1600), equal = graph(800), slow = graph(799);
    // At 1.6 Tb/s a 4,122 B packet takes 20.61 ns: two inputs, plus one for a tie.
    CHECK(worst_wait(fast, out_of_switch(fast), 4122, 26) == Time::from_ps(3 * 20'610));
    // Exactly the inputs' sum: a port never slower per byte than its inputs still keeps up.
    CHECK(worst_wait(equal, out_of_switch(equal), 4122, 26) != Time::never());
    CHECK(worst_wait(slow, out_of_switch(slow), 4122, 26) == Time::never());
}

TEST_CASE("dropping the credits that cannot bind changes no result", "[flow-control][credits]") {
    // H800 nodes: full packets, the last short ones of each message and 64 B messages mixed,
    // through the NIC into the hub; packed MPFT (NVLink and PXN feed the same hubs).
    const auto dir = temp_dir("nb-rows");
    std::string rows = "src,dst,bytes,start_us\n";
    for (std::uint32_t s = 0; s < 32; ++s)
        for (std::uint32_t k = 1; k < 4; ++k) {
            const std::uint32_t d = (s + 8 * k + k) % 32;
            const std::uint64_t bytes = (s + k) % 3 == 0 ? 64 : 4096 * (k + 1) + 1000 * (s % 4);
            rows += std::to_string(s) + "," + std::to_string(d) + "," + std::to_string(bytes) +
                    "," + std::to_string((s * 7 + k) % 5) + "\n";
        }
    write_text(dir / "m.csv", rows);
    check_same_results("mix",
                       "topology: {kind: mpft, endpoints: 32}\n"
                       "workload: {kind: trace, file: " +
                           (dir / "m.csv").string() + "}\n");
    check_same_results("mpft",
                       "topology: {kind: mpft, endpoints: 64}\n"
                       "workload: {kind: alltoall, message_bytes: 9KiB}\n");
    // An incast: the fabric holds the senders' NICs back, so their PCIe and GPU credits bind
    // (and are kept) while the receiver's stay slack.
    check_same_results("incast",
                       "topology: {kind: mpft, endpoints: 64}\n"
                       "workload: {kind: incast, message_bytes: 1MiB, destination: 0, "
                       "senders: 16}\n");
    // Dual-plane NICs: two network ports into one PCIe link, whose arbiter takes packets that
    // reach it in the same picosecond by input, which a dropped credit must not hide.
    check_same_results("dual-plane",
                       "topology: {kind: dual-plane, endpoints: 64}\n"
                       "cluster: {multi_plane: spray}\n"
                       "workload: {kind: alltoall, message_bytes: 9KiB}\n");
}
