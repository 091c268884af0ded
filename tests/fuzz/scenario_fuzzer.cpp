// libFuzzer target: any bytes as a scenario file. Loading, validating and the cheap checks a run
// does before building must end in the scenario or an InputError; any other exception, a crash
// or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/input_error.hpp"
#include "tools/clustersim/scenario.hpp"
#include "tools/clustersim/scenario_build.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const clustersim::Scenario s =
            clustersim::load_scenario_text(text, "fuzz/scenario.yaml", {});
        if (!s.workload.kind.empty()) (void)clustersim::validate_workload(s);
    } catch (const clustersim::InputError& e) {
        if (e.formatted().find('\n') != std::string::npos) std::abort();  // one line, always
    }
    return 0;
}
