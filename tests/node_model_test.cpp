#include <catch2/catch.hpp>

#include "scenario_support.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

double latency_us(const std::string& name, const std::string& topology_yaml, std::uint32_t src,
                  std::uint32_t dst) {
    const auto dir = temp_dir("lat-" + name);
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n" + std::to_string(src) + "," +
                                  std::to_string(dst) + ",64,0\n");
    const Run r = run_yaml(name, topology_yaml + "workload: {kind: trace, initiator: cpu, file: " +
                                     (dir / "m.csv").string() + "}\n");
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    return (r.result.messages[0].finished - r.result.messages[0].started).us();
}

}  // namespace

TEST_CASE("a 64 B message reproduces ISCA'25 Table 5 within 10% on every path",
          "[node][calibration][validation]") {
    // 256 H800 GPUs on a radix-64 FT2: GPUs 0 and 8 share leaf 0 (NIC 0 and NIC 8, plane 0);
    // GPU 248's NIC is on leaf 7; GPUs 0 and 1 share a node.
    const std::string ib = "topology: {kind: ft2, endpoints: 256}\n";
    const std::string roce = "topology: {kind: ft2, endpoints: 256, switch: ethernet-400g}\n";
    CHECK(latency_us("ib-same", ib, 0, 8) == Approx(2.8).epsilon(0.10));
    CHECK(latency_us("ib-cross", ib, 0, 248) == Approx(3.7).epsilon(0.10));
    CHECK(latency_us("roce-same", roce, 0, 8) == Approx(3.6).epsilon(0.10));
    CHECK(latency_us("roce-cross", roce, 0, 248) == Approx(5.6).epsilon(0.10));
    CHECK(latency_us("nvlink", ib, 0, 1) == Approx(3.33).epsilon(0.10));
}

TEST_CASE(
    "MPFT all-to-all on 128 GPUs: intra-node over NVLink, cross-plane forwarded inside the node",
    "[node][mpft]") {
    const Run r = run_yaml("mpft",
                           "topology: {kind: mpft, endpoints: 128}\nworkload: {kind: alltoall, "
                           "message_bytes: 64KiB}\n");
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    const NodeLayout& l = *r.fabric.node_layout();
    const auto& g = r.fabric.simulated().graph;
    const auto channels = g.channels();
    const NetworkParams np = network_params(r.scenario, r.fabric.fabric);
    auto wire = [&](std::uint64_t bytes) {
        return bytes + (bytes + np.mtu_bytes - 1) / np.mtu_bytes * np.header_bytes;
    };
    std::uint64_t inter_node = 0, over_nvlink = 0;
    for (const auto& m : r.workload.messages) {
        const bool same_node = l.node_of_gpu(m.src) == l.node_of_gpu(m.dst);
        if (!same_node) inter_node += wire(m.bytes);
        if (same_node || l.plane_of_gpu(m.src) != l.plane_of_gpu(m.dst))
            over_nvlink += wire(m.bytes);
    }
    std::uint64_t pcie_up = 0, nvlink_up = 0;
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        if (channels[c].from.kind != NodeKind::Switch || channels[c].to.kind != NodeKind::Switch)
            continue;
        const SwitchRole from = l.role[channels[c].from.index], to = l.role[channels[c].to.index];
        if (from == SwitchRole::GpuHub && to == SwitchRole::Nic)
            pcie_up += r.result.channels[c].bytes;
        if (from == SwitchRole::GpuHub && to == SwitchRole::ScaleUp)
            nvlink_up += r.result.channels[c].bytes;
    }
    CHECK(pcie_up == inter_node);     // only traffic that leaves the node crosses PCIe to a NIC
    CHECK(nvlink_up == over_nvlink);  // same-node traffic and PXN forwarding use NVLink
    CHECK(r.result.counters.payload_delivered == r.workload.total_bytes());
}

TEST_CASE("MPFT and the equivalent MRFT both carry a 128-GPU all-to-all end to end",
          "[node][mrft]") {
    const std::string work = "workload: {kind: alltoall, message_bytes: 32KiB}\n";
    // Radix 16 forces spines: 16 nodes on 8 down-ports per leaf need 2 leaves per plane or rail.
    const Run p =
        run_yaml("mpft16", "topology: {kind: mpft, endpoints: 128, switch_radix: 16}\n" + work);
    const Run m =
        run_yaml("mrft16", "topology: {kind: mrft, endpoints: 128, switch_radix: 16}\n" + work);
    REQUIRE(p.result.status == SimulationResult::Status::Completed);
    REQUIRE(m.result.status == SimulationResult::Status::Completed);
    CHECK(p.fabric.fabric.inventory.switches == 8 * 3);  // 2 leaves + 1 spine per plane
    CHECK(m.fabric.fabric.inventory.tiers[0].switches == 16);
    const double tp = p.result.end_time.us(), tm = m.result.end_time.us();
    CHECK(tp == Approx(tm).epsilon(0.10));  // ISCA'25 Table 4: within measurement noise
}

