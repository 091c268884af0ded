#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support.hpp"

using namespace clustersim::test;
using Json = nlohmann::json;

namespace {

std::string read(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Json without_wall_clock(Json j) {
    j["sim"].erase("wall_s");
    j["sim"].erase("events_per_s");
    j["sim"].erase("memory_estimate_bytes");  // counts sizeof: the same on one build
    return j;
}

}  // namespace

TEST_CASE("topo on an FT2 of 64-port switches reports 2,048 endpoints, 96 switches, 2,048 links",
          "[cli][system]") {
    const auto dir = temp_dir("topo");
    write_text(dir / "ft2.yaml", "topology: {kind: ft2}\n");
    const auto r = run_cli("topo " + (dir / "ft2.yaml").string() + " --json");
    REQUIRE(r.exit_code == 0);
    const Json j = Json::parse(r.out);
    CHECK(j["topology"] == "ft2");
    CHECK(j["endpoints"] == 2048);
    CHECK(j["switches"] == 96);
    CHECK(j["links"] == 2048);
    CHECK(j["max_hops"] == 3);
    CHECK(j["constructible"] == true);
}

TEST_CASE("same scenario and seed give identical results.json apart from wall-clock fields",
          "[cli][determinism][system]") {
    const auto a = temp_dir("det-a"), b = temp_dir("det-b");
    const std::string scen = source_path("scenarios/ft2-alltoall.yaml");
    const std::string opts =
        " --set topology.endpoints=32 --set workload.message_bytes=64KiB --quiet";
    REQUIRE(run_cli("run " + scen + opts + " --out " + a.string()).exit_code == 0);
    REQUIRE(run_cli("run " + scen + opts + " --out " + b.string()).exit_code == 0);
    const Json ja = Json::parse(read(a / "results.json")),
               jb = Json::parse(read(b / "results.json"));
    CHECK(without_wall_clock(ja).dump() == without_wall_clock(jb).dump());
    CHECK(read(a / "messages.csv") == read(b / "messages.csv"));
    // A different seed changes the ECMP salts, hence the results.
    const auto c = temp_dir("det-c");
    REQUIRE(run_cli("run " + scen + opts + " --seed 2 --out " + c.string()).exit_code == 0);
    CHECK(read(a / "messages.csv") != read(c / "messages.csv"));
}

TEST_CASE("run --json prints the contract's keys and one JSON document", "[cli][system]") {
    const auto r = run_cli("run " + source_path("scenarios/ft2-incast.yaml") +
                           " --set workload.message_bytes=256KiB --json");
    REQUIRE(r.exit_code == 0);
    const Json j = Json::parse(r.out);
    for (const char* k : {"scenario", "seed", "sim", "messages", "bandwidth", "network"})
        CHECK(j.contains(k));
    for (const char* k : {"events", "packets", "sim_time_us", "wall_s", "events_per_s"})
        CHECK(j["sim"].contains(k));
    for (const char* k : {"p50", "p99", "max"}) CHECK(j["messages"]["latency_us"].contains(k));
    for (const char* k : {"bytes_delivered", "bytes_dropped", "pfc_pauses", "max_link_util"})
        CHECK(j["network"].contains(k));
    CHECK(j["messages"]["count"] == 31);
    CHECK(j["network"]["bytes_delivered"] == 31 * 256 * 1024);
    CHECK(j["network"]["bytes_delivered"].is_number_integer());
}

TEST_CASE("clustersim --version and results.json's tool name the commit the binary was built from",
          "[cli][system]") {
    const auto v = run_cli("--version");
    REQUIRE(v.exit_code == 0);
    // The commit as git has it (40 hex digits, "-dirty" with uncommitted changes), or
    // "unknown" outside a git checkout.
    const auto git = run_command("git -C " + source_path("") + " rev-parse HEAD");
    const std::string head = git.exit_code == 0 ? git.out.substr(0, 40) : "unknown";
    CHECK(v.out.rfind("clustersim ", 0) == 0);
    CHECK(v.out.find("(commit " + head) != std::string::npos);
    const auto r = run_cli("run " + source_path("scenarios/ft2-incast.yaml") +
                           " --set workload.message_bytes=4KiB --json");
    REQUIRE(r.exit_code == 0);
    const Json j = Json::parse(r.out);
    REQUIRE(j.contains("tool"));
    CHECK(j["tool"]["commit"].get<std::string>().rfind(head, 0) == 0);
    CHECK(v.out.find(j["tool"]["version"].get<std::string>()) != std::string::npos);
    CHECK(!j["tool"]["build"].get<std::string>().empty());
}

TEST_CASE(
    "a 128-host permutation from a connection matrix reports every completion in messages.csv",
    "[cli][trace][system]") {
    const auto dir = temp_dir("trace");
    const auto r = run_cli("run " + source_path("scenarios/ft2-trace-permutation.yaml") +
                           " --quiet --out " + dir.string());
    REQUIRE(r.exit_code == 0);
    std::ifstream csv(dir / "messages.csv");
    std::string line;
    std::getline(csv, line);
    CHECK(line.rfind("id,src,dst,bytes,start_us,end_us", 0) == 0);
    int rows = 0;
    while (std::getline(csv, line)) {
        ++rows;
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
        REQUIRE(cells.size() >= 6);
        CHECK(cells[3] == "2000000");
        CHECK(std::stod(cells[5]) > std::stod(cells[4]));
    }
    CHECK(rows == 128);
}

TEST_CASE("a run that reaches sim.max_time_us exits 3 and names the unfinished messages",
          "[cli][system]") {
    const auto dir = temp_dir("limit");
    const auto r = run_cli("run " + source_path("scenarios/ft2-incast.yaml") +
                           " --set sim.max_time_us=10 --quiet --out " + dir.string());
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("max_time_us") != std::string::npos);
    CHECK(r.err.find("message") != std::string::npos);
    CHECK(Json::parse(read(dir / "results.json"))["status"] == "time_limit");
    // Messages whose own start time lies past the limit are said to be that, not waiting.
    const auto late = run_cli("run " + source_path("scenarios/ft2-incast.yaml") +
                              " --set workload.start_us=100 --set sim.max_time_us=50 --quiet");
    CHECK(late.exit_code == 3);
    CHECK(late.err.find("start time 100.000 us is after the run ended") != std::string::npos);
    CHECK(late.err.find("waiting") == std::string::npos);
}

