#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "support.hpp"
#include "tools/scenario/availability.hpp"
#include "tools/scenario/availability_days.hpp"
#include "tools/scenario/scenario.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

ComponentGroup group(ComponentClass c, std::uint64_t count, double per_year, double repair_h) {
    return {c, "", count, per_year / (365.0 * 24.0), repair_h, {}};
}

DayOptions days(std::uint32_t n, std::uint64_t seed = 1) {
    DayOptions o;
    o.days = n;
    o.seed = seed;
    o.max_modes = 1000;
    return o;
}

// Tokens/s falling by 10 per part out, never stopping: no restarts.
double linear(const FailureMode& m) {
    std::uint32_t out = 0;
    for (auto k : m) out += k;
    return std::max(1.0, 100.0 - 10.0 * out);
}

}  // namespace

TEST_CASE("with every failure rate 0 the expected throughput is the healthy one, exactly",
          "[availability]") {
    const std::vector<ComponentGroup> g = {group(ComponentClass::Cable, 1000, 0, 4),
                                           group(ComponentClass::Gpu, 256, 0, 24)};
    int asked = 0;
    const auto est = estimate_availability(g, days(500), [&](const FailureMode& m) {
        ++asked;
        return linear(m);
    });
    CHECK(asked == 1);
    CHECK(est.mean_tokens_per_s == 100.0);
    CHECK(est.se_tokens_per_s == 0.0);
    CHECK(est.degraded_hours == 0.0);
    CHECK(est.down_hours == 0.0);
    REQUIRE(est.modes.size() == 1);
    CHECK(est.modes[0].hours == Approx(500 * 24.0));
    CHECK(sampled_modes(g, days(500)).size() == 1);
}

TEST_CASE("one class failing: the mix equals the rate-weighted hand computation",
          "[availability]") {
    // 400 cables failing 2 times a year each, 4 h out: parts out at any time are Poisson with
    // mean n x rate x repair (an infinite-server queue), 400 x 2 / 8760 x 4 = 0.3653. Each part
    // out costs 10 tokens/s, so the expected rate is 100 - 10 x 0.3653 = 96.347.
    const std::vector<ComponentGroup> g = {group(ComponentClass::Cable, 400, 2, 4)};
    const double mean_out = 400 * 2.0 / 8760.0 * 4.0;
    const auto est = estimate_availability(g, days(4000), linear);
    INFO("mean " << est.mean_tokens_per_s << " se " << est.se_tokens_per_s);
    CHECK(est.se_tokens_per_s > 0);
    CHECK(std::abs(est.mean_tokens_per_s - (100.0 - 10.0 * mean_out)) < 3 * est.se_tokens_per_s);
    // Time with some part out: 1 - P(none) = 1 - exp(-0.3653) of the day.
    CHECK(est.degraded_hours == Approx(24.0 * (1 - std::exp(-mean_out))).epsilon(0.03));
    CHECK(est.down_hours == 0.0);
    CHECK(est.restarts == 0.0);
    // Each mode's hours are what its Poisson probability gives.
    for (const ModeTally& t : est.modes) {
        const double k = t.mode[0];
        const double p = std::exp(-mean_out) * std::pow(mean_out, k) / std::tgamma(k + 1);
        if (p > 0.01) CHECK(t.hours / (4000 * 24.0) == Approx(p).epsilon(0.05));
    }
}

TEST_CASE("a failure that stops the instance costs a restart, not the repair", "[availability]") {
    // 256 GPUs failing 0.5 a year, out 24 h, but the instance restarts on spares in 20 min:
    // down 256 x 0.5 / 8760 x 1/3 h of every hour.
    const std::vector<ComponentGroup> g = {group(ComponentClass::Gpu, 256, 0.5, 24)};
    auto stops = [](const FailureMode& m) { return m[0] > 0 ? 0.0 : 100.0; };
    const auto est = estimate_availability(g, days(4000), stops);
    const double rate_per_h = 256 * 0.5 / 8760.0;
    INFO("mean " << est.mean_tokens_per_s << " se " << est.se_tokens_per_s);
    CHECK(est.restarts == Approx(rate_per_h * 24).epsilon(0.05));
    CHECK(est.down_hours == Approx(rate_per_h * 24 / 3.0).epsilon(0.06));
    CHECK(est.restart_hours == est.down_hours);
    CHECK(est.degraded_hours == 0.0);
    // A restart overlapping another failure rarely matters here: within the error.
    CHECK(std::abs(est.mean_tokens_per_s - 100.0 * (1 - rate_per_h / 3.0)) <
          3 * est.se_tokens_per_s + 0.01);
    // Without the restart the same failures would be down for their whole repair.
    DayOptions no_restart = days(4000);
    no_restart.restart_hours = 24;
    const auto slow = estimate_availability(g, no_restart, stops);
    CHECK(slow.down_hours > 20 * est.down_hours);
}

