#include <catch2/catch.hpp>

#include "support.hpp"

using namespace clustersim::test;

namespace {

struct Case {
    std::string scenario;      // file text (empty: the file does not exist)
    std::string extra;         // extra command-line words
    std::string expect_where;  // text the one-line error must contain (file:line:col or --set)
    std::string expect_what;   // and this
};

void expect_bad_input(const Case& c, const std::string& name) {
    const auto dir = temp_dir("bad-" + name);
    const auto file = dir / "s.yaml";
    if (!c.scenario.empty()) write_text(file, c.scenario);
    const auto out = dir / "out";
    const auto r = run_cli("run " + file.string() + " " + c.extra + " --out " + out.string());
    INFO(name << ": stderr was: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    // Exactly one line, naming the place and the problem.
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    const std::string where = c.expect_where == "FILE" ? file.string() : c.expect_where;
    CHECK(r.err.find(where) != std::string::npos);
    CHECK(r.err.find(c.expect_what) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out / "results.json"));
    CHECK_FALSE(std::filesystem::exists(out / "messages.csv"));
}

const std::string kGood =
    "topology: {kind: ft2, switch_radix: 8}\nworkload: {kind: alltoall, message_bytes: 4096}\n";

}  // namespace

TEST_CASE("a missing scenario file, or a folder given as one, is bad input",
          "[cli][input][system]") {
    expect_bad_input({"", "", "FILE", "cannot open"}, "missing");
    const auto dir = temp_dir("bad-folder");
    const auto r = run_cli("run " + dir.string() + " --out " + (dir / "out").string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("is a folder") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "out" / "results.json"));
}

TEST_CASE("a YAML syntax error names file, line and column", "[cli][input][system]") {
    expect_bad_input(
        {"topology:\n  kind: ft2\n  endpoints: [1, 2\n", "", "s.yaml:4:1", "YAML syntax error"},
        "syntax");
}

TEST_CASE("an unknown key names its path and the keys that exist", "[cli][input][system]") {
    expect_bad_input(
        {kGood + "network:\n  link_rate_gpbs: 100\n", "", "s.yaml:4:3: network.link_rate_gpbs",
         "unknown key (expected one of: link_rate_gbps"},
        "unknown-key");
}

TEST_CASE("a value of the wrong type names the key and the expected type", "[cli][input][system]") {
    expect_bad_input({kGood + "network:\n  mtu_bytes: large\n", "",
                      "s.yaml:4:14: network.mtu_bytes", "'large' is not an integer"},
                     "type");
}

TEST_CASE("an out-of-range value names the range", "[cli][input][system]") {
    expect_bad_input({"topology:\n  kind: ft2\n  oversubscription: 0.5\n"
                      "workload: {kind: alltoall, message_bytes: 4096}\n",
                      "", "s.yaml:3:21: topology.oversubscription", "out of range (expected 1 to"},
                     "range");
    expect_bad_input({kGood, "--set topology.endpoints=100", "--set: topology.endpoints", "exceed"},
                     "limit");
    // A packet larger than the node's internal buffers could never leave the GPU.
    expect_bad_input({kGood + "network: {mtu_bytes: 262144, port_buffer_bytes: 4MiB}\n", "",
                      "s.yaml:3:22: network.mtu_bytes", "does not fit the h800 node's internal"},
                     "node-buffer");
}

TEST_CASE("an unknown --set path is bad input", "[cli][input][system]") {
    expect_bad_input({kGood, "--set network.colour=blue", "--set: network.colour", "unknown key"},
                     "set-path");
    expect_bad_input({kGood, "--set network.mtu_bytes", "--set", "PATH=VALUE"}, "set-form");
}

TEST_CASE(
    "an unknown value, a serving section without a model and a value out of range are bad "
    "input",
    "[cli][input][system]") {
    expect_bad_input({kGood + "network:\n  routing: magic\n", "", "s.yaml:4:12: network.routing",
                      "unknown value 'magic'"},
                     "enum");
    // Serving serves a model's steps: an all-to-all has none.
    expect_bad_input({kGood + "serving:\n  duration_s: 1\n", "", "s.yaml:3:1: serving",
                      "serves a model's steps (expected workload.kind: moe"},
                     "serving-no-model");
    // sim.threads is built: its range is checked.
    expect_bad_input({kGood + "sim:\n  threads: 0\n", "", "s.yaml:4:12: sim.threads",
                      "out of range (expected 1 to 1024)"},
                     "threads");
}

TEST_CASE("a malformed connection-matrix line names the trace file, line and column",
          "[cli][input][trace][system]") {
    const auto dir = temp_dir("bad-cm-file");
    write_text(dir / "bad.cm", "Nodes 8\nConnections 1\n0->1 start 0 size 10 bogus\n");
    expect_bad_input({"topology: {kind: ft2, switch_radix: 8}\nworkload: {kind: trace, file: " +
                          (dir / "bad.cm").string() + "}\n",
                      "", (dir / "bad.cm").string() + ":3:22", "unknown token 'bogus'"},
                     "cm");
    expect_bad_input(
        {"topology: {kind: ft2, switch_radix: 8}\nworkload: {kind: trace, file: nowhere.cm}\n", "",
         "nowhere.cm", "cannot open"},
        "cm-missing");
}

