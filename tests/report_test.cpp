// report.html opens offline in headless Chromium (Debian's chromium): it renders (the
// screenshot is not blank), every plot is in the page, and nothing is logged -- no script
// error and no blocked request, which the page's Content-Security-Policy would report for any
// attempt to reach the network.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support.hpp"

using namespace clustersim::test;

namespace {

struct Shell {
    int exit_code = -1;
    std::string out;
};

Shell shell(const std::string& cmd, const std::filesystem::path& dir) {
    require_spawn_allowed();
    const auto out = dir / "shell.out";
    const int status = std::system((cmd + " >" + out.string() + " 2>&1").c_str());
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ss.str()};
}

const char* kChromium =
    "chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars "
    "--enable-logging=stderr --v=0 --window-size=1000,2600 ";

// Headless Chromium now and then never exits (a CI run waited 1,500 s on it while the page had
// rendered in seconds before and after): bounded, and tried once more when it was cut off.
Shell chromium(const std::string& args, const std::filesystem::path& dir) {
    const std::string cmd = "timeout -k 10 180 " + std::string(kChromium) + args;
    Shell r = shell(cmd, dir);
    if (r.exit_code == 124 || r.exit_code == 137) r = shell(cmd, dir);
    return r;
}

void check_page(const std::filesystem::path& dir, const std::vector<std::string>& plots) {
    const auto page = dir / "out" / "report.html";
    REQUIRE(std::filesystem::exists(page));
    const std::string url = "file://" + page.string();
    const Shell dom = chromium("--dump-dom " + url, dir);
    REQUIRE(dom.exit_code == 0);
    for (const auto& id : plots) {
        INFO(id);
        const auto at = dom.out.find("id=\"" + id + "\"");
        REQUIRE(at != std::string::npos);
        CHECK(dom.out.find("<svg", at) != std::string::npos);  // the plot itself
    }
    // Console output of any kind (errors, CSP-blocked requests) fails the page.
    CHECK(dom.out.find(":CONSOLE") == std::string::npos);
    const auto shot = dir / "shot.png";
    const Shell png = chromium("--screenshot=" + shot.string() + " " + url, dir);
    REQUIRE(png.exit_code == 0);
    CHECK(png.out.find(":CONSOLE") == std::string::npos);
    // Not blank: the screenshot has many colours (lines, text, bars), counted by Debian's
    // python3 with matplotlib's PNG reader.
    const Shell colours = shell(
        "/usr/bin/python3 -c \"import matplotlib.image as m; import numpy as n; "
        "a = m.imread('" +
            shot.string() +
            "'); "
            "print(len(n.unique((a[:, :, :3] * 255).astype(int).reshape(-1, 3), axis=0)))\"",
        dir);
    REQUIRE(colours.exit_code == 0);
    CHECK(std::stoi(colours.out) > 50);
}

}  // namespace

TEST_CASE("report.html of a MoE run renders every plot offline in headless Chromium",
          "[report][system][long]") {
    const auto dir = temp_dir("report-run");
    const auto r = run_cli("run " + source_path("scenarios/deepseek-v3-decode.yaml") +
                           " --set topology.endpoints=32 --set workload.ep_size=32"
                           " --set workload.redundant_experts=8 --set workload.tokens_per_gpu=8"
                           " --quiet --report --out " +
                           (dir / "out").string());
    REQUIRE(r.exit_code == 0);
    check_page(dir, {"step-breakdown", "layer-all-to-alls", "latency-cdf", "link-utilisation",
                     "nic-load", "node-matrix", "tier-utilisation", "tier-queues", "gpu-timeline",
                     "expert-load", "step-timeline"});
}

