// libFuzzer target: any bytes as a scenario file. Loading, validating, planning the fabric and
// estimating the run (what check does, nothing built) must end in an estimate or an InputError;
// any other exception, a crash or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/input/input_error.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/estimate.hpp"
#include "tools/scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const clustersim::Scenario s =
            clustersim::load_scenario_text(text, "fuzz/scenario.yaml", {});
        if (s.workload.kind.empty()) return 0;
        // What check does before building: validate, plan the fabric, estimate, apply limits
        // (trace files are left to their own target: they read more).
        const bool moe = s.workload.kind == "moe";
        if (!moe) (void)clustersim::validate_workload(s);
        if (s.workload.kind == "trace") return 0;
        const clustersim::FabricPlan plan =
            clustersim::plan_fabric(s, clustersim::workload_gpus(s, {}));
        std::uint64_t packets = 0;
        const clustersim::WorkloadSize w =
            clustersim::workload_size(s, plan.endpoints, nullptr, packets);
        clustersim::check_run_limits(s, clustersim::estimate_run(s, plan, w, packets));
        // A MoE step: its placement and gating set up, as check does (no token drawn).
        if (moe) clustersim::validate_moe_step(s, static_cast<std::uint32_t>(plan.endpoints));
    } catch (const clustersim::InputError& e) {
        if (e.formatted().find('\n') != std::string::npos) std::abort();  // one line, always
    }
    return 0;
}
