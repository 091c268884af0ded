#include "tools/scenario/run.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "tools/scenario/expert_load_csv.hpp"
#include "tools/scenario/gpu_timeline.hpp"
#include "tools/scenario/output_files.hpp"
#include "tools/scenario/results_csv.hpp"
#include "tools/scenario/results_trace.hpp"
#include "tools/scenario/schema.hpp"

#include "tools/scenario/moe_results.hpp"

namespace clustersim {

PreparedRun prepare_run(const Scenario& s, std::span<const MessageSpec> beside) {
    if (s.serving.set)
        throw s.error_at("serving",
                         "a serving run is `clustersim run`'s alone for now (expected "
                         "no serving: section here; docs/serving.md)");
    // Cheap validation first, as `check` does: a scenario without a workload is refused before
    // its fabric and routes are built (minutes for the largest).
    if (s.workload.kind != "moe") (void)validate_workload(s);
    TraceInput trace = load_trace(s);
    const bool moe = s.workload.kind == "moe";
    const std::uint32_t trace_gpus = workload_gpus(s, trace);
    // What the run will cost, from formulas (a trace counted once read), before the MoE step,
    // the fabric or anything else is built: what check printed.
    const FabricPlan plan = plan_fabric(s, trace_gpus);
    PreparedRun p;
    std::uint64_t packets = 0;
    const Workload* built = trace.workload.messages.empty() ? nullptr : &trace.workload;
    const WorkloadSize size = workload_size(s, plan.endpoints, built, packets);
    p.estimate = estimate_run(s, plan, size, packets);
    check_run_limits(s, p.estimate);
    check_groups_in_pods(s, plan.fabric);
    if (moe) {
        p.moe = build_moe(s, static_cast<std::uint32_t>(plan.endpoints));
        lose_ranks(*p.moe);  // gpu_down, node_down: their tasks carry nothing
    }

    p.fabric = build_simulated_fabric(s, trace_gpus);
    const std::uint32_t endpoints = p.fabric.endpoints();
    p.workload = moe ? std::move(p.moe->workload) : build_workload(s, endpoints, std::move(trace));
    for (const MessageSpec& m : beside) p.workload.add_message(m);
    if (const std::string err = p.workload.validate(endpoints); !err.empty())
        throw s.error_at("workload.kind", err);
    check_messages_in_pods(s, p.fabric.fabric, p.workload);
    p.workload.seal();  // the dependency list becomes the runtime's graph: not held twice
    p.faults = build_fault_plan(s, p.fabric, p.moe ? &*p.moe : nullptr);
    return p;
}

RunOutcome execute_run(const Scenario& s, PreparedRun& p, bool progress) {
    SimulationOptions so;
    if (s.sim.max_time_us > 0) so.max_time = Time::from_us(s.sim.max_time_us);
    so.max_events = s.sim.max_events;
    so.progress = progress;
    so.expected_events = p.estimate.events;
    so.fingerprint = s.sim.fingerprint;
    so.threads = s.sim.threads;
    so.ranks = s.sim.ranks;
    so.partitions = s.sim.partitions;
    so.faults = &p.faults.plan;
    RunOutcome o;
    o.result = simulate(p.fabric.simulated().graph, p.fabric.routes, p.workload,
                        network_params(s, p.fabric.fabric), so, p.fabric.node_layout());
    p.workload.release_graph();  // the results below do not need it (at 2,048 GPUs: 0.15 GB)
    check_faults_in_window(s, o.result);
    o.results = run_results_json(s, p.fabric.fabric, p.fabric.simulated(), p.fabric.endpoints(),
                                 p.workload, o.result);
    if (!s.faults.empty()) o.results["faults"] = faults_json(s, p.faults, o.result);
    if (p.moe && o.result.status == SimulationResult::Status::Completed)
        o.results[std::string(phase_name(s.workload.phase))] =
            moe_step_json(s, *p.moe, p.workload, o.result);
    // What check estimated (the same for one build; sizes of structures vary between
    // compilers). The peak the OS measured varies run to run, so it is shown, not written.
    o.results["sim"]["memory_estimate_bytes"] = p.estimate.memory_bytes();
    return o;
}

const std::vector<std::string>& run_output_files() {
    static const std::vector<std::string> files = {
        "messages.csv", "links.csv",  "nics.csv",   "tiers.csv",   "gpu_timeline.csv",
        "experts.csv",  "trace.json", "queues.csv", "results.json"};
    return files;
}

void prepare_output_dir(const std::string& dir, const std::vector<std::string>& files) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw InputError(dir,
                         "cannot create the output folder (expected a writable path for --out)");
    for (const std::string& name : files) {
        const fs::path f = fs::path(dir) / name;
        if (fs::exists(f, ec) && !fs::is_regular_file(f, ec))
            throw InputError(f.string(),
                             "is not a regular file, so the run cannot write it (expected a file "
                             "or nothing at that path)");
    }
}