TEST_CASE("restart_below restarts an instance left too slow, and not one left fast enough",
          "[availability]") {
    const std::vector<ComponentGroup> g = {group(ComponentClass::Cable, 400, 2, 4)};
    auto halves = [](const FailureMode& m) { return m[0] > 0 ? 40.0 : 100.0; };
    DayOptions o = days(1000);
    o.restart_below = 0.3;  // 40 % is enough: it runs degraded
    const auto keep = estimate_availability(g, o, halves);
    CHECK(keep.restarts == 0.0);
    CHECK(keep.degraded_hours > 0);
    o.restart_below = 0.5;  // 40 % is not: it restarts, serving nothing for 20 min
    const auto restart = estimate_availability(g, o, halves);
    CHECK(restart.restarts > 0);
    CHECK(restart.degraded_hours == 0.0);  // every failure restarts, none is run degraded
    CHECK(restart.down_hours == Approx(restart.restarts / 3.0).epsilon(0.05));
}

TEST_CASE("several instances: a part stops only the instances it serves, each restarting alone",
          "[availability]") {
    // 2,048 GPUs in 8 instances of 256, failing 0.5 a year each, and a lost GPU stops its own
    // instance for the 20-minute restart. Each instance's stops are a Poisson process of 256 x
    // 0.5 / 8760 an hour, each adding one restart of work (a failure during a restart restarts
    // it again): an M/D/1 server busy for rate x restart of the time. So the cluster is down an
    // eighth of what one instance of 2,048 would be.
    auto gpus = group(ComponentClass::Gpu, 2048, 0.5, 24);
    for (std::uint32_t j = 0; j < 2048; ++j) gpus.member_instances.push_back({j / 256});
    auto stops = [](const FailureMode& m) { return m[0] > 0 ? 0.0 : 100.0; };
    DayOptions o = days(2000);
    o.instances = 8;
    const std::vector<ComponentGroup> g = {gpus};
    const auto eight = estimate_availability(g, o, stops);
    const double per_instance_h = 256 * 0.5 / 8760.0;
    INFO("mean " << eight.mean_tokens_per_s << " se " << eight.se_tokens_per_s);
    CHECK(eight.restarts == Approx(8 * per_instance_h * 24).epsilon(0.05));
    CHECK(eight.down_hours == Approx(per_instance_h / 3.0 * 24).epsilon(0.06));
    CHECK(std::abs(eight.mean_tokens_per_s - 100.0 * (1 - per_instance_h / 3.0)) <
          3 * eight.se_tokens_per_s + 0.01);
    // One instance of the same GPUs: every failure stops everything, about eight times the loss.
    DayOptions one = days(2000);
    const std::vector<ComponentGroup> whole = {group(ComponentClass::Gpu, 2048, 0.5, 24)};
    const auto single = estimate_availability(whole, one, stops);
    CHECK(single.down_hours / eight.down_hours == Approx(8.0).epsilon(0.1));
    // The modes asked are one instance's: healthy and one GPU out (two at once are rare).
    CHECK(eight.modes.size() <= sampled_modes(g, o).size());
    for (const ModeTally& t : eight.modes) CHECK(t.mode[0] <= 2);
}

TEST_CASE("several instances sharing every part deliver what one instance does, exactly",
          "[availability]") {
    // Cables serving every instance (a spine's) degrade them all alike, and nodes serving every
    // instance (spread placement) stop them all at once: eight instances are then one.
    auto cables = group(ComponentClass::Cable, 400, 4, 4);
    auto nodes = group(ComponentClass::Node, 32, 20, 24);
    for (std::uint32_t j = 0; j < 32; ++j)
        nodes.member_instances.push_back({0, 1, 2, 3, 4, 5, 6, 7});
    const std::vector<ComponentGroup> g = {cables, nodes};
    auto rate = [](const FailureMode& m) { return m[1] > 0 ? 0.0 : linear(m); };
    DayOptions o = days(500);
    const auto one = estimate_availability(g, o, rate);
    o.instances = 8;
    const auto eight = estimate_availability(g, o, rate);
    CHECK(one.restarts > 0);
    CHECK(one.degraded_hours > 0);
    CHECK(eight.mean_tokens_per_s == Approx(one.mean_tokens_per_s).epsilon(1e-12));
    CHECK(eight.down_hours == Approx(one.down_hours).epsilon(1e-12));
    CHECK(eight.degraded_hours == Approx(one.degraded_hours).epsilon(1e-12));
    CHECK(eight.restarts == Approx(8 * one.restarts).epsilon(1e-12));
    CHECK(eight.modes.size() == one.modes.size());
}

