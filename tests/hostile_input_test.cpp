#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/input/input_error.hpp"
#include "sim/input/utf8.hpp"
#include "support.hpp"
#include "tools/scenario/output_files.hpp"

using namespace clustersim;
using namespace clustersim::test;
using Json = nlohmann::json;

// Issue 17's third round of hostile input, one regression test per finding (3 to 11; the alias
// cycle and bomb are in yaml_bounds_test.cpp). Each was seen failing on 350cebf.

namespace {

std::size_t lines(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string small(const std::string& name, const std::string& bytes = "4KiB") {
    return fmt::format(
        "name: {}\nseed: 1\ntopology: {{kind: ft2, switch: quantum2, switch_radix: 8, "
        "endpoints: 8}}\nworkload: {{kind: alltoall, message_bytes: {}}}\n",
        name, bytes);
}

std::string q(const std::filesystem::path& p) {
    return fmt::format("'{}'", p.string());
}

}  // namespace

TEST_CASE("UTF-8 is checked byte by byte -- overlong forms, surrogates and cut sequences",
          "[input]") {
    CHECK(invalid_utf8_at("plain ascii") == std::string_view::npos);
    CHECK(invalid_utf8_at("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") ==
          std::string_view::npos);
    CHECK(invalid_utf8_at("ab\xff") == 2);
    CHECK(invalid_utf8_at("\xc0\xaf") == 0);          // overlong '/'
    CHECK(invalid_utf8_at("\xe0\x80\xaf") == 0);      // overlong, three bytes
    CHECK(invalid_utf8_at("\xed\xa0\x80") == 0);      // a surrogate
    CHECK(invalid_utf8_at("\xf4\x90\x80\x80") == 0);  // past U+10FFFF
    CHECK(invalid_utf8_at("x\xe2\x82") == 1);         // cut short
}

TEST_CASE("an error message is shown whole, past a NUL byte", "[input]") {
    const InputError e("f.yaml", 1, 2, "k", std::string("before\0after", 12));
    CHECK(e.formatted() == "f.yaml:1:2: k: before\\x00after");
}

TEST_CASE("text that is not UTF-8 is refused where it is written, in runs and sweeps",
          "[input][security][system]") {
    const auto dir = temp_dir("hostile-utf8");
    write_text(dir / "u8.yaml", small("bad\xff\xfe"));
    for (const std::string& extra :
         std::vector<std::string>{" --json", " --out " + q(dir / "out")}) {
        const auto r = run_cli("run " + q(dir / "u8.yaml") + extra);
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find("u8.yaml:1:7: name: byte 4 of this text is not UTF-8") !=
              std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(dir / "out"));  // nothing half-written
    write_text(dir / "ok.yaml", small("ok"));
    write_text(dir / "sweep.yaml", "base: ok.yaml\ngrid:\n  name: [\"a\xff\", b]\n");
    const auto s = run_cli("sweep " + q(dir / "sweep.yaml") + " -j 2 --out " + q(dir / "s"));
    INFO(s.err);
    CHECK(s.exit_code == 2);
    CHECK(s.err.find("grid.name[0]: byte 2 of this text is not UTF-8") != std::string::npos);
    // The same from the command line: a --grid value is checked as the file's are.
    write_text(dir / "good.yaml", "base: ok.yaml\ngrid:\n  seed: [1]\n");
    const auto g = run_cli("sweep " + q(dir / "good.yaml") + " --grid 'seed=1,2\xff'");
    CHECK(g.exit_code == 2);
    CHECK(g.err.find("--grid: seed: byte 9 of") != std::string::npos);
    // A control character (here a NUL, which once cut the message) is refused the same way.
    write_text(dir / "nul.yaml", "topology: {kind: \"ft\\0two\"}\n");
    const auto n = run_cli("check " + q(dir / "nul.yaml"));
    CHECK(n.exit_code == 2);
    CHECK(n.err.find("topology.kind: character 3 of this text is the control character U+0000") !=
          std::string::npos);
}

TEST_CASE("a sweep resumes only records of its own points and reruns anything else",
          "[sweep][security][system]") {
    const auto dir = temp_dir("hostile-resume");
    write_text(dir / "a.yaml", small("a", "4KiB"));
    write_text(dir / "sweep.yaml", "base: a.yaml\ngrid:\n  seed: [1, 2]\n");
    const std::string cmd = "sweep " + q(dir / "sweep.yaml") + " --out " + q(dir / "s");
    REQUIRE(run_cli(cmd).exit_code == 0);
    const Json first = Json::parse(read_text(dir / "s" / "results.json"));
    const double small_makespan = first["points"][0]["metrics"]["makespan_us"]["mean"];

    // A different base with the same grid: its old records are not this sweep's.
    write_text(dir / "a.yaml", small("a", "4MiB"));
    auto r = run_cli(cmd);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("the record of another sweep") != std::string::npos);
    CHECK(r.err.find("0 resumed") != std::string::npos);
    const Json second = Json::parse(read_text(dir / "s" / "results.json"));
    CHECK(second["points"][0]["metrics"]["makespan_us"]["mean"].get<double>() >
          100 * small_makespan);