TEST_CASE(
    "lossy tail drop is recovered by retransmission -- a connection that keeps timing out "
    "fails and the run ends stalled with exit 3",
    "[cli][system]") {
    const std::string lossy =
        " --set network.flow_control=lossy "
        "--set network.port_buffer_bytes=65536 --set workload.message_bytes=256KiB";
    const auto ok = run_cli("run " + source_path("scenarios/ft2-incast.yaml") + lossy + " --json");
    CHECK(ok.exit_code == 0);
    const Json j = Json::parse(ok.out);
    CHECK(j["status"] == "completed");
    CHECK(j["network"]["bytes_dropped"].get<std::uint64_t>() > 0);
    CHECK(j["network"]["packets_retransmitted"].get<std::uint64_t>() > 0);
    CHECK(j["network"]["bytes_delivered"].get<std::uint64_t>() == 31ull * 262144);
    // A timer far shorter than any ACK's round trip expires 8 times in a row: connections fail.
    const auto bad = run_cli("run " + source_path("scenarios/ft2-incast.yaml") + lossy +
                             " --set network.ack_timeout_exponent=1 --json");
    CHECK(bad.exit_code == 3);
    const Json k = Json::parse(bad.out);
    CHECK(k["status"] == "stalled");
    CHECK(k["network"]["connections_failed"].get<std::uint64_t>() > 0);
    // Each message fails at most once: its queue pair stops there (it counted every timeout
    // after, 75,418 for these 31 messages, before).
    CHECK(k["network"]["connections_failed"].get<std::uint64_t>() <= 31);
    CHECK(bad.err.find("stopped making progress") != std::string::npos);
    // Fewer retries: each failing queue pair gives up after fewer timeouts.
    const auto once = run_cli("run " + source_path("scenarios/ft2-incast.yaml") + lossy +
                              " --set network.ack_timeout_exponent=1 --set network.retry_count=0 "
                              "--json");
    CHECK(once.exit_code == 3);
    CHECK(Json::parse(once.out)["network"]["retransmit_timeouts"].get<std::uint64_t>() <
          k["network"]["retransmit_timeouts"].get<std::uint64_t>());
    // The fixed microsecond timer this key set is gone; it says what replaced it.
    const auto old = run_cli("run " + source_path("scenarios/ft2-incast.yaml") +
                             " --set network.retransmit_timeout_us=100");
    CHECK(old.exit_code == 2);
    CHECK(old.err.find("network.ack_timeout_exponent") != std::string::npos);
}

