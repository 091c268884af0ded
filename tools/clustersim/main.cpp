// clustersim: packet-level simulation of AI cluster fabrics. Command line of shared/spec/cli.md.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "sim/input/input_error.hpp"
#include "tools/scenario/bench.hpp"
#include "tools/scenario/moe_results.hpp"
#include "tools/scenario/mpi_world.hpp"
#include "tools/scenario/output_files.hpp"
#include "tools/clustersim/report_command.hpp"
#include "tools/scenario/estimate.hpp"
#include "tools/scenario/results_csv.hpp"
#include "tools/scenario/run.hpp"
#include "tools/scenario/results_json.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/build.hpp"
#include "models/network/simulation.hpp"
#include "tools/scenario/sweep.hpp"
#include "tools/scenario/results_trace.hpp"
#include "topologies/shortest_path_routes.hpp"

namespace cs = clustersim;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitStalled = 3;
// `check` builds a workload of at most this many messages to run its builder's checks too.
constexpr std::uint64_t kCheckBuildMessages = 4'000'000;
// `run` warns, without a limit set, before simulating more events than this (an hour or so).
constexpr std::uint64_t kLongRunEvents = 10'000'000'000;

struct CommonOptions {
    std::string scenario;
    std::vector<std::string> sets;
    bool json = false;
};

cs::Scenario load(const CommonOptions& o, std::optional<std::uint64_t> seed = std::nullopt) {
    std::vector<cs::Override> overrides;
    for (const auto& s : o.sets) overrides.push_back(cs::parse_override(s));
    cs::Scenario s = cs::load_scenario(o.scenario, overrides);
    if (seed) s.seed = *seed;
    return s;
}

void print_json(const cs::Json& j) {
    std::cout << j.dump(2) << "\n";
}

int cmd_topo(const CommonOptions& o) {
    const cs::Scenario s = load(o);
    const cs::Topology t =
        cs::build_topology(s, s.workload.kind == "trace" ? cs::load_trace(s).nodes : 0);
    const cs::CostBreakdown cost = cs::topology_cost(s, t);
    cs::Json j = cs::inventory_json(s, t, cost);
    // What simulating it would take, from formulas: the fabric and its routes, plus the
    // workload when the scenario has one with a size formula (check counts the others).
    std::optional<cs::RunEstimate> est;
    if (t.inventory.constructible) try {
            const cs::FabricPlan plan = cs::plan_fabric(s, 0);
            std::uint64_t packets = 0;
            const cs::WorkloadKind* kind = cs::find_workload_kind(s.workload.kind);
            const cs::WorkloadSize w = kind && kind->size
                                           ? cs::workload_size(s, plan.endpoints, nullptr, packets)
                                           : cs::WorkloadSize{};
            est = cs::estimate_run(s, plan, w, packets);
            j["memory_estimate_bytes"] = est->memory_bytes();
        } catch (const cs::InputError&) {
            // not simulable as set (check says why); the inventory stands on its own
        }
    if (o.json) {
        print_json(j);
        return kExitOk;
    }
    fmt::print("{} fabric: {} endpoints, {} switches", t.kind, t.inventory.endpoints,
               t.inventory.switches);
    std::string tiers;
    for (const auto& tier : t.inventory.tiers)
        tiers += fmt::format("{}{} {}", tiers.empty() ? "" : ", ", tier.switches, tier.name);
    fmt::print(" ({})\n", tiers);
    fmt::print(
        "  switch-to-switch links  {}\n  endpoint links          {}\n  max hops (switches)     "
        "{}\n",
        t.inventory.switch_links, t.inventory.endpoint_links, t.inventory.max_hops);
    fmt::print("  bisection               {:.0f} Gb/s ({})\n", t.inventory.bisection_gbps,
               t.inventory.bisection_exact ? "exact" : "bound");
    for (const auto& c : t.inventory.cables) fmt::print("  cables {:<26}{}\n", c.kind, c.count);
    if (t.inventory.endpoints_per_rack > 0)
        fmt::print("  racks                   {} endpoints each, {} top-of-rack switches\n",
                   t.inventory.endpoints_per_rack, t.inventory.top_of_rack_switches);
    else
        fmt::print("  racks                   not placed (every cable optical)\n");
    fmt::print("  cost                    ${:.2f} M  (${:.0f} per endpoint)\n",
               cost.total_usd / 1e6, cost.per_endpoint_usd);
    if (!t.inventory.constructible) fmt::print("  not constructible: {}\n", t.inventory.note);
    if (est)
        fmt::print("  to simulate             about {} of memory (fabric {}, routes {}{})\n",
                   cs::format_bytes(est->memory_bytes()), cs::format_bytes(est->fabric_bytes),
                   cs::format_bytes(est->routes_bytes),
                   est->messages > 0
                       ? ", workload " + cs::format_bytes(est->workload_bytes + est->packet_bytes)
                       : std::string());
    return kExitOk;
}