    // Unchanged: both resumed.
    r = run_cli(cmd);
    CHECK(r.err.find("2 resumed") != std::string::npos);

    // Wrong types, null metrics, a status that would inject a CSV row: each rerun, said so.
    auto edit = [&](int point, auto&& change) {
        const auto file = dir / "s" / "points" / fmt::format("{:05}.json", point);
        Json rec = Json::parse(read_text(file));
        change(rec);
        write_text(file, rec.dump());
    };
    edit(0, [](Json& rec) { rec["runs"] = 5; });
    edit(1, [](Json& rec) { rec["status"] = "completed\nX,injected"; });
    r = run_cli(cmd);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("00000.json: a record with bad runs; running point 0 again") !=
          std::string::npos);
    CHECK(r.err.find("00001.json: a record without a known status") != std::string::npos);
    CHECK(lines(read_text(dir / "s" / "results.csv")) == 3);
    edit(0, [](Json& rec) { rec["runs"][0]["metrics"]["makespan_us"] = nullptr; });
    r = run_cli(cmd);
    CHECK(r.err.find("00000.json: a record with a bad metric") != std::string::npos);

    // A FIFO in a record's place is not read (it would block), it is replaced.
    const auto fifo = dir / "s" / "points" / "00000.json";
    std::filesystem::remove(fifo);
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    r = run_cli(cmd);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("not a regular file") != std::string::npos);
    CHECK(std::filesystem::is_regular_file(std::filesystem::symlink_status(fifo)));

    // A folder there cannot be replaced: refused before any point runs, on threads too.
    std::filesystem::remove(fifo);
    std::filesystem::create_directory(fifo);
    r = run_cli(cmd + " -j 2");
    CHECK(r.exit_code == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("is a folder") != std::string::npos);
}

TEST_CASE("a link planted where the old temporary file went is never followed",
          "[output][security]") {
    // The temporary name was .NAME.tmp.<pid>: guessable, and opened without O_EXCL, so a link
    // there made a run overwrite any file the user could write.
    const auto dir = temp_dir("hostile-symlink");
    write_text(dir / "precious.txt", "precious\n");
    std::filesystem::create_directory(dir / "out");
    std::filesystem::create_symlink(
        dir / "precious.txt", dir / "out" / (".results.json.tmp." + std::to_string(getpid())));
    // The target itself a link: replaced by the file, the file it named left alone.
    std::filesystem::create_symlink(dir / "precious.txt", dir / "out" / "links.csv");
    write_file_atomically((dir / "out" / "results.json").string(), "{}\n");
    write_file_atomically((dir / "out" / "links.csv").string(), "a,b\n");
    CHECK(read_text(dir / "precious.txt") == "precious\n");
    CHECK(read_text(dir / "out" / "results.json") == "{}\n");
    CHECK(std::filesystem::is_regular_file(
        std::filesystem::symlink_status(dir / "out" / "links.csv")));
    // Only the two outputs and the planted link remain: no temporary file is left behind.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir / "out"))
        ++entries;
    CHECK(entries == 3);
    // A result file is as readable as the user's umask allows, not 0600 as mkstemp makes it.
    struct stat st {};
    REQUIRE(stat((dir / "out" / "results.json").c_str(), &st) == 0);
    const mode_t mask = umask(0);
    umask(mask);
    CHECK((st.st_mode & 0777) == (0666 & ~mask));
}