TEST_CASE("report.html of a sweep draws its Pareto front", "[report][sweep][system]") {
    const auto dir = temp_dir("report-sweep");
    write_text(dir / "s.yaml",
               "base:\n  cluster: {node: none}\n  topology: {kind: ft2, switch_radix: 8}\n"
               "  workload: {kind: permutation, message_bytes: 64KiB}\n"
               "grid:\n  topology.kind: [ft2, ft3]\n  workload.message_bytes: [16KiB, 64KiB]\n"
               "objective: bandwidth.busbw_GBps\n");
    const auto s =
        run_cli("sweep " + (dir / "s.yaml").string() + " --quiet --out " + (dir / "out").string());
    REQUIRE(s.exit_code == 0);
    const auto r = run_cli("report " + (dir / "out").string());
    REQUIRE(r.exit_code == 0);
    check_page(dir, {"pareto"});
}

TEST_CASE("report escapes what the results say, and is byte-reproducible",
          "[report][security][system]") {
    const auto dir = temp_dir("report-hostile");
    write_text(dir / "a.yaml",
               "cluster: {node: none}\ntopology: {kind: ft2, switch_radix: 8}\n"
               "workload: {kind: permutation, message_bytes: 16KiB}\n");
    write_text(dir / "s.yaml",
               "base: a.yaml\ngrid:\n  seed: [1, 2]\nobjective: bandwidth.busbw_GBps\n");
    REQUIRE(
        run_cli("sweep " + (dir / "s.yaml").string() + " --quiet --out " + (dir / "out").string())
            .exit_code == 0);
    // A results.json edited to carry markup in its goal and objective: shown as text.
    std::string results = read_text(dir / "out" / "results.json");
    const std::string goal = "\"goal\": \"max\"";
    REQUIRE(results.find(goal) != std::string::npos);
    results.replace(results.find(goal), goal.size(),
                    "\"goal\": \"<img src=x onerror=alert(1)><script>alert(2)</script>"
                    "<a href=http://example.com>x</a>\"");
    write_text(dir / "out" / "results.json", results);
    REQUIRE(run_cli("report " + (dir / "out").string()).exit_code == 0);
    const std::string page = read_text(dir / "out" / "report.html");
    CHECK(page.find("<img src=x") == std::string::npos);
    CHECK(page.find("<script>") == std::string::npos);
    CHECK(page.find("<a href=http") == std::string::npos);
    CHECK(page.find("&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
    // The same folder gives the same bytes (matplotlib's SVG ids and date pinned).
    REQUIRE(run_cli("report " + (dir / "out").string()).exit_code == 0);
    CHECK(read_text(dir / "out" / "report.html") == page);
}

namespace {
// 2,000 all-to-alls, each naming expert 65535: 131 M heatmap cells from a 60 kB file.
std::string dense_experts() {
    std::string t = "pass,layer,micro_batch,group,expert,gpu,tokens\n";
    for (int layer = 0; layer < 2000; ++layer)
        t += "forward," + std::to_string(layer) + ",0,0,65535,0,1\n";
    return t;
}
}  // namespace

TEST_CASE("report refuses a corrupt folder in one located line, never a traceback",
          "[report][input][system]") {
    const auto base = temp_dir("report-corrupt");
    write_text(base / "a.yaml",
               "cluster: {node: none}\ntopology: {kind: ft2, switch_radix: 8}\n"
               "workload: {kind: alltoall, message_bytes: 4KiB}\n");
    REQUIRE(
        run_cli("run " + (base / "a.yaml").string() + " --quiet --out " + (base / "run").string())
            .exit_code == 0);
    struct Variant {
        std::string name, file, content;  // content "LINK:target", "FIFO" or text
        std::string expect;
    };
    const std::vector<Variant> variants = {
        {"points-number", "results.json", "{\"points\": 5}",
         "results.json: points: expected a list"},
        {"list", "results.json", "[]", "results.json: expected a JSON object"},
        {"not-json", "results.json", "{\"scenario\": ", "results.json:1:1: not JSON"},
        {"nan", "results.json", "{\"messages\": {\"count\": NaN}}", "not JSON clustersim wrote"},
        {"deep", "results.json", std::string(100000, '[') + std::string(100000, ']'),
         "results.json"},
        {"bad-type", "results.json", "{\"topology\": {\"cost_usd\": \"cheap\"}}",
         "results.json: cost_usd: expected a number"},
        {"not-utf8", "results.json", "{\"scenario\": \"\xff\"}", "not UTF-8"},
        {"dev-zero", "messages.csv", "LINK:/dev/zero", "messages.csv: is a link"},
        {"fifo", "links.csv", "FIFO", "links.csv: is not a regular file"},
        {"missing-column", "nics.csv", "kind,index\nnic,0\n", "nics.csv:1:1: no column bytes_sent"},
        {"bad-number", "links.csv", "tier,bytes,utilisation\nleaf,x,0.5\n",
         "links.csv:2:1: bytes: 'x' is not a number"},
        {"short-row", "messages.csv", "id,latency_us\n1\n", "messages.csv:2:1: 1 fields"},
        {"trace-types", "trace.json",
         "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"dispatch\", "
         "\"ts\": \"soon\"}]}",
         "trace.json: ts: expected a number"},
        {"missing", "nics.csv", "", "nics.csv: missing"},
        // The decode pictures' files: a time matplotlib cannot scale, an unknown state, and a
        // tiny file that names a huge heatmap.
        {"huge-time", "tiers.csv",
         "time_us,period_us,tier,utilisation,max_queue_bytes\n1e308,1,leaf-spine,0.5,0\n",
         "tiers.csv:2:1: time_us: 1e308 is out of range"},
        {"bad-state", "gpu_timeline.csv", "gpu,state,start_us,end_us,stage\n0,napping,0,1,\n",
         "gpu_timeline.csv:2:1: state: 'napping'"},
        {"dense-experts", "experts.csv", dense_experts(), "2000 all-to-alls x 65536 experts"},
    };
    for (const auto& v : variants) {
        const auto dir = base / v.name;
        std::filesystem::copy(base / "run", dir);
        const auto target = dir / v.file;
        std::filesystem::remove(target);
        if (v.content.rfind("LINK:", 0) == 0)
            std::filesystem::create_symlink(v.content.substr(5), target);
        else if (v.content == "FIFO")
            REQUIRE(mkfifo(target.c_str(), 0600) == 0);
        else if (!v.content.empty() || v.name != "missing")
            write_text(target, v.content);
        const auto r = run_cli("report " + dir.string());
        INFO(v.name << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.err.find("Traceback") == std::string::npos);
        CHECK(r.err.find(v.expect) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir / "report.html"));
    }
}

TEST_CASE("report of several runs draws them side by side in compare.html",
          "[report][system][long]") {
    const auto dir = temp_dir("report-compare");
    const std::string scen = source_path("scenarios/deepseek-v3-decode.yaml") +
                             " --set topology.endpoints=32 --set workload.ep_size=32"
                             " --set workload.tokens_per_gpu=8 --set workload.simulated_layers=2"
                             " --quiet --out ";
    REQUIRE(run_cli("run " + scen + (dir / "out").string()).exit_code == 0);
    REQUIRE(run_cli("run " + scen + (dir / "late").string() + " --set network.extra_latency_us=100")
                .exit_code == 0);
    const auto r = run_cli("report " + (dir / "out").string() + " " + (dir / "late").string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("compare.html") != std::string::npos);
    // compare.html in the first folder, its own report.html untouched (there is none).
    CHECK_FALSE(std::filesystem::exists(dir / "out" / "report.html"));
    std::filesystem::copy_file(dir / "out" / "compare.html", dir / "out" / "report.html");
    check_page(dir, {"compare-step", "compare-latency", "compare-layers"});
    const std::string page = read_text(dir / "out" / "compare.html");
    CHECK(page.find("<th>late</th>") != std::string::npos);
    CHECK(page.find("(+") != std::string::npos);  // the second run's relative difference
}