RunFilesWritten write_run_outputs(const std::string& dir_name, const Scenario& s,
                                  const PreparedRun& p, const RunOutcome& o,
                                  std::uint64_t trace_limit, MessagesChoice messages) {
    const std::filesystem::path dir(dir_name);
    const SimulationResult& r = o.result;
    const Workload& w = p.workload;
    const SimulatedFabric& f = p.fabric;
    // results.json is rendered first and written last: a folder holding it holds the whole
    // run, and a run that fails while writing leaves no results.json of an earlier one.
    const std::string results = json_text(o.results, 2) + "\n";
    std::error_code ec;
    std::filesystem::remove(dir / "results.json", ec);
    RunFilesWritten written;
    write_stream_atomically((dir / "messages.csv").string(), [&](std::ostream& out) {
        written.messages =
            write_messages_csv(out, w, r, p.moe ? &*p.moe : nullptr, f.node_layout(), messages);
    });
    write_file_atomically((dir / "links.csv").string(),
                          links_csv(f.fabric, f.simulated(), f.node_layout(), r));
    write_file_atomically((dir / "nics.csv").string(),
                          nics_csv(f.fabric, f.simulated(), f.node_layout(), w, r,
                                   s.cluster.nics_per_node, s.cluster.gpus_per_node));
    write_file_atomically((dir / "tiers.csv").string(),
                          tiers_csv(f.fabric, f.simulated(), f.node_layout(), r));
    write_stream_atomically((dir / "gpu_timeline.csv").string(), [&](std::ostream& out) {
        write_gpu_timeline_csv(out, w, r, p.moe ? &*p.moe : nullptr,
                               f.simulated().graph.endpoint_count());
    });
    if (p.moe)
        write_stream_atomically((dir / "experts.csv").string(),
                                [&](std::ostream& out) { write_expert_load_csv(out, *p.moe); });
    else
        std::filesystem::remove(dir / "experts.csv", ec);
    write_stream_atomically((dir / "trace.json").string(), [&](std::ostream& out) {
        const TraceWritten t = write_trace(out, s, p, r, trace_limit);
        written.trace_events = t.events;
        written.trace_sampled = t.sampled;
        written.trace_what = t.what;
    });
    if (s.sim.sample_us > 0)
        write_file_atomically((dir / "queues.csv").string(), queues_csv(f.simulated().graph, r));
    else
        std::filesystem::remove(dir / "queues.csv",
                                ec);  // an earlier run's samples, not this one's
    write_file_atomically((dir / "results.json").string(), results);
    return written;
}

std::string run_stop_report(const Scenario& s, const PreparedRun& p, const SimulationResult& r) {
    const Workload& w = p.workload;
    if (r.status == SimulationResult::Status::Completed) return {};
    if (r.status == SimulationResult::Status::Failed)
        for (std::size_t i = 0; i < r.faults.size() && i < s.faults.size(); ++i)
            if (r.faults[i].failed_instance)
                return fmt::format(
                    "{} ({} at {} us) failed the instance: {} lost; {}\n", s.faults[i].key,
                    kFaultKindNames[static_cast<std::size_t>(s.faults[i].kind)],
                    format_number(s.faults[i].at_us), p.faults.hit[i], p.faults.fails[i]);
    const std::size_t unfinished = w.messages.size() - r.counters.messages_finished;
    std::string out;
    if (r.status == SimulationResult::Status::TimeLimit)
        out = fmt::format("sim.max_time_us ({} us) reached with {} of {} messages unfinished:\n",
                          s.sim.max_time_us, unfinished, w.messages.size());
    else if (r.status == SimulationResult::Status::EventLimit)
        out = fmt::format(
            "sim.max_events ({}) reached at {:.3f} us with {} of {} messages unfinished:\n",
            s.sim.max_events, r.end_time.us(), unfinished, w.messages.size());
    else
        out = fmt::format(
            "the network stopped making progress at {:.3f} us with {} of {} messages unfinished "
            "({} bytes dropped; {} connections failed after {} retransmission timeouts in a "
            "row):\n",
            r.end_time.us(), unfinished, w.messages.size(), r.counters.payload_dropped,
            r.counters.connections_failed, s.network.retry_count + 1);
    return out + unfinished_report(w, r, 20);
}

}  // namespace clustersim