int cmd_traffic(const CommonOptions& o) {
    const cs::Scenario s = load(o);
    const auto j = cs::moe_traffic_json(s);
    if (o.json)
        std::cout << j.dump(2) << "\n";
    else
        std::cout << cs::moe_traffic_table(j);
    return kExitOk;
}

int cmd_check(const CommonOptions& o, bool schema) {
    if (schema) {
        std::cout << cs::schema_markdown();
        return kExitOk;
    }
    const cs::Scenario s = load(o);
    // From formulas only: nothing is built but a bounded sample, so check answers at once at
    // any size and says what a run would cost.
    if (s.workload.kind != "moe" && !s.workload.kind.empty()) (void)cs::validate_workload(s);
    cs::TraceInput trace = cs::load_trace(s);
    const bool moe = s.workload.kind == "moe";
    if (s.workload.kind.empty()) {  // a fabric to price, not to run: any size counts
        const cs::Topology t = cs::build_topology(s, 0, true);
        fmt::print("{}: ok ({} of {} NICs, no workload)\n", o.scenario, t.kind,
                   t.inventory.endpoints);
        return kExitOk;
    }
    const cs::FabricPlan plan = cs::plan_fabric(s, cs::workload_gpus(s, trace));
    const std::uint64_t endpoints = plan.endpoints;
    std::uint64_t packets = 0;
    cs::WorkloadSize size;
    std::string what;
    if (moe) {
        // The step's structure from a sample: one EP group, one simulated layer and one
        // micro-batch of at most 64 tokens per GPU (gating validates the model on each).
        // Messages scale with groups, layers and micro-batches; packets with tokens too.
        const auto& w = s.workload;
        cs::Scenario sample = s;
        const std::uint32_t batch = w.tokens_per_gpu;  // per micro-batch
        sample.workload.micro_batches = 1;
        sample.workload.tokens_per_gpu = std::min<std::uint32_t>(batch, 64);
        sample.workload.ep_groups = 1;
        sample.workload.simulated_layers = 1;
        const std::uint64_t groups = w.ep_groups;
        const std::uint64_t copies = groups * w.simulated_layers * w.micro_batches;
        const cs::MoeRun run =
            cs::build_moe(sample, static_cast<std::uint32_t>(endpoints / groups));
        size = cs::workload_size(s, endpoints, &run.workload, packets);
        size.messages *= copies;
        size.dependencies *= copies;
        packets = static_cast<std::uint64_t>(static_cast<long double>(packets) * copies * batch /
                                             sample.workload.tokens_per_gpu);
        what = fmt::format("moe: {} {}, EP {} over {} nodes, {} group(s)", s.model.preset.name,
                           s.workload.phase, s.workload.ep_size,
                           s.workload.ep_size / s.cluster.gpus_per_node, groups);
    } else {
        const bool from_file = !trace.workload.messages.empty();
        size = cs::workload_size(s, endpoints, from_file ? &trace.workload : nullptr, packets);
        // Built only when small: the builders' own checks (an incast's destination, a trace's
        // endpoints) then run too; a large one is judged from its formula.
        if (size.messages <= kCheckBuildMessages) {
            const cs::Workload w =
                cs::build_workload(s, static_cast<std::uint32_t>(endpoints), std::move(trace));
            if (const std::string err = w.validate(static_cast<std::uint32_t>(endpoints));
                !err.empty())
                throw s.error_at("workload.kind", err);
        }
        what = fmt::format("{} of {} NICs, {} endpoints simulated", plan.fabric.kind,
                           plan.fabric.inventory.endpoints, endpoints);
    }
    const cs::RunEstimate est = cs::estimate_run(s, plan, size, packets);
    cs::check_run_limits(s, est);
    fmt::print(
        "{}: ok ({}; {} messages, about {} packets, at most about {} events; memory about {}: "
        "fabric {}, routes {}, workload {}, packets {})\n",
        o.scenario, what, est.messages, est.packets, est.events,
        cs::format_bytes(est.memory_bytes()), cs::format_bytes(est.fabric_bytes),
        cs::format_bytes(est.routes_bytes), cs::format_bytes(est.workload_bytes),
        cs::format_bytes(est.packet_bytes));
    return kExitOk;
}