TEST_CASE("several instances: the modes counted before running bound those asked",
          "[availability]") {
    // Shared cables beside local nodes that fail so often that restarts leave them behind: each
    // instance's remainders are counted.
    auto cables = group(ComponentClass::Cable, 400, 8, 4);
    auto nodes = group(ComponentClass::Node, 32, 200, 24);
    for (std::uint32_t j = 0; j < 32; ++j) nodes.member_instances.push_back({j % 4});
    const std::vector<ComponentGroup> g = {cables, nodes};
    DayOptions o = days(300);
    o.instances = 4;
    auto stops_on_node = [](const FailureMode& m) { return m[1] > 0 ? 0.0 : linear(m); };
    const auto est = estimate_availability(g, o, stops_on_node);
    const auto counted = sampled_modes(g, o);
    CHECK(est.restarts > 0);
    for (const ModeTally& t : est.modes)
        CHECK(std::find(counted.begin(), counted.end(), t.mode) != counted.end());
}

TEST_CASE("the sampling is reproducible from its seed and its error shrinks as days grow",
          "[availability]") {
    const std::vector<ComponentGroup> g = {group(ComponentClass::Cable, 400, 2, 4),
                                           group(ComponentClass::Gpu, 256, 0.1, 24)};
    const auto a = estimate_availability(g, days(1000, 7), linear);
    const auto b = estimate_availability(g, days(1000, 7), linear);
    const auto c = estimate_availability(g, days(1000, 8), linear);
    CHECK(a.mean_tokens_per_s == b.mean_tokens_per_s);
    CHECK(a.se_tokens_per_s == b.se_tokens_per_s);
    CHECK(a.mean_tokens_per_s != c.mean_tokens_per_s);
    // Four times the days: half the standard error.
    const auto d = estimate_availability(g, days(4000, 7), linear);
    CHECK(d.se_tokens_per_s / a.se_tokens_per_s == Approx(0.5).margin(0.1));
}

TEST_CASE("the modes counted before running bound the modes the days ask for", "[availability]") {
    // Restarts leave the parts that failed after them: modes the days meet only after a
    // restart, or before the period's start, are counted too.
    // Nodes fail so often (17.5 out at a time on average) that cables alone are out only
    // after a restart has left the nodes behind.
    const std::vector<ComponentGroup> g = {group(ComponentClass::Cable, 400, 8, 4),
                                           group(ComponentClass::Node, 32, 200, 24),
                                           group(ComponentClass::Gpu, 256, 0, 0)};
    bool cables_alone = false;
    for (double restart_h : {0.0, 1.0 / 3.0, 3.0}) {
        DayOptions o = days(300);
        o.restart_hours = restart_h;
        auto stops_on_node = [](const FailureMode& m) { return m[1] > 0 ? 0.0 : linear(m); };
        const auto est = estimate_availability(g, o, stops_on_node);
        const auto counted = sampled_modes(g, o);
        INFO("restart " << restart_h << " h: asked " << est.modes.size() << ", counted "
                        << counted.size());
        CHECK(est.modes.size() <= counted.size());
        for (const ModeTally& t : est.modes) {
            CHECK(std::find(counted.begin(), counted.end(), t.mode) != counted.end());
            cables_alone = cables_alone || (t.mode[0] > 0 && t.mode[1] == 0);
        }
        CHECK(est.restarts > 0);
    }
    CHECK(cables_alone);
}

