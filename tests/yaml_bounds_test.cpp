#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "support.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/sweep.hpp"

using namespace clustersim;
using namespace clustersim::test;

// Hostile YAML (issue 17, findings 1 and 2): a self-referencing alias crashed every command
// (the duplicate-key walk recursed forever), and nested aliases expanded exponentially.

namespace {

// Nine levels of nine-way aliases: 9^9 nodes from a few hundred bytes.
std::string alias_bomb(int levels) {
    std::string y = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i <= levels; ++i) {
        std::string items;
        for (int k = 0; k < 9; ++k) items += fmt::format("{}*a{}", k ? ", " : "", i - 1);
        y += fmt::format("a{0}: &a{0} [{1}]\n", i, items);
    }
    return y;
}

std::string error_of(const std::string& yaml) {
    try {
        (void)load_scenario_text(yaml, "s.yaml", {});
    } catch (const InputError& e) {
        return e.formatted();
    }
    return "no error";
}

}  // namespace

TEST_CASE("a self-referencing YAML alias is a located input error, not a crash",
          "[input][yaml][security]") {
    const std::string e = error_of("topology: &t {kind: ft2, self: *t}\n");
    INFO(e);
    CHECK(e.rfind("s.yaml:1:", 0) == 0);
    CHECK(e.find("self-referencing alias") != std::string::npos);
    // As a --set value it is refused the same way.
    try {
        (void)load_scenario_text("topology: {kind: ft2}\n", "s.yaml",
                                 {Override{"name", "&n [*n]"}});
        FAIL("accepted");
    } catch (const InputError& err) {
        CHECK(std::string(err.formatted()).find("--set") != std::string::npos);
    }
}

TEST_CASE("an alias bomb is refused once it passes the node budget, at once",
          "[input][yaml][security]") {
    const std::string bomb = alias_bomb(9);
    REQUIRE(bomb.size() < 600);
    const std::string e = error_of(bomb);
    INFO(e);
    CHECK(e.find("more than 1000000 nodes through its aliases") != std::string::npos);
    // Inside a sweep file too.
    const auto dir = temp_dir("yaml-bomb");
    write_text(dir / "sweep.yaml", "base: {topology: {kind: ft2}}\n" + bomb);
    try {
        (void)load_sweep((dir / "sweep.yaml").string(), {});
        FAIL("accepted");
    } catch (const InputError& err) {
        CHECK(std::string(err.formatted()).find("aliases") != std::string::npos);
    }
    // Small alias use stays fine.
    CHECK(error_of("x: &r {kind: ft2}\ntopology: *r\n").find("x: unknown key") !=
          std::string::npos);
}