int cmd_run(const CommonOptions& o, std::optional<std::uint64_t> seed, const std::string& out_dir,
            bool quiet, std::uint64_t trace_limit) {
    const cs::Scenario s = load(o, seed);
    cs::PreparedRun prepared = cs::prepare_run(s);
    const cs::RunEstimate& est = prepared.estimate;
    // No limit is set by default, but a run of hours should not start unannounced.
    if (est.events > kLongRunEvents && s.sim.max_events == 0 && s.sim.max_time_us == 0 && !quiet)
        fmt::print(stderr,
                   "clustersim: this run has up to about {:.3g} events to simulate (hours at a "
                   "few million a second); sim.max_events or sim.max_time_us bound it\n",
                   static_cast<double>(est.events));
    if (!out_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(out_dir, ec);
        if (ec || !std::filesystem::is_directory(out_dir))
            throw cs::InputError(
                out_dir, "cannot create the output folder (expected a writable path for --out)");
        // Every file the run will write must be writable as a file before it runs: never a
        // half-written output after a long simulation.
        for (const char* name : {"results.json", "messages.csv", "queues.csv", "links.csv",
                                 "nics.csv", "trace.json"}) {
            const std::filesystem::path f = std::filesystem::path(out_dir) / name;
            if (std::filesystem::exists(f, ec) && !std::filesystem::is_regular_file(f, ec))
                throw cs::InputError(f.string(),
                                     "is not a regular file, so the run cannot write "
                                     "it (expected a file or nothing at that path)");
        }
    }
    const cs::RunOutcome outcome = cs::execute_run(s, prepared, !quiet && !o.json);
    const cs::SimulationResult& r = outcome.result;
    const cs::Json& j = outcome.results;
    const cs::Workload& w = prepared.workload;
    const std::uint64_t memory_estimate = est.memory_bytes();
    if (!out_dir.empty()) {
        const std::filesystem::path dir(out_dir);
        cs::write_file_atomically((dir / "messages.csv").string(), cs::messages_csv(w, r));
        const cs::SimulatedFabric& f = prepared.fabric;
        cs::write_file_atomically((dir / "links.csv").string(),
                                  cs::links_csv(f.fabric, f.simulated(), f.node_layout(), r));
        cs::write_file_atomically((dir / "nics.csv").string(),
                                  cs::nics_csv(f.fabric, f.simulated(), f.node_layout(), w, r,
                                               s.cluster.nics_per_node, s.cluster.gpus_per_node));
        cs::write_stream_atomically((dir / "trace.json").string(), [&](std::ostream& out) {
            (void)cs::write_trace(out, s, prepared, r, trace_limit);
        });
        if (s.sim.sample_us > 0)
            cs::write_file_atomically((dir / "queues.csv").string(),
                                      cs::queues_csv(prepared.fabric.simulated().graph, r));
        cs::write_file_atomically((dir / "results.json").string(), j.dump(2) + "\n");
    }
    if (o.json)
        print_json(j);
    else if (!quiet)
        std::cout << cs::run_summary_table(j)
                  << fmt::format("  {:<26}{:>16.1f}{:>12.1f}\n", "memory est. / peak [MB]",
                                 static_cast<double>(memory_estimate) / 1e6,
                                 static_cast<double>(cs::peak_memory_bytes()) / 1e6);
    if (r.status != cs::SimulationResult::Status::Completed) {
        const std::size_t unfinished = w.messages.size() - r.counters.messages_finished;
        if (r.status == cs::SimulationResult::Status::TimeLimit)
            fmt::print(
                stderr,
                "clustersim: sim.max_time_us ({} us) reached with {} of {} messages unfinished:\n",
                s.sim.max_time_us, unfinished, w.messages.size());
        else if (r.status == cs::SimulationResult::Status::EventLimit)
            fmt::print(stderr,
                       "clustersim: sim.max_events ({}) reached at {:.3f} us with {} of {} "
                       "messages unfinished:\n",
                       s.sim.max_events, r.end_time.us(), unfinished, w.messages.size());
        else
            fmt::print(stderr,
                       "clustersim: the network stopped making progress at {:.3f} us with {} of {} "
                       "messages unfinished ({} bytes dropped; {} connections failed after {} "
                       "retransmission timeouts in a row):\n",
                       r.end_time.us(), unfinished, w.messages.size(), r.counters.payload_dropped,
                       r.counters.connections_failed, cs::RdmaTransport::kRetryLimit + 1);
        std::cerr << cs::unfinished_report(w, r, 20);
        return kExitStalled;
    }
    return kExitOk;
}