TEST_CASE("each stretch in a mode and each restart it causes is counted once", "[availability]") {
    // One part, failing about once a day: the healthy stretches number the failures' gaps, and
    // every failure is one occurrence of the failed mode (served, or restarted).
    const std::vector<ComponentGroup> g = {group(ComponentClass::Node, 1, 365, 2)};
    for (double stop : {0.0, 1.0}) {
        auto rate = [&](const FailureMode& m) { return m[0] > 0 ? 50.0 * stop : 100.0; };
        const auto est = estimate_availability(g, days(2000), rate);
        REQUIRE(est.modes.size() == 2);
        const ModeTally& failed = est.modes[1];
        const double per_day = static_cast<double>(failed.occurrences + failed.restarts) / 2000;
        INFO("stop " << stop << ": " << failed.occurrences << " stretches, " << failed.restarts
                     << " restarts");
        CHECK(per_day == Approx(1.0).epsilon(0.06));
        CHECK((stop == 0.0 ? failed.occurrences : failed.restarts) == 0);
        // A restart is as long as it is, clipped only at the period's ends.
        if (stop == 0.0)
            CHECK(failed.restart_hours / static_cast<double>(failed.restarts) ==
                  Approx(1.0 / 3.0).epsilon(0.02));
    }
}

TEST_CASE("more distinct modes than max_modes are refused, before and while running",
          "[availability]") {
    const std::vector<ComponentGroup> g = {group(ComponentClass::Cable, 400, 20, 4)};
    DayOptions o = days(200);
    CHECK(sampled_modes(g, o).size() > 3);
    o.max_modes = 3;
    CHECK_THROWS_AS(estimate_availability(g, o, linear), TooManyModes);
}

namespace {

const std::string kSmall =
    "name: small\nseed: 1\nmodel: {name: deepseek-v3}\ncluster: {node: h800}\n"
    "topology: {kind: dual-plane, endpoints: 16}\n"
    "workload: {kind: moe, phase: decode, ep_size: 16, tokens_per_gpu: 8, simulated_layers: 2}\n";

// The scenario written to its own folder, and loaded.
struct Written {
    std::string file;
    Scenario scenario;
};
Written load_text(const std::string& name, const std::string& yaml) {
    const auto dir = temp_dir("availability-" + name);
    write_text(dir / "s.yaml", yaml);
    const std::string file = (dir / "s.yaml").string();
    return {file, load_scenario(file, {})};
}

const std::string kNoFailures =
    "  cable: {per_year: 0}\n  switch: {per_year: 0}\n  nic: {per_year: 0}\n"
    "  gpu: {per_year: 0}\n  node: {per_year: 0}\n";

}  // namespace

TEST_CASE("availability with no failures delivers exactly what run gives the step",
          "[availability][system]") {
    const Written w = load_text("none", kSmall + "availability:\n  days: 50\n" + kNoFailures);
    const Json a = run_availability(w.scenario, false);
    const auto r = run_cli("run " + w.file + " --json --quiet");
    REQUIRE(r.exit_code == 0);
    const Json plain = Json::parse(r.out);
    // Equal but for the rounding of a mean over the days.
    CHECK(a["availability"]["tokens_per_s_per_gpu"].get<double>() ==
          Approx(plain["decode"]["tokens_per_s_per_gpu"].get<double>()).epsilon(1e-12));
    CHECK(a["availability"]["healthy_tokens_per_s_per_gpu"].get<double>() ==
          plain["decode"]["tokens_per_s_per_gpu"].get<double>());
    CHECK(a["availability"]["delivered_fraction"].get<double>() == Approx(1.0).epsilon(1e-12));
    CHECK(a["availability"]["mode_simulations"] == 1);
}

TEST_CASE("one class failing on a small fabric: the runs' rates mixed by hand",
          "[availability][system]") {
    // Only cables fail, 3 a year each, 4 h out: the dual-plane NICs keep their other port, so
    // each mode is degraded, not stopped. The expected rate by hand: each mode's simulated
    // rate weighted by its Poisson probability (n x rate x repair parts out on average).
    const Scenario s = load_text("cables", kSmall +
                                               "availability:\n  days: 2000\n  cable: "
                                               "{per_year: 3}\n  switch: {per_year: 0}\n  "
                                               "nic: {per_year: 0}\n  gpu: {per_year: 0}\n  "
                                               "node: {per_year: 0}\n")
                           .scenario;
    const Json r = run_availability(s, false);
    const Json& a = r["availability"];
    REQUIRE(a["groups"].size() >= 1);
    double cables = 0;
    for (const auto& g : a["groups"])
        if (g["class"] == "cable") cables += g["count"].get<double>();
    const double mean_out = cables * 3.0 / 8760.0 * 4.0;
    double hand = 0, covered = 0;
    for (const auto& m : a["modes"]) {
        double k = 0;
        for (const auto& [label, n] : m["parts_out"].items()) k += n.get<double>();
        const double p = std::exp(-mean_out) * std::pow(mean_out, k) / std::tgamma(k + 1);
        hand += p * m["tokens_per_s_per_gpu"].get<double>();
        covered += p;
        CHECK(m["status"] == "completed");
    }
    INFO("hand " << hand << " covered " << covered << " tool " << a["tokens_per_s_per_gpu"]);
    REQUIRE(covered > 0.999);
    const double healthy = a["healthy_tokens_per_s_per_gpu"].get<double>();
    CHECK(a["tokens_per_s_per_gpu"].get<double>() < healthy);  // a cable lost costs something
    CHECK(std::abs(a["tokens_per_s_per_gpu"].get<double>() - hand) <
          3 * a["tokens_per_s_per_gpu_se"].get<double>() + (1 - covered) * healthy);
}

