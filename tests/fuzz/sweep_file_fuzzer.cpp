// libFuzzer target: any bytes as a sweep file (its inline base included). Loading it, listing
// its points and fingerprinting them (what a sweep does before it runs one) must end in points
// or an InputError; any other exception, a crash or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/input/input_error.hpp"
#include "tools/scenario/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const clustersim::SweepSpec spec = clustersim::load_sweep_text(text, "fuzz/sweep.yaml", {});
        const auto points = clustersim::sweep_points(spec);
        if (!points.empty()) (void)clustersim::point_fingerprint(spec, points.front());
        // The base scenario of the first point, as the sweep loads it.
        if (!points.empty() && !spec.base_text.empty())
            (void)clustersim::load_scenario_text(spec.base_text, spec.file, points.front().sets);
    } catch (const clustersim::InputError& e) {
        if (e.formatted().find('\n') != std::string::npos) std::abort();  // one line, always
    }
    return 0;
}