TEST_CASE("a PCIe x8 slot halves the GPU-to-NIC path", "[node]") {
    const std::string base = "topology: {kind: ft2, endpoints: 16}\nworkload: {kind: trace, file: ";
    const auto dir = temp_dir("pcie");
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n0,8,16000000,0\n");
    const Run x16 = run_yaml("x16", base + (dir / "m.csv").string() + "}\n");
    const Run x8 =
        run_yaml("x8", base + (dir / "m.csv").string() + "}\ncluster: {pcie_lanes: 8}\n");
    const double t16 = x16.result.end_time.seconds(), t8 = x8.result.end_time.seconds();
    const double gbytes16 = 16e6 / t16 / 1e9, gbytes8 = 16e6 / t8 / 1e9;
    CHECK(gbytes16 == Approx(50.0 * 4096 / 4122).epsilon(0.05));           // NIC-bound at x16
    CHECK(gbytes8 == Approx(63.0 / 2 * 0.9 * 4096 / 4122).epsilon(0.05));  // PCIe-bound at x8
}

TEST_CASE(
    "one connection on a multi-port NIC: one port's rate when bonded (CX7), every port's "
    "when sprayed (CX8 class)",
    "[node][multi-plane]") {
    const auto dir = temp_dir("bond-spray");
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n0,8,16000000,0\n");
    // Dual-plane: 2 x 200G ports; shuffle: 4 x 100G lanes. RoCE packets: 4,096 B + 82 B.
    for (const auto& [kind, ports] : {std::pair{"dual-plane", 2}, std::pair{"shuffle", 4}}) {
        for (const char* mode : {"bond", "spray"}) {
            const Run r = run_yaml(
                std::string(kind) + mode,
                std::string("topology: {kind: ") + kind +
                    ", endpoints: 64}\ncluster: {multi_plane: " + mode +
                    "}\nworkload: {kind: trace, file: " + (dir / "m.csv").string() + "}\n");
            REQUIRE(r.result.status == SimulationResult::Status::Completed);
            const double gbytes = 16e6 / r.result.end_time.seconds() / 1e9;
            const double port_gbytes = 50.0 / ports * 4096 / 4178;
            const bool spray = std::string(mode) == "spray";
            INFO(kind << " " << mode << ": " << gbytes << " GB/s");
            if (spray) {
                CHECK(gbytes >= 0.9 * ports * port_gbytes);
            } else {
                CHECK(gbytes >= 0.9 * port_gbytes);
                CHECK(gbytes <= 1.0 * port_gbytes);
            }
            // Planes that carried part of it: all when sprayed, one when bonded.
            std::uint32_t used = 0;
            const auto& g = r.fabric.simulated().graph;
            for (std::uint32_t sw = 0; sw < r.fabric.fabric.inventory.switches; ++sw) {
                std::uint64_t through = 0;
                const NodeRef n{NodeKind::Switch, sw};
                for (std::uint32_t c = g.first_channel(n);
                     c < g.first_channel(n) + g.channels_of(n); ++c)
                    through += r.result.channels[c].bytes;
                used += through > 0;
            }
            CHECK(used == (spray ? static_cast<std::uint32_t>(ports) : 1u));
        }
    }
}

namespace {

// Latency of message `id` (its index in the CSV) in a run of `csv` on `topology_yaml`.
std::vector<double> latencies_us(const std::string& name, const std::string& topology_yaml,
                                 const std::string& csv) {
    const auto dir = temp_dir("paths-" + name);
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n" + csv);
    const Run r = run_yaml(
        name, topology_yaml + "workload: {kind: trace, file: " + (dir / "m.csv").string() + "}\n");
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    std::vector<double> out;
    for (const auto& m : r.result.messages) out.push_back((m.finished - m.started).us());
    return out;
}

}  // namespace

