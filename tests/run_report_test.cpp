#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support.hpp"

using namespace clustersim::test;
using Json = nlohmann::json;

// The figures of results.json, each checked against a value derived by hand from the inputs.
namespace {

struct Run {
    Json results;
    std::vector<std::vector<std::string>> rows;  // messages.csv without its header
};

Run run_scenario(const std::filesystem::path& dir, const std::string& yaml,
                 const std::string& sets = "") {
    write_text(dir / "s.yaml", yaml);
    const auto out = dir / "out";
    const auto r =
        run_cli("run " + (dir / "s.yaml").string() + " " + sets + " --quiet --out " + out.string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    Run run;
    std::ifstream in(out / "results.json");
    run.results = Json::parse(in);
    std::ifstream csv(out / "messages.csv");
    std::string line;
    std::getline(csv, line);
    while (std::getline(csv, line)) {
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
        run.rows.push_back(cells);
    }
    return run;
}

double latency_max(const Run& r) {
    return r.results["messages"]["latency_us"]["max"].get<double>();
}

const char* kOneMessage =
    "cluster: {node: none}\n"
    "topology: {kind: ft2, switch_radix: 4, endpoints: 2}\n"
    "network: {mtu_bytes: 4096, header_bytes: 26}\n"
    "workload: {kind: trace, file: m.csv}\n";

}  // namespace

TEST_CASE("network.extra_latency_us adds exactly that much to a message's latency",
          "[report][system]") {
    const auto dir = temp_dir("extra-latency");
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n0,1,64,0\n");
    const double base = latency_max(run_scenario(dir, kOneMessage));
    const double slower =
        latency_max(run_scenario(dir, kOneMessage, "--set network.extra_latency_us=2.5"));
    CHECK(slower - base == Approx(2.5).margin(1e-9));
}

TEST_CASE("the busiest link's utilisation is its wire bytes over rate x run time",
          "[report][system]") {
    const auto dir = temp_dir("link-util");
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n0,1,1048576,0\n");
    const Run r = run_scenario(dir, kOneMessage);
    const double wire_bytes = 1048576.0 + 256 * 26;  // 256 packets of 4,096 B, 26 B header each
    const double sim_s = r.results["sim"]["sim_time_us"].get<double>() * 1e-6;
    const double util = r.results["network"]["max_link_util"].get<double>();
    CHECK(util == Approx(wire_bytes * 8 / (400e9 * sim_s)).epsilon(1e-6));
    CHECK(util <= 1.0);
}

TEST_CASE("all-to-all bandwidth follows nccl-tests: algbw = n x size / time, busbw = algbw (n-1)/n",
          "[report][system]") {
    const auto dir = temp_dir("busbw");
    const Run r = run_scenario(dir,
                               "cluster: {node: none}\n"
                               "topology: {kind: ft2, switch_radix: 8, endpoints: 8}\n"
                               "workload: {kind: alltoall, message_bytes: 64KiB}\n");
    const double makespan_s = r.results["messages"]["makespan_us"].get<double>() * 1e-6;
    const double algbw = r.results["bandwidth"]["algbw_GBps"].get<double>();
    CHECK(algbw == Approx(8 * 65536.0 / makespan_s / 1e9).epsilon(1e-9));
    CHECK(r.results["bandwidth"]["busbw_GBps"].get<double>() ==
          Approx(algbw * 7 / 8).epsilon(1e-9));
}

TEST_CASE("makespan runs from the first message's start to the last message's end",
          "[report][system]") {
    const auto dir = temp_dir("makespan");
    const Run r = run_scenario(dir,
                               "cluster: {node: none}\n"
                               "topology: {kind: ft2, switch_radix: 8, endpoints: 8}\n"
                               "workload: {kind: alltoall, message_bytes: 16KiB, start_us: 3}\n");
    double first_start = 1e300, last_end = 0;
    for (const auto& row : r.rows) {
        first_start = std::min(first_start, std::stod(row[4]));
        last_end = std::max(last_end, std::stod(row[5]));
    }
    CHECK(first_start == Approx(3.0));
    CHECK(r.results["messages"]["makespan_us"].get<double>() ==
          Approx(last_end - first_start).margin(1e-5));
}

TEST_CASE("cluster.socket_crossing_ns is paid on both GPU-NIC crossings of an inter-node message",
          "[report][node][system]") {
    const auto dir = temp_dir("socket-crossing");
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n0,8,64,0\n");
    const std::string yaml =
        "topology: {kind: ft2, switch_radix: 8, endpoints: 16}\n"
        "workload: {kind: trace, file: m.csv}\n";
    const double base = latency_max(run_scenario(dir, yaml));
    const double crossed =
        latency_max(run_scenario(dir, yaml, "--set cluster.socket_crossing_ns=500"));
    CHECK(crossed - base == Approx(1.0).margin(1e-6));
}

TEST_CASE("network.extra_latency_us delays inter-node messages and leaves NVLink-only ones alone",
          "[report][node][system]") {
    const auto dir = temp_dir("extra-latency-nvlink");
    const std::string yaml =
        "topology: {kind: ft2, switch_radix: 8, endpoints: 16}\n"
        "workload: {kind: trace, file: m.csv}\n";
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n0,1,65536,0\n");  // same node: NVLink
    const double nvlink = latency_max(run_scenario(dir, yaml));
    CHECK(latency_max(run_scenario(dir, yaml, "--set network.extra_latency_us=5")) ==
          Approx(nvlink).margin(1e-9));
    write_text(dir / "m.csv", "src,dst,bytes,start_us\n0,8,65536,0\n");  // other node: RDMA
    const double rdma = latency_max(run_scenario(dir, yaml));
    CHECK(latency_max(run_scenario(dir, yaml, "--set network.extra_latency_us=5")) - rdma ==
          Approx(5).margin(1e-9));
}