TEST_CASE("a bad command-line option is bad input", "[cli][input][system]") {
    const auto r = run_cli("run --no-such-option x.yaml");
    CHECK(r.exit_code == 2);
    const auto r2 = run_cli("frobnicate");
    CHECK(r2.exit_code == 2);
}

TEST_CASE("a key given twice in one map is an error naming both lines", "[cli][input][system]") {
    expect_bad_input({"topology: {kind: ft2, switch_radix: 8}\ntopology: {endpoints: 16}\n"
                      "workload: {kind: alltoall, message_bytes: 4096}\n",
                      "", "s.yaml:2:1: topology", "duplicate key, first given on line 1"},
                     "duplicate");
    expect_bad_input({"topology: {kind: ft2, switch_radix: 8, switch_radix: 16}\n"
                      "workload: {kind: alltoall, message_bytes: 4096}\n",
                      "", "topology.switch_radix", "first given on line 1"},
                     "duplicate-inner");
}

TEST_CASE("keys and values with newlines or binary bytes are echoed escaped on one line",
          "[cli][input][system]") {
    expect_bad_input(
        {kGood + "\"bad\\nkey\\u0001\": 1\n", "", "bad\\nkey\\x01", "control character U+0001"},
        "escaped");
    const std::string long_value(100000, 'x');
    expect_bad_input(
        {kGood + "network: {routing: " + long_value + "}\n", "", "network.routing", "..."},
        "truncated");
}

TEST_CASE(
    "an unknown subcommand, an empty --out and an output path that is a folder are bad "
    "input",
    "[cli][input][system]") {
    const auto r = run_cli("frob");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("unknown subcommand 'frob'") != std::string::npos);
    const auto e = run_cli("run " + source_path("scenarios/ft2-incast.yaml") + " --out \"\"");
    CHECK(e.exit_code == 2);
    CHECK(e.err.find("--out") != std::string::npos);
    // results.json is a folder: refused before simulating, nothing written, no stray file.
    const auto dir = temp_dir("out-is-folder");
    std::filesystem::create_directories(dir / "results.json");
    const auto f = run_cli("run " + source_path("scenarios/ft2-incast.yaml") +
                           " --set workload.message_bytes=4096 --out " + dir.string());
    CHECK(f.exit_code == 2);
    CHECK(std::count(f.err.begin(), f.err.end(), '\n') == 1);
    std::size_t entries = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        (void)entry;
        ++entries;
    }
    CHECK(entries == 1);  // only the folder that was there
}

TEST_CASE(
    "the CSV and .cm readers refuse the same things: empty messages, messages to "
    "oneself, repeated ids",
    "[cli][input][trace][system]") {
    const auto dir = temp_dir("reader-agreement");
    auto scenario = [&](const std::string& file) {
        return "topology: {kind: ft2, switch_radix: 8}\ncluster: {node: none}\n"
               "workload: {kind: trace, file: " +
               (dir / file).string() + "}\n";
    };
    write_text(dir / "zero.csv", "src,dst,bytes,start_us\n0,1,0,0\n");
    write_text(dir / "self.csv", "src,dst,bytes,start_us\n0,0,100,0\n");
    write_text(dir / "dup.csv", "src,dst,bytes,start_us,id\n0,1,100,0,5\n1,2,100,0,5\n");
    write_text(dir / "zero.cm", "Nodes 4\nConnections 1\n0->1 start 0 size 0\n");
    write_text(dir / "self.cm", "Nodes 4\nConnections 1\n0->0 start 0 size 100\n");
    write_text(dir / "dup.cm",
               "Nodes 4\nConnections 2\n0->1 id 5 start 0 size 100\n1->2 id 5 start 0 size 100\n");
    expect_bad_input({scenario("zero.csv"), "", "zero.csv:2:5", "0 bytes"}, "csv-zero");
    expect_bad_input({scenario("self.csv"), "", "self.csv:2:3", "to itself"}, "csv-self");
    expect_bad_input({scenario("dup.csv"), "", "dup.csv:3:11", "first on line 2"}, "csv-dup");
    expect_bad_input({scenario("zero.cm"), "", "zero.cm:3", "size 0"}, "cm-zero");
    expect_bad_input({scenario("self.cm"), "", "self.cm:3:4", "to itself"}, "cm-self");
    expect_bad_input({scenario("dup.cm"), "", "dup.cm:4:9", "first on line 3"}, "cm-dup");
}

