// links.csv and nics.csv: one row per channel with its tier, one per NIC and GPU; their bytes
// add up to what the run moved.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include <map>
#include <set>
#include <sstream>

#include "scenario_support.hpp"
#include "tools/scenario/results_csv.hpp"

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

namespace {

nlohmann::json run_and_read_trace(const std::string& scenario, const std::string& name,
                                  nlohmann::json& results, const std::string& extra = "") {
    const auto dir = temp_dir("trace-" + name);
    const auto r = run_cli("run " + scenario + " --quiet --out " + (dir / "out").string() + extra);
    REQUIRE(r.exit_code == 0);
    std::ifstream rf(dir / "out" / "results.json");
    results = nlohmann::json::parse(rf);
    std::ifstream tf(dir / "out" / "trace.json");
    return nlohmann::json::parse(tf);  // parses as JSON, or the test fails here
}

}  // namespace

TEST_CASE("trace.json: a span per message, as long as its latency, on its sender's track",
          "[output][timeline][system]") {
    nlohmann::json results;
    const auto t = run_and_read_trace(source_path("scenarios/ft2-incast.yaml"), "incast", results);
    std::map<std::string, double> begin;
    double latency_sum = 0;
    std::size_t spans = 0;
    for (const auto& e : t["traceEvents"]) {
        if (e.value("cat", "") != "message") continue;
        if (e["ph"] == "b") begin[e["id"].get<std::string>()] = e["ts"].get<double>();
        if (e["ph"] == "e") {
            latency_sum += e["ts"].get<double>() - begin.at(e["id"].get<std::string>());
            ++spans;
        }
    }
    CHECK(spans == results["messages"]["count"].get<std::size_t>());
    CHECK(latency_sum / static_cast<double>(spans) ==
          Approx(results["messages"]["latency_us"]["mean"].get<double>()).epsilon(1e-6));
    // A limit keeps whole senders' tracks, and says so first.
    nlohmann::json again;
    const auto cut = run_and_read_trace(source_path("scenarios/ft2-alltoall.yaml"), "cut", again,
                                        " --trace-limit 100");  // 4,032 messages
    CHECK(cut["traceEvents"].size() <= 100);
    CHECK(cut["traceEvents"][0]["name"] == "clustersim");
    CHECK(cut["traceEvents"][0]["args"]["sampled"] == true);
}

TEST_CASE(
    "trace.json of the main scenario: a track per GPU, all-to-all spans that average to "
    "dispatch_us and combine_us",
    "[.slow][output][timeline]") {
    nlohmann::json results;
    const auto t =
        run_and_read_trace(source_path("scenarios/deepseek-v3-decode.yaml"), "main", results);
    std::set<std::uint64_t> gpu_tracks;
    std::size_t compute = 0;
    double dispatch = 0, combine = 0;
    std::size_t nd = 0, nc = 0, mtp = 0;
    for (const auto& e : t["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 2)
            gpu_tracks.insert(e["tid"].get<std::uint64_t>());
        if (e["ph"] != "X") continue;
        if (e["cat"] == "dispatch") dispatch += e["dur"].get<double>(), ++nd;
        if (e["cat"] == "combine") combine += e["dur"].get<double>(), ++nc;
        if (e["cat"] == "compute") ++compute;
        mtp += e["cat"] == "mtp_dispatch";
    }
    CHECK(mtp == 2);  // the main scenario's one MTP module, per micro-batch
    // 3.5 million messages: a sample of GPUs spread over the cluster, each whole.
    const auto& about = t["traceEvents"][0]["args"];
    CHECK(about["gpus"] == 144);
    CHECK(gpu_tracks.size() == about["gpus_kept"].get<std::size_t>());
    CHECK(gpu_tracks.size() >= 2);
    CHECK(*gpu_tracks.rbegin() >= 72);  // not only the first GPUs
    CHECK(nd == 2 * results["decode"]["simulated_layers"].get<std::size_t>());  // x 2 micro-batches
    CHECK(dispatch / nd == Approx(results["decode"]["dispatch_us"].get<double>()).epsilon(1e-6));
    CHECK(combine / nc == Approx(results["decode"]["combine_us"].get<double>()).epsilon(1e-6));
    CHECK(compute > 0);
}

// A run longer than ten seconds, its stderr a file (as under Slurm): progress lines with the
// share of the estimated events and the time left, one per ten seconds; none with --quiet.
TEST_CASE("a run's progress reaches a log that is not a terminal, with percentage and ETA",
          "[.slow][output][progress]") {
    const auto dir = temp_dir("progress-log");
    const std::string scen = source_path("scenarios/deepseek-v3-decode.yaml");
    const auto r = run_cli("run " + scen + " --messages none --out " + (dir / "o").string());
    REQUIRE(r.exit_code == 0);
    INFO(r.err);
    const auto line = r.err.find("% of at most ");
    REQUIRE(line != std::string::npos);
    CHECK(r.err.find(" s to go; simulated ", line) != std::string::npos);
    CHECK(r.err.find("messages done", line) != std::string::npos);
    CHECK(r.err.find('\r') == std::string::npos);  // lines, not a rewritten terminal line
    const auto quiet =
        run_cli("run " + scen + " --quiet --messages none --out " + (dir / "q").string());
    REQUIRE(quiet.exit_code == 0);
    CHECK(quiet.err.find("% of at most ") == std::string::npos);
}