TEST_CASE("a degraded mode's rate is the faults machinery's run with its representative",
          "[availability][system]") {
    const Written w =
        load_text("mode", kSmall +
                              "availability:\n  days: 300\n  cable: {per_year: 3}\n  switch: "
                              "{per_year: 0}\n  nic: {per_year: 0}\n  gpu: {per_year: 0}\n  "
                              "node: {per_year: 0}\n");
    const Json r = run_availability(w.scenario, false);
    const Json* one = nullptr;
    for (const auto& m : r["availability"]["modes"])
        if (m["faults"].size() == 1) one = &m;
    REQUIRE(one != nullptr);
    // `link_down switch-a-nic-b#k`: the same cable as a faults: entry, with the ACKs the
    // availability runs keep on.
    const std::string text = (*one)["faults"][0].get<std::string>();
    const auto names = text.substr(text.find(' ') + 1);
    const auto dash = names.find('-', names.find('-') + 1);
    const auto hash = names.find('#');
    const std::string a = names.substr(0, dash), b = names.substr(dash + 1, hash - dash - 1);
    const auto r2 = run_cli("run " + w.file +
                            " --json --quiet --set 'faults=[{kind: "
                            "link_down, target: {link: [" +
                            a + ", " + b + "], index: " + names.substr(hash + 1) + "}}]'");
    INFO(r2.err);
    REQUIRE(r2.exit_code == 0);
    const Json plain = Json::parse(r2.out);
    CHECK((*one)["tokens_per_s_per_gpu"].get<double>() ==
          plain["decode"]["tokens_per_s_per_gpu"].get<double>());
}

TEST_CASE(
    "several EP groups on a small fabric: a lost GPU stops its own instance, a lost node "
    "those it holds",
    "[availability][system]") {
    // Two EP16 instances on 32 GPUs. GPUs failing 100 a year each: every instance's stops are
    // a Poisson process of 16 x 100 / 8760 an hour, each 20 minutes down (an M/D/1 server's
    // busy time), and no mode but the healthy one is a run.
    const std::string two =
        "name: two\nseed: 1\nmodel: {name: deepseek-v3}\ncluster: {node: h800}\n"
        "topology: {kind: dual-plane, endpoints: 32}\n"
        "workload: {kind: moe, phase: decode, ep_size: 16, ep_groups: 2, tokens_per_gpu: 8, "
        "simulated_layers: 2";
    const std::string only_gpus =
        "availability:\n  days: 400\n  cable: {per_year: 0}\n  switch: {per_year: 0}\n  nic: "
        "{per_year: 0}\n  gpu: {per_year: 100}\n  node: {per_year: 0}\n";
    const Json r = run_availability(load_text("two", two + "}\n" + only_gpus).scenario, false);
    const Json& a = r["availability"];
    CHECK(a["instances"] == 2);
    CHECK(a["gpus"].get<double>() == 32);
    const double stops_per_h = 16 * 100.0 / 8760.0;
    const double se = a["tokens_per_s_per_gpu_se"].get<double>() /
                      a["healthy_tokens_per_s_per_gpu"].get<double>();
    CHECK(std::abs(a["delivered_fraction"].get<double>() - (1 - stops_per_h / 3.0)) <
          3 * se + 1e-4);
    CHECK(a["restarts_per_day"].get<double>() == Approx(2 * stops_per_h * 24).epsilon(0.05));
    CHECK(a["modes_met"].get<int>() >= 2);
    CHECK(a["mode_simulations"] == 1);  // the healthy run alone
    for (const auto& m : a["modes"]) {
        const bool healthy = m["mode"] == "healthy";
        CHECK(m["simulated"] == healthy);
        if (!healthy) CHECK(m["status"] == "failed");
    }
    // Nodes: packed, each holds one instance's GPUs; spread (rank r of group g on GPU 2r + g),
    // each holds both, and a lost node stops both instances.
    const std::string only_nodes =
        "availability:\n  days: 400\n  cable: {per_year: 0}\n  switch: {per_year: 0}\n  nic: "
        "{per_year: 0}\n  gpu: {per_year: 0}\n  node: {per_year: 100}\n";
    auto restarts_per_node_failure = [&](const std::string& placement) {
        const Json x = run_availability(
            load_text("two-" + placement, two + ", ep_placement: " + placement + "}\n" + only_nodes)
                .scenario,
            false);
        const Json& b = x["availability"];
        for (const auto& g : b["groups"])
            if (g["class"] == "node")
                return b["restarts_per_day"].get<double>() / g["failures_per_day"].get<double>();
        return 0.0;
    };
    CHECK(restarts_per_node_failure("packed") == Approx(1.0).epsilon(0.08));
    CHECK(restarts_per_node_failure("spread") == Approx(2.0).epsilon(0.08));
}

