#pragma once
// Helpers shared by the tests: small fabrics, one-call simulations, running the CLI binary.
#include <sys/wait.h>
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "models/network/simulation.hpp"
#include "topologies/fat_tree_two_layer.hpp"
#include "topologies/shortest_path_routes.hpp"

namespace clustersim::test {

inline FatTreeTwoLayerParams small_ft2(std::uint32_t radix, std::uint32_t endpoints) {
    FatTreeTwoLayerParams p;
    p.fabric.switch_radix = radix;
    p.fabric.link_rate = DataRate::from_gbps(400);
    p.fabric.link_delay = Time::from_ns(50);
    p.fabric.switch_latency = Time::from_ns(400);
    p.fabric.port_buffer_bytes = 1 << 20;
    p.endpoints = endpoints;
    return p;
}

struct TestFabric {
    Topology topology;
    ForwardingTables routes;
    explicit TestFabric(const FatTreeTwoLayerParams& p)
        : topology(build_fat_tree_two_layer(p)), routes(shortest_path_routes(topology.graph)) {}
};

inline NetworkParams ib_params() {
    NetworkParams p;
    p.mtu_bytes = 4096;
    p.header_bytes = 26;
    return p;
}

// The smallest fabric a credit goes back over: switch 0 feeds switch 1 over `up` (400 Gb/s,
// 50 ns), and switch 1 sends to endpoint 0 over `out`; its simulator and fabric, unrun.
inline PortGraph switch_chain_graph(const SwitchInfo& sw) {
    PortGraph g;
    g.add_switch(sw);
    g.add_switch(sw);
    g.set_endpoint_count(1);
    g.add_cable({NodeKind::Switch, 0}, {NodeKind::Switch, 1}, DataRate::from_gbps(400),
                Time::from_ns(50));
    g.add_cable({NodeKind::Switch, 1}, {NodeKind::Endpoint, 0}, DataRate::from_gbps(400),
                Time::from_ns(50));
    g.finalize();
    return g;
}

struct SwitchChain {
    PortGraph graph;
    LogicalProcesses lp;
    Simulator sim;
    Fabric fabric;
    std::uint32_t up = kNone;
    std::uint32_t out = kNone;

    explicit SwitchChain(const SwitchInfo& sw, const NetworkParams& params = ib_params())
        : graph(switch_chain_graph(sw)),
          lp(logical_processes(graph, nullptr)),
          fabric((sim.set_processes(lp.count), sim), graph, params, nullptr, lp) {
        for (std::uint32_t c = 0; c < graph.channel_count(); ++c) {
            const Channel& ch = graph.channels()[c];
            if (ch.from == NodeRef{NodeKind::Switch, 0}) up = c;
            if (ch.from == NodeRef{NodeKind::Switch, 1} && ch.to.kind == NodeKind::Endpoint)
                out = c;
        }
    }
};

inline SimulationResult run(const TestFabric& f, const Workload& w,
                            const NetworkParams& p = ib_params(), Time limit = Time::never()) {
    SimulationOptions o;
    o.max_time = limit;
    return simulate(f.topology.graph, f.routes, w, p, o);
}

// Switches crossed from endpoint a to endpoint b following every forwarding candidate, and the
// number of distinct shortest paths (dynamic programming over the forwarding state).
struct PathStats {
    std::uint32_t switches = 0;  // 0: unreachable
    std::uint64_t paths = 0;
};

inline PathStats walk(const Topology& t, const ForwardingTables& routes, std::uint32_t a,
                      std::uint32_t b) {
    const auto& g = t.graph;
    const auto ch = g.channels();
    const std::uint32_t first_switch = ch[g.first_channel({NodeKind::Endpoint, a})].to.index;
    const std::uint32_t dst_switch = ch[g.first_channel({NodeKind::Endpoint, b})].to.index;
    const std::uint32_t dst_edge = routes.edge_index(dst_switch);
    std::vector<std::uint64_t> ways(g.switch_count(), 0);
    ways[first_switch] = 1;
    std::vector<std::uint32_t> frontier{first_switch};
    for (std::uint32_t depth = 1; depth <= 16 && !frontier.empty(); ++depth) {
        std::uint64_t arrived = 0;
        for (std::uint32_t s : frontier)
            if (s == dst_switch) arrived += ways[s];
        if (arrived > 0) return PathStats{depth, arrived};
        std::vector<std::uint64_t> next(g.switch_count(), 0);
        std::vector<std::uint32_t> next_frontier;
        for (std::uint32_t s : frontier)
            for (std::uint32_t c : routes.candidates(s, dst_edge)) {
                const std::uint32_t to = ch[c].to.index;
                if (next[to] == 0) next_frontier.push_back(to);
                next[to] += ways[s];
            }
        ways = std::move(next);
        frontier = std::move(next_frontier);
    }
    return {};
}

inline PathStats walk(const TestFabric& f, std::uint32_t a, std::uint32_t b) {
    return walk(f.topology, f.routes, a, b);
}

struct CommandResult {
    int exit_code = -1;
    std::string out, err;
};

/// Tests that start a process are tagged [system]; ctest runs the others with
/// CLUSTERSIM_TEST_NO_SPAWN set, so an untagged one fails here instead of hiding in `unit`.
inline void require_spawn_allowed() {
    if (std::getenv("CLUSTERSIM_TEST_NO_SPAWN") != nullptr)
        FAIL("this test starts a process: tag it [system] (the unit label runs library code only)");
}

/// Runs a shell command line, capturing both streams.
inline CommandResult run_command(const std::string& command) {
    require_spawn_allowed();
    static int counter = 0;
    const auto dir = std::filesystem::temp_directory_path() / "clustersim-tests";
    std::filesystem::create_directories(dir);
    const auto base = dir / ("cmd" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    const std::string out_file = base.string() + ".out", err_file = base.string() + ".err";
    const std::string cmd = command + " >" + out_file + " 2>" + err_file;
    const int status = std::system(cmd.c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    auto slurp = [](const std::string& path) {
        std::ifstream in(path);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    };
    r.out = slurp(out_file);
    r.err = slurp(err_file);
    std::filesystem::remove(out_file);
    std::filesystem::remove(err_file);
    return r;
}

/// Runs the clustersim binary with `args` (a shell-quoted string), capturing both streams.
inline CommandResult run_cli(const std::string& args) {
    return run_command(std::string(CLUSTERSIM_BINARY) + " " + args);
}

/// A fresh, empty temporary folder.
inline std::filesystem::path temp_dir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / "clustersim-tests" /
                     (name + "-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
    std::ofstream out(p);
    out << text;
}

/// A file's bytes, whole.
inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline std::string source_path(const std::string& rel) {
    return std::string(CLUSTERSIM_SOURCE_DIR) + "/" + rel;
}

}  // namespace clustersim::test