TEST_CASE("devices, pipes and oversized files are refused before they are read",
          "[cli][input][system]") {
    const auto r = run_cli("check /dev/zero");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("/dev/zero: is a device, pipe or socket") != std::string::npos);
    const auto dir = temp_dir("fifo");
    const auto fifo = dir / "s.yaml";
    std::filesystem::remove(fifo);
    REQUIRE(std::system(("mkfifo " + fifo.string()).c_str()) == 0);
    const auto f = run_cli("check " + fifo.string());  // would block forever if opened
    CHECK(f.exit_code == 2);
    // A trace named like a connection matrix that is /dev/zero underneath.
    std::filesystem::remove(dir / "zero.cm");
    std::filesystem::create_symlink("/dev/zero", dir / "zero.cm");
    expect_bad_input({"topology: {kind: ft2, switch_radix: 8}\ncluster: {node: none}\n"
                      "workload: {kind: trace, file: " +
                          (dir / "zero.cm").string() + "}\n",
                      "", "zero.cm", "is a device, pipe or socket"},
                     "trace-device");
    write_text(dir / "huge.yaml", std::string((1u << 20) + 1, '#'));
    const auto h = run_cli("check " + (dir / "huge.yaml").string());
    CHECK(h.exit_code == 2);
    CHECK(h.err.find("expected at most 1048576") != std::string::npos);
}

TEST_CASE(
    "run refuses a scenario without a workload, and an all-to-all too large to index, "
    "with one line",
    "[cli][input][system]") {
    expect_bad_input({"topology: {kind: ft2, switch_radix: 8}\n", "", "workload.kind",
                      "missing (expected one of"},
                     "no-workload");
    expect_bad_input({"topology: {kind: ft2, switch_radix: 258}\ncluster: {node: none}\n"
                      "workload: {kind: alltoall, message_bytes: 1}\n",
                      "", "workload.kind", "more than the 1073741823 one run holds"},
                     "alltoall-too-large");
}

TEST_CASE("a conflict between keys blames the one the user changed, on the command line first",
          "[cli][input][system]") {
    expect_bad_input({kGood, "--set topology.switch_radix=3", "--set: topology.switch_radix",
                      "does not split radix 3"},
                     "blame-radix");
    expect_bad_input(
        {"cluster: {node: none}\n"
         "topology: {kind: dragonfly, switch_radix: 8, group_switches: 4}\n"
         "workload: {kind: alltoall, message_bytes: 4096}\n",
         "--set topology.global_links=100000", "--set: topology.global_links", "ports per switch"},
        "blame-global-links");
    // Without a command-line value, the key the file sets is blamed.
    expect_bad_input({"topology: {kind: ft2, switch_radix: 3}\n"
                      "workload: {kind: alltoall, message_bytes: 4096}\n",
                      "", "s.yaml:1:37: topology.switch_radix", "does not split radix 3"},
                     "blame-file");
}

TEST_CASE(
    "an unreadable input file is blamed on the key that names it -- a .cm without Nodes "
    "points at its first line",
    "[cli][input][trace][system]") {
    expect_bad_input({"topology: {kind: ft2, switch_radix: 8}\n"
                      "workload: {kind: trace, file: nowhere.cm}\n",
                      "", "s.yaml:2:31: workload.file", "cannot open"},
                     "file-key");
    const auto dir = temp_dir("no-nodes");
    write_text(dir / "n.cm", "Connections 0\n");
    expect_bad_input({"topology: {kind: ft2, switch_radix: 8}\nworkload: {kind: trace, file: " +
                          (dir / "n.cm").string() + "}\n",
                      "", "n.cm:1:1", "no 'Nodes N' header line"},
                     "no-nodes");
}

TEST_CASE("a missing key is blamed on its parent map, or on the file's first line",
          "[cli][input][system]") {
    expect_bad_input({"topology: {kind: ft2, switch_radix: 8}\nworkload: {kind: alltoall}\n", "",
                      "s.yaml:2:1: workload.message_bytes", "missing"},
                     "missing-in-map");
    expect_bad_input(
        {"topology: {kind: ft2, switch_radix: 8}\n", "", "s.yaml:1:1: workload.kind", "missing"},
        "missing-map");
}

TEST_CASE("a message of more than 2^32 packets is a located input error, not an internal one",
          "[cli][input][system]") {
    // Reproduced: message_bytes 1e15 at a 4 KiB MTU ended in "internal error", exit 1.
    expect_bad_input({"topology: {kind: ft2, switch_radix: 8}\ncluster: {node: none}\n"
                      "workload: {kind: permutation, message_bytes: 1e15}\n",
                      "", "s.yaml:3:46: workload.message_bytes", "more than the 2^32 - 1 packets"},
                     "packets-per-message");
    expect_bad_input({kGood, "--set network.mtu_bytes=256 --set workload.message_bytes=2000GiB",
                      "--set: network.mtu_bytes", "more than the 2^32 - 1 packets"},
                     "packets-per-message-mtu");
}