TEST_CASE(
    "a 64 -> 1 lossy incast finishes late with NCCL's queue-pair timers, its retransmissions "
    "counted, and the timers left when it is done cost it nothing",
    "[cli][system]") {
    // Issue 18's case: 1 MiB from each of 64 NICs to one on a lossy FT2 of radix-16
    // Tomahawk 5 switches. A 100 us timer with 8 tries failed 11 connections; an RC queue
    // pair with NCCL's and NVSHMEM's settings (4.096 us x 2^20, 7 retries) waits, and completes.
    const auto dir = temp_dir("incast-64-lossy");
    write_text(dir / "s.yaml",
               "topology: {kind: ft2, switch: tomahawk5-400g, switch_radix: 16, endpoints: 72}\n"
               "network: {flow_control: lossy}\n"
               "workload: {kind: incast, message_bytes: 1MiB, destination: 0, senders: 64}\n");
    for (const char* cc : {"none", "dcqcn"}) {
        const auto r = run_cli("run " + (dir / "s.yaml").string() +
                               " --set network.congestion_control=" + cc + " --json");
        INFO(cc << ": " << r.err);
        REQUIRE(r.exit_code == 0);
        const Json j = Json::parse(r.out);
        CHECK(j["status"] == "completed");
        const Json& n = j["network"];
        CHECK(n["connections_failed"] == 0);
        CHECK(n["packets_dropped"].get<std::uint64_t>() > 0);
        CHECK(n["packets_retransmitted"].get<std::uint64_t>() >= n["packets_dropped"]);
        CHECK(n["retransmit_timeouts"].get<std::uint64_t>() > 0);
        CHECK(n["bytes_delivered"].get<std::uint64_t>() == 64ull << 20);
        // Late: at least one 4.29 s timeout on the critical path.
        const double makespan_us = j["messages"]["makespan_us"].get<double>();
        CHECK(makespan_us > 4.294967e6);
        // The run ends with its last useful event, not at a stale timer's expiry.
        CHECK(j["sim"]["sim_time_us"].get<double>() - makespan_us < 10);
    }
    // ConnectX's adaptive retransmission from 16 us: the same losses recovered in milliseconds.
    const auto r = run_cli("run " + (dir / "s.yaml").string() +
                           " --set network.adaptive_retransmission_ns=16000 --json");
    REQUIRE(r.exit_code == 0);
    const Json j = Json::parse(r.out);
    CHECK(j["network"]["connections_failed"] == 0);
    CHECK(j["network"]["retransmit_timeouts"].get<std::uint64_t>() > 0);
    CHECK(j["messages"]["makespan_us"].get<double>() < 10'000);
}

// Every folder of scenarios (table3/, moe/ too; sweeps/ holds sweep files, loaded by the sweep
// tests); check builds nothing, so this is fast, and says in under a second what each costs.
TEST_CASE("every shipped scenario passes check", "[cli][scenarios][system]") {
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(source_path("scenarios"))) {
        if (entry.path().extension() != ".yaml") continue;
        if (entry.path().parent_path().filename() == "sweeps") continue;
        // The 100,352-GPU layer needs about 32 GB, more than a CI machine: checked as on one
        // that has it (its size is the point; docs/performance.md).
        const bool larger = entry.path().filename() == "deepseek-v3-layer-100k-mpft.yaml";
        const auto r = run_cli("check " + entry.path().string() +
                               (larger ? " --set sim.max_memory_gb=64" : ""));
        INFO(entry.path() << ": " << r.err);
        CHECK(r.exit_code == 0);
    }
}