TEST_CASE("MoE steps too large to gate are refused at once, by traffic and run",
          "[moe][input][system]") {
    const std::string ds = q(source_path("scenarios/deepseek-v3-decode.yaml"));
    for (const std::string sets :
         {"--set workload.tokens_per_gpu=1000000", "--set workload.tokens_per_gpu=1000000000",
          "--set workload.ep_size=10000000"}) {
        for (const std::string command : {"traffic ", "run "}) {
            const auto r = run_cli(command + ds + " " + sets + " --set sim.max_events=1000");
            INFO(command << sets << ": " << r.err);
            CHECK(r.exit_code == 2);
            CHECK(lines(r.err) == 1);
        }
    }
    // The step's shape is said plainly: EP 3 on eight-GPU nodes is one node, not "0 nodes".
    const auto dir = temp_dir("hostile-ep3");
    write_text(dir / "ep.yaml",
               "topology: {kind: ft2, switch: quantum2, switch_radix: 8, endpoints: 8}\n"
               "model: {name: deepseek-v3}\nworkload: {kind: moe, ep_size: 3}\n");
    const auto c = run_cli("check " + q(dir / "ep.yaml"));
    CHECK(c.err.empty());
    CHECK(c.out.find("EP 3 over 1 node, 1 group(s)") != std::string::npos);
    const auto t = run_cli("traffic " + q(dir / "ep.yaml"));
    CHECK(t.out.find("EP 3 over 1 node, 128 tokens per GPU, 2 micro-batches") != std::string::npos);
}

TEST_CASE("sweep files: sizes, key shapes, repeated keys and line breaks in values",
          "[sweep][input][system]") {
    const auto dir = temp_dir("hostile-sweep-file");
    write_text(dir / "a.yaml", small("a"));
    auto sweep = [&](const std::string& name, const std::string& text,
                     const std::string& extra = "") {
        write_text(dir / name, text);
        return run_cli("sweep " + q(dir / name) + " " + extra);
    };
    std::string grid = "base: a.yaml\ngrid:\n";
    for (const char* k : {"seed", "network.mtu_bytes", "topology.switch_radix",
                          "workload.message_bytes", "network.port_buffer_bytes"}) {
        grid += std::string("  ") + k + ": [";
        for (int i = 1; i <= 100; ++i) grid += std::to_string(i) + (i < 100 ? "," : "]\n");
    }
    auto r = sweep("huge-grid.yaml", grid);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("100 x 100 x 100 x 100 x 100 = 1e+10 points, more than the 1000000") !=
          std::string::npos);
    r = sweep("nonscalar.yaml", "base: a.yaml\ngrid:\n  [seed]: [1, 2]\n");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("nonscalar.yaml:3:3: grid: a key must be a key path") != std::string::npos);
    r = sweep("dup.yaml", "base: a.yaml\ngrid:\n  seed: [1, 2]\n  seed: [3]\n");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("dup.yaml:4:3: grid.seed: swept twice") != std::string::npos);
    r = sweep("dup-top.yaml", "base: a.yaml\nbase: a.yaml\ngrid:\n  seed: [1]\n");
    CHECK(r.err.find("dup-top.yaml:2:1: base: given twice") != std::string::npos);
    r = sweep("zip-grid.yaml", "base: a.yaml\ngrid:\n  seed: [1]\nzip:\n  seed: [2]\n");
    CHECK(r.err.find("zip.seed: swept twice") != std::string::npos);
    // A carriage return (or a line feed) in a value stays inside its quoted CSV field.
    r = sweep("cr.yaml", "base: a.yaml\ngrid:\n  name: [\"a\\rb\", \"c\\nd\", e]\n",
              "--out " + q(dir / "cr"));
    REQUIRE(r.exit_code == 0);
    const std::string csv = read_text(dir / "cr" / "results.csv");
    CHECK(csv.find("\n0,\"a\rb\",") != std::string::npos);
    CHECK(csv.find("\n1,\"c\nd\",") != std::string::npos);
    CHECK(csv.find("\n2,e,") != std::string::npos);
}

