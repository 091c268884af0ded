#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

using namespace clustersim::test;

namespace {

std::vector<std::vector<std::string>> rows_of(const std::string& csv) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(csv);
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        if (!line.empty() && line.back() == ',') f.emplace_back();
        rows.push_back(f);
    }
    return rows;
}

const char* kDecode =
    "model: {name: deepseek-v3}\n"
    "topology: {kind: mpft, endpoints: 32}\n"
    "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 16, "
    "simulated_layers: 2, mtp_draft_tokens: 1, mtp_acceptance: 0.8}\n";

}  // namespace

TEST_CASE("messages.csv says each message's phase, pass, layer, micro-batch and path",
          "[cli][system]") {
    const auto dir = temp_dir("messages-columns");
    write_text(dir / "s.yaml", kDecode);
    REQUIRE(run_cli("run " + (dir / "s.yaml").string() + " --quiet --out " + (dir / "o").string())
                .exit_code == 0);
    const auto rows = rows_of(read_text(dir / "o" / "messages.csv"));
    REQUIRE(rows.size() > 1);
    CHECK(rows[0] == std::vector<std::string>{"id", "src", "dst", "bytes", "start_us", "end_us",
                                              "latency_us", "phase", "pass", "layer", "micro_batch",
                                              "path"});
    std::set<std::string> phases, passes, layers, batches, paths;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto& r = rows[i];
        REQUIRE(r.size() == 12);
        phases.insert(r[7]);
        passes.insert(r[8]);
        layers.insert(r[8] + r[9]);
        batches.insert(r[10]);
        paths.insert(r[11]);
        // A message within one node of 8 GPUs crosses NVLink; between nodes, the NIC.
        const bool same_node = std::stoul(r[1]) / 8 == std::stoul(r[2]) / 8;
        CHECK(r[11] == (same_node ? "nvlink" : "rdma"));
    }
    CHECK(phases == std::set<std::string>{"dispatch", "combine"});
    CHECK(passes == std::set<std::string>{"forward", "mtp"});
    CHECK(layers == std::set<std::string>{"forward0", "forward1", "mtp0"});
    CHECK(batches == std::set<std::string>{"0", "1"});
}

TEST_CASE("run --messages sample keeps node 0's messages and says so, none writes the header only",
          "[cli][system][long]") {
    const auto dir = temp_dir("messages-sample");
    write_text(dir / "s.yaml", kDecode);
    const auto all_run =
        run_cli("run " + (dir / "s.yaml").string() + " --quiet --out " + (dir / "all").string());
    REQUIRE(all_run.exit_code == 0);
    const auto sample_run = run_cli("run " + (dir / "s.yaml").string() +
                                    " --messages sample --out " + (dir / "sample").string());
    REQUIRE(sample_run.exit_code == 0);
    CHECK(sample_run.err.find("messages.csv holds a sample") != std::string::npos);
    const auto all = rows_of(read_text(dir / "all" / "messages.csv"));
    const auto sample = rows_of(read_text(dir / "sample" / "messages.csv"));
    std::size_t node0 = 0;
    for (std::size_t i = 1; i < all.size(); ++i)
        node0 += std::stoul(all[i][1]) < 8 || std::stoul(all[i][2]) < 8;
    CHECK(sample.size() - 1 == node0);
    CHECK(node0 < all.size() - 1);
    for (std::size_t i = 1; i < sample.size(); ++i)
        CHECK((std::stoul(sample[i][1]) < 8 || std::stoul(sample[i][2]) < 8));
    REQUIRE(run_cli("run " + (dir / "s.yaml").string() + " --quiet --messages none --out " +
                    (dir / "none").string())
                .exit_code == 0);
    CHECK(rows_of(read_text(dir / "none" / "messages.csv")).size() == 1);
}