TEST_CASE("integers stay exact 64-bit integers from --set to results.json",
          "[cli][values][system]") {
    const auto dir = temp_dir("exact-int");
    write_text(dir / "s.yaml",
               "cluster: {node: none}\ntopology: {kind: ft2, switch_radix: 4, endpoints: 2}\n"
               "workload: {kind: permutation, message_bytes: 4KiB}\n");
    const std::string scen = (dir / "s.yaml").string();
    auto r = run_cli("run " + scen + " --set seed=9007199254740993 --json");
    REQUIRE(r.exit_code == 0);
    CHECK(Json::parse(r.out)["seed"].get<std::uint64_t>() == 9007199254740993ull);
    r = run_cli("run " + scen + " --set seed=18446744073709551615 --json");
    REQUIRE(r.exit_code == 0);
    CHECK(Json::parse(r.out)["seed"].get<std::uint64_t>() == 18446744073709551615ull);
    for (const char* bad : {"18446744073709551616", "-1", "99999999999999999999999"}) {
        r = run_cli("check " + scen + " --set seed=" + bad);
        INFO(bad << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("out of range") != std::string::npos);
    }
    r = run_cli("run " + scen + " --set workload.message_bytes=1e4 --json");
    REQUIRE(r.exit_code == 0);
    CHECK(Json::parse(r.out)["messages"]["bytes"].get<std::uint64_t>() == 2 * 10000);
}

TEST_CASE("check --schema lists every entry of every registry", "[cli][registry][system]") {
    const auto r = run_cli("check --schema");
    REQUIRE(r.exit_code == 0);
    for (const char* name : {"ft2", "ft3", "mpft", "mrft", "dual-plane", "shuffle", "slimfly",
                             "dragonfly", "ecmp", "alltoall", "permutation", "incast", "trace"})
        CHECK(r.out.find(name) != std::string::npos);
}

TEST_CASE("docs/scenarios.md's key table is what check --schema prints, row for row",
          "[cli][registry][system]") {
    // The table is generated (docs/scenarios.md says so), never typed by hand: a key added to
    // the schema without the table regenerated fails here.
    const auto r = run_cli("check --schema");
    REQUIRE(r.exit_code == 0);
    const std::string doc =
        read(std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "docs/scenarios.md");
    const std::string header = "| key | type | default | meaning |";
    const auto start = doc.find(header);
    REQUIRE(start != std::string::npos);
    auto end = start;  // the table ends at the first line that is not a row
    while (end < doc.size() && doc[end] == '|') {
        const auto eol = doc.find('\n', end);
        end = eol == std::string::npos ? doc.size() : eol + 1;
    }
    CHECK(doc.substr(start, end - start) == r.out);
}