int cmd_sweep(const std::string& file, const std::vector<std::string>& grid, unsigned threads,
              const std::string& out_dir, bool quiet, const cs::MpiSession& mpi) {
    const cs::SweepSpec spec = cs::load_sweep(file, grid);
    cs::SweepOptions options;
    options.threads = threads;
    options.out_dir = out_dir;
    options.rank = mpi.rank();
    options.ranks = mpi.ranks();
    options.gather = mpi.gather();
    options.progress = !quiet && mpi.rank() == 0;
    const cs::SweepSummary summary = cs::run_sweep(spec, options);
    if (!quiet && mpi.rank() == 0) {
        std::cout << summary.csv;
        fmt::print(stderr, "sweep: {} points, {} failed, {} resumed{}\n", summary.points,
                   summary.failed, summary.resumed,
                   out_dir.empty() ? "" : "; results.csv and results.json in " + out_dir);
    }
    return kExitOk;
}

int cmd_report(const std::string& dir, double slo_tpot_ms) {
    cs::write_report(dir, slo_tpot_ms);
    fmt::print(stderr, "clustersim: wrote {}\n",
               (std::filesystem::path(dir) / "report.html").string());
    return kExitOk;
}

int cmd_bench(bool json) {
    const cs::Json j = cs::run_benchmarks(cs::BenchOptions{});
    if (json) {
        print_json(j);
        return kExitOk;
    }
    fmt::print("event queue, hold model (pop one, push one later):\n");
    for (const auto& [k, v] : j["queue_ops_per_s"].items())
        fmt::print("  {:>4} pending   {:>8.2f} M events/s\n", k, v.get<double>() / 1e6);
    const auto& pr = j["packet_run"];
    fmt::print("packet level: FT2 radix {} ({} endpoints), permutation of {} B messages:\n",
               pr["switch_radix"].get<int>(), pr["endpoints"].get<int>(),
               pr["message_bytes"].get<std::uint64_t>());
    fmt::print("  {:>8.2f} M packet-hops/s   {:>8.2f} M events/s   ({} hops in {:.2f} s)\n",
               j["packet_hops_per_s"].get<double>() / 1e6,
               j["packet_events_per_s"].get<double>() / 1e6, pr["packet_hops"].get<std::uint64_t>(),
               pr["wall_s"].get<double>());
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    const cs::MpiSession mpi(argc, argv);  // a world of one unless started by mpirun or srun
    CLI::App app{"clustersim: packet-level network simulator for AI GPU clusters"};
    app.require_subcommand(1);
    CommonOptions run_o, topo_o, check_o, traffic_o;
    std::optional<std::string> seed_text;  // parsed exactly below (CLI11 would saturate)
    std::string out_dir;
    bool quiet = false, bench_json = false, schema = false;

    auto add_common = [](CLI::App* sub, CommonOptions& o, bool json) {
        sub->add_option("scenario", o.scenario, "scenario YAML file")->required();
        sub->add_option("--set", o.sets,
                        "override one key: PATH=VALUE (VALUE parsed as YAML); repeatable");
        if (json) sub->add_flag("--json", o.json, "print one JSON document on stdout");
    };
    auto* run = app.add_subcommand("run", "simulate a scenario packet by packet");
    add_common(run, run_o, true);
    run->add_option("--seed", seed_text, "override the scenario's seed (0 to 2^64 - 1)");
    run->add_option("--out", out_dir, "write results.json and messages.csv to this folder")
        ->check([](const std::string& v) {
            return v.empty() ? std::string("an empty path (expected a folder to write into)")
                             : std::string();
        });
    run->add_flag("--quiet", quiet, "no summary table or progress line");
    std::uint64_t trace_limit = cs::kDefaultTraceLimit;
    run->add_option("--trace-limit", trace_limit,
                    "at most this many events in trace.json (messages are cut first)")
        ->check(CLI::Range(std::uint64_t{100}, std::uint64_t{1} << 40));
    auto* topo =
        app.add_subcommand("topo", "inventory of the scenario's fabric, without simulating");
    add_common(topo, topo_o, true);
    auto* traffic = app.add_subcommand(
        "traffic", "expert-parallel traffic of a moe scenario and its bound, without simulating");
    add_common(traffic, traffic_o, true);
    auto* check = app.add_subcommand("check", "validate a scenario");
    check->add_option("scenario", check_o.scenario, "scenario YAML file");
    check->add_option("--set", check_o.sets, "override one key: PATH=VALUE; repeatable");
    check->add_flag("--schema", schema, "print every scenario key as a Markdown table");
    std::string sweep_file, sweep_out;
    std::vector<std::string> sweep_grid;
    unsigned sweep_threads = 1;
    bool sweep_quiet = false;
    auto* sweep = app.add_subcommand(
        "sweep", "run a scenario over a grid of key values and rank the points by cost");
    sweep->add_option("sweep", sweep_file, "sweep YAML file (base, grid, zip, seeds, objective)")
        ->required();
    sweep->add_option("--grid", sweep_grid, "add or replace a grid key: PATH=V1,V2,...");
    sweep->add_option("-j", sweep_threads, "points to run at once, on threads")
        ->check(CLI::Range(1u, 1024u));
    sweep->add_option("--out", sweep_out, "write results.csv, results.json and points/ here")
        ->check([](const std::string& v) {
            return v.empty() ? std::string("an empty path (expected a folder to write into)")
                             : std::string();
        });
    sweep->add_flag("--quiet", sweep_quiet, "no table and no progress bar");
    std::string report_dir;
    double slo_tpot_ms = 0;
    auto* report = app.add_subcommand(
        "report", "write report.html (plots, offline) from a run's or a sweep's --out folder");
    report->add_option("out_dir", report_dir, "the --out folder of a run or a sweep")->required();
    report->add_option("--slo-tpot-ms", slo_tpot_ms, "sweeps: the TPOT service-level line")
        ->check(CLI::Range(0.0, 1e9));
    bool run_report = false;
    run->add_flag("--report", run_report, "also write report.html under --out");
    auto* bench = app.add_subcommand("bench", "measure event-queue and packet-forwarding speed");
    bench->add_flag("--json", bench_json, "print one JSON document on stdout");

    // An unknown first word is named as such (CLI11 would only say a subcommand is required).
    if (argc > 1 && argv[1][0] != '-') {
        const std::string word = argv[1];
        bool known = false;
        for (const auto* sub : app.get_subcommands({})) known |= sub->get_name() == word;
        if (!known) {
            fmt::print(stderr,
                       "clustersim: unknown subcommand '{}' (expected run, topo, traffic, check, "
                       "sweep, report or bench; see clustersim --help)\n",
                       cs::InputError::printable(word, 80));
            return kExitBadInput;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "clustersim: {} (see clustersim --help)\n", e.what());
        return kExitBadInput;
    }

    try {
        if (run->parsed()) {
            std::optional<std::uint64_t> seed;
            if (seed_text) {
                std::uint64_t v = 0;
                const std::string& t = *seed_text;
                const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
                if (t.empty() || ec != std::errc() || p != t.data() + t.size())
                    throw cs::InputError("--seed",
                                         "'" + t.substr(0, 40) +
                                             "' is out of range or not an integer (expected 0 "
                                             "to 18446744073709551615)");
                seed = v;
            }
            if (run_report && out_dir.empty())
                throw cs::InputError("--report", "needs --out (expected a folder to write into)");
            const int rc = cmd_run(run_o, seed, out_dir, quiet, trace_limit);
            if (run_report && rc != kExitBadInput) cs::write_report(out_dir, 0);
            return rc;
        }
        if (topo->parsed()) return cmd_topo(topo_o);
        if (traffic->parsed()) return cmd_traffic(traffic_o);
        if (check->parsed()) {
            if (!schema && check_o.scenario.empty()) {
                fmt::print(stderr, "clustersim: check needs a scenario file (or --schema)\n");
                return kExitBadInput;
            }
            return cmd_check(check_o, schema);
        }
        if (bench->parsed()) return cmd_bench(bench_json);
        if (report->parsed()) return cmd_report(report_dir, slo_tpot_ms);
        if (sweep->parsed())
            return cmd_sweep(sweep_file, sweep_grid, sweep_threads, sweep_out, sweep_quiet, mpi);
    } catch (const cs::InputError& e) {
        fmt::print(stderr, "{}\n", e.formatted());
        return kExitBadInput;
    } catch (const std::exception& e) {
        fmt::print(stderr, "clustersim: internal error: {}\n", e.what());
        return kExitInternal;
    }
    return kExitInternal;
}