TEST_CASE("a fat tree's leaf and its cables serve their nodes' instances, a spine every one",
          "[availability][system]") {
    // FT2 of radix 8 on 32 GPUs: eight leaves of four NICs, two EP16 instances. Packed, a leaf
    // holds one instance's NICs; spread (rank r of group g on GPU 2r + g), both.
    for (const std::string placement : {"packed", "spread"}) {
        const Json r = run_availability(
            load_text("leaf-" + placement,
                      "name: leaf\nseed: 1\nmodel: {name: deepseek-v3}\ncluster: {node: h800}\n"
                      "topology: {kind: ft2, switch_radix: 8, endpoints: 32}\n"
                      "workload: {kind: moe, phase: decode, ep_size: 16, ep_groups: 2, "
                      "tokens_per_gpu: 8, simulated_layers: 2, ep_placement: " +
                          placement + "}\navailability:\n  days: 2\n" + kNoFailures)
                .scenario,
            false);
        std::map<std::string, double> served;
        for (const auto& g : r["availability"]["groups"])
            served[g["class"].get<std::string>() + " " + g["tier"].get<std::string>()] =
                g["instances_per_part"].get<double>();
        INFO(placement);
        const double leaf = placement == "packed" ? 1.0 : 2.0;
        CHECK(served.at("switch leaf") == leaf);
        CHECK(served.at("cable leaf-spine") == leaf);
        CHECK(served.at("switch spine") == 2.0);
        CHECK(served.at("cable nic-leaf") == 1.0);
        CHECK(served.at("gpu ") == 1.0);
        CHECK(served.at("node ") == (placement == "packed" ? 1.0 : 2.0));
    }
}

TEST_CASE(
    "with several instances a part that cuts a NIC off stops its instance without a run, "
    "as the faults machinery's run would",
    "[availability][system]") {
    // FT2 of radix 8, one cable per NIC: a lost NIC-leaf cable cuts its NIC off; a leaf-spine
    // cable only narrows the leaf's way up.
    const std::string yaml =
        "name: cut\nseed: 1\nmodel: {name: deepseek-v3}\ncluster: {node: h800}\n"
        "topology: {kind: ft2, switch_radix: 8, endpoints: 32}\n"
        "workload: {kind: moe, phase: decode, ep_size: 16, ep_groups: 2, tokens_per_gpu: 8, "
        "simulated_layers: 2}\n";
    const Written w = load_text(
        "cut", yaml +
                   "availability:\n  days: 40\n  cable: {per_year: 40}\n  switch: {per_year: 0}\n"
                   "  nic: {per_year: 0}\n  gpu: {per_year: 0}\n  node: {per_year: 0}\n");
    const Json r = run_availability(w.scenario, false);
    const Json* cut = nullptr;
    bool narrowed = false;
    for (const auto& m : r["availability"]["modes"]) {
        if (m["mode"] == "cable nic-leaf x1") cut = &m;
        if (m["mode"] == "cable leaf-spine x1") {
            narrowed = true;
            CHECK(m["simulated"] == true);
            CHECK(m["status"] == "completed");
        }
    }
    CHECK(narrowed);
    REQUIRE(cut != nullptr);
    CHECK((*cut)["simulated"] == false);
    // Its representative is a cable of instance 0 (packed: NICs 0 to 15), whatever the seeded
    // order of the cables.
    for (const std::string seed : {"1", "2", "3", "4", "5", "6"}) {
        Scenario reseeded = w.scenario;
        reseeded.seed = std::stoull(seed);
        const Json x = run_availability(reseeded, false);
        for (const auto& m : x["availability"]["modes"])
            if (m["mode"] == "cable nic-leaf x1") {
                const std::string rep = m["faults"][0].get<std::string>();
                const auto nic_at = rep.find("nic-");
                REQUIRE(nic_at != std::string::npos);
                INFO("seed " << seed << ": " << rep);
                CHECK(std::stoul(rep.substr(nic_at + 4)) < 16);
            }
    }
    CHECK((*cut)["tokens_per_s_per_gpu"].get<double>() == 0.0);
    // The same cable as a faults: entry: the run does not complete.
    const std::string text = (*cut)["faults"][0].get<std::string>();  // link_down a-b#k
    const auto names = text.substr(text.find(' ') + 1);
    const auto dash = names.find('-', names.find('-') + 1);
    const auto hash = names.find('#');
    const auto run = run_cli(
        "run " + w.file + " --json --quiet " + "--set 'faults=[{kind: link_down, target: {link: [" +
        names.substr(0, dash) + ", " + names.substr(dash + 1, hash - dash - 1) +
        "], index: " + names.substr(hash + 1) + "}}]'");
    INFO(run.err);
    CHECK(run.exit_code == 3);
}

