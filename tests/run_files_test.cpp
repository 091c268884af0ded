// links.csv and nics.csv: one row per channel with its tier, one per NIC and GPU; their bytes
// add up to what the run moved.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "scenario_support.hpp"
#include "tools/clustersim/run_files.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

std::vector<std::vector<std::string>> rows_of(const std::string& csv) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::istringstream l(line);
        for (std::string c; std::getline(l, c, ',');) cells.push_back(c);
        rows.push_back(cells);
    }
    return rows;
}

}  // namespace

TEST_CASE("links.csv and nics.csv account for every byte, by tier, NIC and GPU", "[output]") {
    const Run r = run_yaml("files",
                           "topology: {kind: ft2, switch_radix: 8, endpoints: 16}\n"
                           "cluster: {node: h800}\n"
                           "workload: {kind: alltoall, message_bytes: 8KiB}\n");
    REQUIRE(r.result.status == SimulationResult::Status::Completed);
    const SimulatedFabric& f = r.fabric;
    const auto links = rows_of(links_csv(f.fabric, f.simulated(), f.node_layout(), r.result));
    REQUIRE(links.size() == f.simulated().graph.channels().size());
    std::map<std::string, std::uint64_t> by_tier;
    for (const auto& row : links) by_tier[row[3]] += std::stoull(row[5]);
    for (const char* tier : {"gpu-gpu-hub", "gpu-hub-scale-up", "scale-up-gpu-hub", "gpu-hub-nic",
                             "nic-gpu-hub", "nic-leaf", "leaf-nic", "leaf-spine", "spine-leaf"})
        CHECK(by_tier.count(tier) == 1);
    // What NICs send up is what leaves bring down to NICs, and leaves' up is spines' down.
    CHECK(by_tier["nic-leaf"] == by_tier["leaf-nic"]);
    CHECK(by_tier["leaf-spine"] == by_tier["spine-leaf"]);
    CHECK(by_tier["leaf-spine"] > 0);

    const auto nics =
        rows_of(nics_csv(f.fabric, f.simulated(), f.node_layout(), r.workload, r.result, 8, 8));
    std::uint64_t nic_sent = 0, nic_received = 0, gpu_sent = 0, gpu_received = 0, n = 0, g = 0;
    for (const auto& row : nics) {
        if (row[0] == "nic") {
            ++n;
            nic_sent += std::stoull(row[3]);
            nic_received += std::stoull(row[4]);
        } else {
            ++g;
            gpu_sent += std::stoull(row[3]);
            gpu_received += std::stoull(row[4]);
        }
    }
    CHECK(n == 16);
    CHECK(g == 16);
    CHECK(nic_sent == by_tier["nic-leaf"]);
    CHECK(nic_received == by_tier["leaf-nic"]);
    // Every message finished: the GPUs sent and received the workload's payload.
    CHECK(gpu_sent == r.workload.total_bytes());
    CHECK(gpu_received == r.workload.total_bytes());
}
