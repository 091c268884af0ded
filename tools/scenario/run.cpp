#include "tools/scenario/run.hpp"

#include "tools/scenario/moe_results.hpp"

namespace clustersim {

PreparedRun prepare_run(const Scenario& s) {
    // Cheap validation first, as `check` does: a scenario without a workload is refused before
    // its fabric and routes are built (minutes for the largest).
    if (s.workload.kind != "moe") (void)validate_workload(s);
    TraceInput trace = load_trace(s);
    const bool moe = s.workload.kind == "moe";
    const std::uint32_t trace_gpus = workload_gpus(s, trace);
    // What the run will cost, from formulas (and the MoE step or trace, built first: they are
    // small next to a fabric), before the fabric is built.
    const FabricPlan plan = plan_fabric(s, trace_gpus);
    PreparedRun p;
    if (moe) p.moe = build_moe(s, static_cast<std::uint32_t>(plan.endpoints));
    std::uint64_t packets = 0;
    const Workload* built = moe                               ? &p.moe->workload
                            : trace.workload.messages.empty() ? nullptr
                                                              : &trace.workload;
    const WorkloadSize size = workload_size(s, plan.endpoints, built, packets);
    p.estimate = estimate_run(s, plan, size, packets);
    check_run_limits(s, p.estimate);

    p.fabric = build_simulated_fabric(s, trace_gpus);
    const std::uint32_t endpoints = p.fabric.endpoints();
    p.workload = moe ? std::move(p.moe->workload) : build_workload(s, endpoints, std::move(trace));
    if (const std::string err = p.workload.validate(endpoints); !err.empty())
        throw s.error_at("workload.kind", err);
    return p;
}

RunOutcome execute_run(const Scenario& s, const PreparedRun& p, bool progress) {
    SimulationOptions so;
    if (s.sim.max_time_us > 0) so.max_time = Time::from_us(s.sim.max_time_us);
    so.max_events = s.sim.max_events;
    so.progress = progress;
    so.fingerprint = s.sim.fingerprint;
    RunOutcome o;
    o.result = simulate(p.fabric.simulated().graph, p.fabric.routes, p.workload,
                        network_params(s, p.fabric.fabric), so, p.fabric.node_layout());
    o.results = run_results_json(s, p.fabric.fabric, p.fabric.simulated(), p.fabric.endpoints(),
                                 p.workload, o.result);
    if (p.moe && o.result.status == SimulationResult::Status::Completed)
        o.results[s.workload.phase] = moe_step_json(s, *p.moe, o.result);
    // What check estimated (the same for one build; sizes of structures vary between
    // compilers). The peak the OS measured varies run to run, so it is shown, not written.
    o.results["sim"]["memory_estimate_bytes"] = p.estimate.memory_bytes();
    return o;
}

}  // namespace clustersim