TEST_CASE(
    "NVLink and RDMA are independent paths out of a GPU: an RDMA send does not slow the "
    "same GPU's NVLink send",
    "[node][paths]") {
    // H800 (models/data/nodes.yaml): NVLink 200 GB/s x 0.8 = 160 GB/s achievable, 0.5 us
    // per-message overhead (GPU-initiated, the default); InfiniBand packets of 4,096 B + 26 B.
    const std::string ft2 = "topology: {kind: ft2, switch_radix: 8, endpoints: 16}\n";
    const double bytes = 8 << 20, packets = bytes / 4096;
    const double expected_us = 0.5 + (bytes + packets * 26) / 160e9 * 1e6;
    const double alone = latencies_us("nvlink-alone", ft2, "0,1,8388608,0\n")[0];
    CHECK(alone == Approx(expected_us).epsilon(0.01));  // plus sub-microsecond path latency
    // The same GPU also sends 8 MiB to GPU 8 (another node) through its NIC.
    const auto both = latencies_us("nvlink-rdma", ft2, "0,1,8388608,0\n0,8,8388608,0\n");
    CHECK(both[0] == Approx(alone).epsilon(0.02));
    // The RDMA send runs at the NIC's 400 Gb/s meanwhile, not at a shared port's leftover.
    CHECK(both[1] < 1.1 * (1.0 + (bytes + packets * 26) / 50e9 * 1e6));
}

TEST_CASE("traffic a GPU forwards for another plane (PXN) does not slow its own NVLink sends",
          "[node][paths][mpft]") {
    // MPFT of H800 nodes: GPU 0 -> GPU 9 (node 1, plane 1) is forwarded over NVLink to GPU 1,
    // whose NIC is on plane 1; meanwhile GPU 1 sends 8 MiB to GPU 2 over NVLink.
    const std::string mpft = "topology: {kind: mpft, endpoints: 16}\n";
    const double alone = latencies_us("pxn-alone", mpft, "1,2,8388608,0\n")[0];
    const auto both = latencies_us("pxn-both", mpft, "1,2,8388608,0\n0,9,8388608,0\n");
    CHECK(both[0] == Approx(alone).epsilon(0.02));
}

TEST_CASE(
    "the initiator sets per-message costs: issuing is serial per sender, so many small "
    "writes cost more than one large one, and GPU kernels issue far faster than a CPU",
    "[node][initiator]") {
    // 64 writes of 64 B from GPU 0 to GPU 8 (another node), against one of 4 KiB. Their wire
    // time (under 2 ns each) is below any issue cost, so the last write leaves 63 issues after
    // the first: T(64 x 64 B) = 63 x issue + T(one 64 B write).
    std::string many;
    for (int i = 0; i < 64; ++i) many += "0,8,64,0\n";
    const std::string ft2 = "topology: {kind: ft2, switch_radix: 8, endpoints: 16}\n";
    auto makespan = [&](const std::string& name, const std::string& csv, const char* initiator) {
        const auto dir = temp_dir("init-" + name);
        write_text(dir / "m.csv", "src,dst,bytes,start_us\n" + csv);
        const Run r =
            run_yaml("init-" + name, ft2 + "workload: {kind: trace, initiator: " + initiator +
                                         ", file: " + (dir / "m.csv").string() + "}\n");
        REQUIRE(r.result.status == SimulationResult::Status::Completed);
        return r.result.end_time.us();
    };
    // Issue costs (models/data/link_layers.yaml): CPU 0.2 us, GPU 0.01 us per write.
    for (const auto& [initiator, issue_us] : {std::pair{"cpu", 0.2}, std::pair{"gpu", 0.01}}) {
        INFO(initiator);
        const double single = makespan(std::string(initiator) + "-1", "0,8,64,0\n", initiator);
        const double all = makespan(std::string(initiator) + "-64", many, initiator);
        const double large = makespan(std::string(initiator) + "-4k", "0,8,4096,0\n", initiator);
        CHECK(all == Approx(63 * issue_us + single).margin(0.005));
        CHECK(all > large);
    }
}

TEST_CASE(
    "logical processes: a process per fabric switch and per node, every channel's ends in "
    "the process of their device",
    "[node][parallel]") {
    const Run r = run_yaml("lp-mpft",
                           "topology: {kind: mpft, endpoints: 128}\nworkload: {kind: alltoall, "
                           "message_bytes: 4KiB}\n");
    const NodeLayout& l = *r.fabric.node_layout();
    const auto& g = r.fabric.simulated().graph;
    const LogicalProcesses lp = logical_processes(g, &l);
    const std::uint32_t nodes = g.endpoint_count() / l.gpus_per_node;
    CHECK(lp.count == l.fabric_switches + nodes);
    for (std::uint32_t s = 0; s < g.switch_count(); ++s)
        CHECK(lp.of_switch[s] == (s < l.fabric_switches ? s : l.fabric_switches + l.node_of[s]));
    for (std::uint32_t gpu = 0; gpu < g.endpoint_count(); ++gpu)
        CHECK(lp.of_endpoint[gpu] == l.fabric_switches + gpu / l.gpus_per_node);
    // Bare endpoints: one process each, after the switches.
    const LogicalProcesses bare = logical_processes(g, nullptr);
    CHECK(bare.count == g.switch_count() + g.endpoint_count());
    CHECK(bare.of_endpoint.back() == bare.count - 1);
}