TEST_CASE("the seed option takes 0 to 2^64 - 1 exactly, and anything else is bad input",
          "[cli][values][system]") {
    const auto dir = temp_dir("seed-option");
    write_text(dir / "s.yaml",
               "cluster: {node: none}\ntopology: {kind: ft2, switch_radix: 4, endpoints: 2}\n"
               "workload: {kind: permutation, message_bytes: 4KiB}\n");
    const std::string scen = (dir / "s.yaml").string();
    auto r = run_cli("run " + scen + " --seed 18446744073709551615 --json");
    REQUIRE(r.exit_code == 0);
    CHECK(Json::parse(r.out)["seed"].get<std::uint64_t>() == 18446744073709551615ull);
    for (const char* bad : {"-1", "18446744073709551616", "99999999999999999999999", "7x"}) {
        r = run_cli("run " + scen + " --seed=" + bad);
        INFO(bad << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("--seed: '") == 0);
        CHECK(r.out.empty());
    }
}

TEST_CASE(
    "check shows a run's packet and event estimate -- sim.max_events refuses a run that "
    "needs more, and stops one that goes past it with exit 3",
    "[cli][limits][system]") {
    const auto c = run_cli("check " + source_path("scenarios/ft2-alltoall.yaml"));
    CHECK(c.exit_code == 0);
    CHECK(c.out.find("about 258048 packets") != std::string::npos);
    // The estimate bounds the real count (3,747,693 events for this run).
    const auto est = c.out.substr(c.out.find("at most about ") + 14);
    const auto run = run_cli("run " + source_path("scenarios/ft2-alltoall.yaml") + " --json");
    REQUIRE(run.exit_code == 0);
    CHECK(Json::parse(run.out)["sim"]["events"].get<std::uint64_t>() <= std::stoull(est));
    const auto refused = run_cli("run " + source_path("scenarios/ft2-alltoall.yaml") +
                                 " --set sim.max_events=1000000");
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("sim.max_events: the run needs about") != std::string::npos);
    // On a multi-plane fabric cross-plane packets cross NVLink to a forwarding GPU first: the
    // bound counts those hops too (the main job went past it by 13 % before).
    const auto mpft = temp_dir("event-estimate-mpft");
    write_text(mpft / "s.yaml",
               "model: {name: deepseek-v3}\ntopology: {kind: mpft, endpoints: 32}\n"
               "workload: {kind: moe, phase: decode, ep_size: 32, tokens_per_gpu: 8, "
               "simulated_layers: 2}\n");
    const auto mc = run_cli("check " + (mpft / "s.yaml").string());
    REQUIRE(mc.exit_code == 0);
    const auto mest = mc.out.substr(mc.out.find("at most about ") + 14);
    const auto mrun = run_cli("run " + (mpft / "s.yaml").string() + " --json");
    REQUIRE(mrun.exit_code == 0);
    CHECK(Json::parse(mrun.out)["sim"]["events"].get<std::uint64_t>() <= std::stoull(mest));
    // Lossy retransmissions go past the estimate: the limit stops the run itself.
    const auto dir = temp_dir("event-limit");
    const auto stopped =
        run_cli("run " + source_path("scenarios/ft2-incast.yaml") +
                " --set network.flow_control=lossy --set network.port_buffer_bytes=65536"
                " --set workload.message_bytes=256KiB --set sim.max_events=60000 --quiet --out " +
                dir.string());
    CHECK(stopped.exit_code == 3);
    CHECK(stopped.err.find("sim.max_events (60000) reached") != std::string::npos);
    CHECK(Json::parse(read(dir / "results.json"))["status"] == "event_limit");
}

TEST_CASE(
    "sim.partitions reaches the run: the cut it asks for, recorded, and messages' results the same",
    "[cli][system]") {
    const std::string scen = source_path("scenarios/ft2-alltoall.yaml") +
                             " --set topology.endpoints=32 --set workload.message_bytes=16KiB";
    const auto by_default = run_cli("run " + scen + " --json");
    const auto fine = run_cli("run " + scen + " --set sim.partitions=7 --json");
    REQUIRE(by_default.exit_code == 0);
    REQUIRE(fine.exit_code == 0);
    const Json a = Json::parse(by_default.out), b = Json::parse(fine.out);
    // METIS may leave a part empty (dropped): at most the count asked for, more than auto's.
    CHECK(b["sim"]["partitions"] <= 7);
    CHECK(b["sim"]["partitions"] > a["sim"]["partitions"]);
    CHECK(b["sim"]["cut_channels"] > a["sim"]["cut_channels"]);
    CHECK(b["resolved_scenario"]["sim"]["partitions"] == 7);
    CHECK_FALSE(a["resolved_scenario"]["sim"].contains("partitions"));  // unset: not recorded
    CHECK(b["messages"] == a["messages"]);
}

