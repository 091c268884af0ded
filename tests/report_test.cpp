// report.html opens offline in headless Chromium (Debian's chromium): it renders (the
// screenshot is not blank), every plot is in the page, and nothing is logged -- no script
// error and no blocked request, which the page's Content-Security-Policy would report for any
// attempt to reach the network.
#include <catch2/catch.hpp>

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

void check_page(const std::filesystem::path& dir, const std::vector<std::string>& plots) {
    const auto page = dir / "out" / "report.html";
    REQUIRE(std::filesystem::exists(page));
    const std::string url = "file://" + page.string();
    const Shell dom = shell(std::string(kChromium) + "--dump-dom " + url, dir);
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
    const Shell png =
        shell(std::string(kChromium) + "--screenshot=" + shot.string() + " " + url, dir);
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
          "[report][system]") {
    const auto dir = temp_dir("report-run");
    const auto r = run_cli("run " + source_path("scenarios/deepseek-v3-decode.yaml") +
                           " --set topology.endpoints=32 --set workload.ep_size=32"
                           " --set workload.redundant_experts=8 --set workload.tokens_per_gpu=8"
                           " --quiet --report --out " +
                           (dir / "out").string());
    REQUIRE(r.exit_code == 0);
    check_page(dir, {"latency-cdf", "link-utilisation", "nic-load", "step-timeline"});
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
