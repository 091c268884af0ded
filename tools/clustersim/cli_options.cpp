// What the scenario subcommands share: their positional file, --set and --json.
#include "tools/clustersim/commands.hpp"

namespace clustersim::cli {

void add_scenario_options(CLI::App* sub, ScenarioOptions& o, bool json, bool required,
                          const std::string& file_help) {
    auto* file = sub->add_option("scenario", o.scenario, file_help);
    if (required) file->required();
    sub->add_option("--set", o.sets,
                    "override one key: PATH=VALUE (VALUE parsed as YAML); repeatable");
    if (json) sub->add_flag("--json", o.json, "print one JSON document on stdout");
}

Scenario load(const ScenarioOptions& o, std::optional<std::uint64_t> seed) {
    std::vector<Override> overrides;
    for (const auto& s : o.sets) overrides.push_back(parse_override(s));
    Scenario s = load_scenario(o.scenario, overrides);
    if (seed) s.seed = *seed;
    return s;
}

std::string non_empty_path(const std::string& v) {
    return v.empty() ? std::string("an empty path (expected a folder to write into)")
                     : std::string();
}

}  // namespace clustersim::cli