TEST_CASE("sweep -j N checks that the points running together fit the memory limit",
          "[sweep][input][system]") {
    // Each 144-GPU decode step needs about 0.29 GB: one fits under 0.5 GB, two at once do not.
    const auto dir = temp_dir("hostile-sweep-memory");
    write_text(dir / "sweep.yaml",
               fmt::format("base: {}\ngrid:\n  sim.max_memory_gb: [0.5]\n  seed: [1, 2, 3]\n",
                           source_path("scenarios/deepseek-v3-decode.yaml")));
    const auto r = run_cli("sweep " + q(dir / "sweep.yaml") + " -j 2 --quiet");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("-j: 2 points at once may need") != std::string::npos);
    CHECK(r.err.find("expected -j 1 or less") != std::string::npos);
}

TEST_CASE("a sweep goes on with the threads the system will start", "[sweep][system]") {
#if defined(__SANITIZE_ADDRESS__)
    SUCCEED("ASan reserves more address space than the limit this test sets");
#else
    // 1,024 thread stacks do not fit 1.5 GB of address space: the sweep once aborted (134).
    require_spawn_allowed();
    const auto dir = temp_dir("hostile-threads");
    write_text(dir / "c.yaml",
               "topology: {kind: ft2, switch: quantum2, switch_radix: 8, endpoints: 8}\n");
    std::string seeds;
    for (int i = 1; i <= 200; ++i) seeds += std::to_string(i) + (i < 200 ? "," : "");
    write_text(dir / "sweep.yaml", "base: c.yaml\ngrid:\n  seed: [" + seeds + "]\n");
    const std::string cmd =
        fmt::format("bash -c 'ulimit -v 1500000; {} sweep {} -j 1024 --quiet' 2>{}",
                    CLUSTERSIM_BINARY, (dir / "sweep.yaml").string(), (dir / "err.txt").string());
    const int status = std::system(cmd.c_str());
    const std::string err = read_text(dir / "err.txt");
    INFO(err);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(err.find("threads asked for could start") != std::string::npos);
#endif
}

TEST_CASE("the default memory limit respects the process's own ulimit", "[input][system]") {
#if defined(__SANITIZE_ADDRESS__)
    SUCCEED("ASan reserves more address space than the limit this test sets");
#else
    // The 2,048-GPU decode step needs about 1 GB: under three quarters of the machine here,
    // over three quarters of a 1 GB address space (0.75 GB). It was judged against the machine
    // alone.
    require_spawn_allowed();
    const auto dir = temp_dir("hostile-ulimit");
    const std::string scenario = source_path("scenarios/moe/deepseek-v3-decode-2048-ft3.yaml");
    const std::string cmd =
        fmt::format("bash -c 'ulimit -v 1000000; {} check {}' >{} 2>{}", CLUSTERSIM_BINARY,
                    scenario, (dir / "out.txt").string(), (dir / "err.txt").string());
    const int status = std::system(cmd.c_str());
    const std::string err = read_text(dir / "err.txt");
    INFO(err);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(err.find("(three quarters of the ulimit -v limit)") != std::string::npos);
#endif
}

TEST_CASE("sweep's exit code: 2 when a point's input is bad, 0 only when every point completed",
          "[sweep][input][system]") {
    const auto dir = temp_dir("hostile-sweep-exit");
    const std::string base =
        "base:\n  cluster: {node: h800}\n  topology: {kind: ft2, endpoints: 32}\n"
        "  workload: {kind: alltoall, message_bytes: 4KiB}\nseeds: 1\n";
    write_text(dir / "good.yaml", base + "grid:\n  topology.endpoints: [16, 32]\n");
    write_text(dir / "bad.yaml", base + "grid:\n  topology.endpoints: [32, 100000]\n");
    CHECK(run_cli("sweep " + q(dir / "good.yaml") + " --quiet").exit_code == 0);
    const auto r = run_cli("sweep " + q(dir / "bad.yaml") + " --quiet");
    CHECK(r.exit_code == 2);
}