TEST_CASE("the parts an instance depends on: NICs shared by GPU pairs, idle GPUs serving none",
          "[availability][system]") {
    // a100-pcie: four NICs to eight GPUs (NIC n of a node serves GPUs 2n and 2n + 1). 24 NICs
    // (topology.endpoints) are 48 GPUs; two packed EP16 instances on the first 32: the last 16
    // GPUs, their two nodes and eight NICs are idle.
    const Json r = run_availability(
        load_text("pairs",
                  "name: pairs\nseed: 1\nmodel: {name: deepseek-v3}\ncluster: {node: a100-pcie}\n"
                  "topology: {kind: ft2, switch_radix: 8, endpoints: 24}\n"
                  "workload: {kind: moe, phase: decode, ep_size: 16, ep_groups: 2, "
                  "tokens_per_gpu: 8, simulated_layers: 2}\n"
                  "availability:\n  days: 400\n  cable: {per_year: 0}\n  switch: {per_year: "
                  "0}\n  nic: {per_year: 0}\n  gpu: {per_year: 100}\n  node: {per_year: 0}\n")
            .scenario,
        false);
    const Json& a = r["availability"];
    std::map<std::string, std::vector<std::uint64_t>> per;
    std::map<std::string, std::uint64_t> count;
    for (const auto& g : a["groups"]) {
        const std::string name = g["class"].get<std::string>() + " " + g["tier"].get<std::string>();
        per[name] = g["parts_per_instance"].get<std::vector<std::uint64_t>>();
        count[name] = g["count"].get<std::uint64_t>();
    }
    CHECK(count.at("gpu ") == 48);
    CHECK(per.at("gpu ") == std::vector<std::uint64_t>{16, 16});
    CHECK(count.at("nic ") == 24);
    CHECK(per.at("nic ") == std::vector<std::uint64_t>{8, 8});
    CHECK(per.at("node ") == std::vector<std::uint64_t>{2, 2});
    // Only the 32 GPUs of the step stop an instance: restarts at 32 x 100 a year, not 48 x.
    CHECK(a["restarts_per_day"].get<double>() == Approx(32 * 100.0 / 365.0).epsilon(0.05));
}

TEST_CASE("every availability result key is in the results, and a tier filter keeps its tier",
          "[availability][system]") {
    // A two-tier fat tree: `spine-leaf` names the leaf-spine cables either way round.
    const Written w =
        load_text("keys",
                  "name: keys\nseed: 1\nmodel: {name: deepseek-v3}\ncluster: {node: h800}\n"
                  "topology: {kind: ft2, switch_radix: 8, endpoints: 16}\n"
                  "workload: {kind: moe, phase: decode, ep_size: 16, tokens_per_gpu: 8, "
                  "simulated_layers: 2}\n"
                  "availability:\n  days: 20\n  cable: {tiers: [spine-leaf]}\n"
                  "  switch: {tiers: [spine]}\n");
    const Json r = run_availability(w.scenario, false);
    for (const std::string& key : availability_result_keys()) {
        INFO(key);
        CHECK(json_at(r, key) != nullptr);
    }
    std::vector<std::string> groups;
    for (const auto& g : r["availability"]["groups"])
        groups.push_back(g["class"].get<std::string>() + " " + g["tier"].get<std::string>());
    CHECK(groups ==
          std::vector<std::string>{"cable leaf-spine", "switch spine", "nic ", "gpu ", "node "});
}

