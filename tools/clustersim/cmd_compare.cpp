// clustersim compare OUT_A OUT_B ...: runs side by side, each against the first.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "tools/clustersim/commands.hpp"
#include "tools/scenario/compare.hpp"

namespace clustersim::cli {
namespace {

struct CompareOptions {
    std::vector<std::string> runs;
    bool json = false;
};

int run(const CompareOptions& o) {
    std::vector<Json> results;
    for (const std::string& r : o.runs) results.push_back(read_run_results(r));
    const Json c = compare_runs(o.runs, results);
    if (o.json)
        std::cout << json_text(c, 2) << "\n";
    else
        std::cout << compare_table(c);
    return kExitOk;
}

}  // namespace

Subcommand add_compare(CLI::App& app) {
    auto o = std::make_shared<CompareOptions>();
    auto* sub = app.add_subcommand(
        "compare", "headline numbers of several runs side by side, each against the first");
    sub->add_option("runs", o->runs, "two or more runs' --out folders (or their results.json)")
        ->required()
        ->expected(2, 64);
    sub->add_flag("--json", o->json, "print one JSON document on stdout");
    return {sub, [o] { return run(*o); }};
}

}  // namespace clustersim::cli