TEST_CASE("resolved_scenario holds every value the run used: run again, it gives the same results",
          "[cli][system]") {
    for (const std::string& scen :
         {source_path("scenarios/ft2-alltoall.yaml") +
              " --set topology.endpoints=32 --set workload.message_bytes=16KiB "
              "--set network.link_rate_gbps=200",
          source_path("scenarios/deepseek-v3-decode.yaml") +
              " --set topology.endpoints=32 --set workload.ep_size=32 "
              "--set workload.tokens_per_gpu=16 --set workload.simulated_layers=2"}) {
        INFO(scen);
        const auto first = run_cli("run " + scen + " --json");
        REQUIRE(first.exit_code == 0);
        const Json a = Json::parse(first.out);
        REQUIRE(a.contains("resolved_scenario"));
        const Json& resolved = a["resolved_scenario"];
        // Preset values are written out, not left implicit.
        CHECK(resolved["network"].contains("mtu_bytes"));
        CHECK(resolved["network"].contains("routing"));
        CHECK(resolved["seed"] == a["seed"]);
        // The resolved scenario, as a file of its own (JSON is YAML), runs to the same results.
        const auto dir = temp_dir("resolved");
        write_text(dir / "resolved.yaml", resolved.dump(2));
        const auto again = run_cli("run " + (dir / "resolved.yaml").string() + " --json");
        INFO(again.err);
        REQUIRE(again.exit_code == 0);
        Json b = Json::parse(again.out);
        CHECK(b["resolved_scenario"] == resolved);
        Json x = without_wall_clock(a), y = without_wall_clock(b);
        CHECK(x.dump() == y.dump());
    }
}

TEST_CASE(
    "sim.threads and --threads choose the threads a run's partitions run on, and stay out of "
    "resolved_scenario",
    "[cli][system][threads]") {
    const std::string scen = source_path("scenarios/ft2-alltoall.yaml") +
                             " --set topology.endpoints=32 --set workload.message_bytes=16KiB";
    auto threads_line = [](const std::string& out) {
        const auto at = out.find("partitions / threads");
        return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
    };
    const auto one = run_cli("run " + scen);
    const auto two = run_cli("run " + scen + " --set sim.threads=2");
    const auto flag = run_cli("run " + scen + " --set sim.threads=1 --threads 2");
    REQUIRE(one.exit_code == 0);
    REQUIRE(two.exit_code == 0);
    REQUIRE(flag.exit_code == 0);
    CHECK_THAT(threads_line(one.out), Catch::Matches("partitions / threads +[2-9][0-9]* +1"));
    CHECK_THAT(threads_line(two.out), Catch::Matches("partitions / threads +[2-9][0-9]* +2"));
    CHECK(threads_line(flag.out) == threads_line(two.out));
    // An execution setting: the results, resolved scenario included, are one thread's.
    const auto a = run_cli("run " + scen + " --json");
    const auto b = run_cli("run " + scen + " --set sim.threads=2 --json");
    REQUIRE(a.exit_code == 0);
    REQUIRE(b.exit_code == 0);
    const Json ja = Json::parse(a.out), jb = Json::parse(b.out);
    CHECK_FALSE(jb.at("resolved_scenario").value("sim", Json::object()).contains("threads"));
    CHECK(without_wall_clock(ja).dump() == without_wall_clock(jb).dump());
}