TEST_CASE("every availability key changes the answer it names", "[availability][system]") {
    // Cables and GPUs failing often on a small dual-plane pod: a lost cable degrades the step, a
    // lost GPU stops it.
    const Written w =
        load_text("keys-change", kSmall +
                                     "availability:\n  days: 60\n  cable: {per_year: 20}\n  "
                                     "gpu: {per_year: 5}\n  switch: {per_year: 0}\n  nic: "
                                     "{per_year: 0}\n  node: {per_year: 0}\n");
    auto with = [&](const std::vector<Override>& sets) {
        return run_availability(load_scenario(w.file, sets), false)["availability"];
    };
    const Json base = with({});
    auto num = [](const Json& a, const char* k) { return a[k].get<double>(); };
    REQUIRE(num(base, "degraded_hours_per_day") > 0);
    REQUIRE(num(base, "restarts_per_day") > 0);
    // Other days drawn: another mean.
    CHECK(num(with({{"availability.days", "120"}}), "tokens_per_s_per_gpu") !=
          num(base, "tokens_per_s_per_gpu"));
    CHECK(num(with({{"availability.hours", "12"}}), "tokens_per_s_per_gpu") !=
          num(base, "tokens_per_s_per_gpu"));
    // Restarts three times as long: about three times the time down.
    CHECK(num(with({{"availability.restart_minutes", "60"}}), "down_hours_per_day") >
          2 * num(base, "down_hours_per_day"));
    // Restarting below the healthy rate itself: no degraded time is served.
    const Json strict = with({{"availability.restart_below", "1"}});
    CHECK(num(strict, "degraded_hours_per_day") == 0.0);
    CHECK(num(strict, "restarts_per_day") > num(base, "restarts_per_day"));
    // Twice the years: half the price per token.
    CHECK(num(with({{"availability.amortisation_years", "8"}}), "usd_per_million_tokens") ==
          Approx(num(base, "usd_per_million_tokens") / 2));
    // Cables out twice as long: more degraded time.
    CHECK(num(with({{"availability.cable.repair_hours", "8"}}), "degraded_hours_per_day") >
          1.5 * num(base, "degraded_hours_per_day"));
    CHECK(num(with({{"availability.cable.per_year", "0"}}), "degraded_hours_per_day") == 0.0);
    // Fewer modes allowed than the days meet: refused before running.
    CHECK_THROWS_AS(with({{"availability.max_modes", "1"}}), InputError);
}

TEST_CASE("bad availability input is a located input error", "[availability][cli][input][system]") {
    struct Bad {
        std::string text, where, what, extra = "";
    };
    const std::vector<Bad> cases = {
        {"availability:\n  gpu: {per_year: -1}\n", "s.yaml:8:", "availability.gpu.per_year"},
        {"availability:\n  cable: {per_year: often}\n", "s.yaml:8:", "availability.cable.per_year"},
        {"availability:\n  plane: {per_year: 1}\n", "s.yaml:8:", "availability.plane"},
        {"availability:\n  switch: {tiers: [core]}\n",
         "s.yaml:8:", "no switch tier 'core' in this dual-plane fabric"},
        {"availability:\n  days: 1\n", "s.yaml:8:", "availability.days"},
        {"availability:\n  days: 10\n", "--set",
         "serving its experts from their copies is not built for several groups",
         "--set workload.ep_groups=2 --set workload.ep_size=8 --set workload.redundant_experts=8"},
        {"availability:\n  days: 10\nfaults:\n  - {kind: gpu_down, target: {gpu: 1}}\n",
         "s.yaml:9:", "availability draws its own failures"},
    };
    int i = 0;
    for (const Bad& c : cases) {
        const auto dir = temp_dir("availability-bad-" + std::to_string(i++));
        write_text(dir / "s.yaml", kSmall + c.text);
        const auto r = run_cli("availability " + (dir / "s.yaml").string() + " " + c.extra +
                               " --out " + (dir / "out").string());
        INFO(c.text << " -> " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.err.find(c.where) != std::string::npos);
        CHECK(r.err.find(c.what) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir / "out" / "results.json"));
    }
}
