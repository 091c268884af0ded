// clustersim: packet-level simulation of AI cluster fabrics. Command line of shared/spec/cli.md:
// each subcommand is its own file (cmd_*.cpp); this one parses and maps errors to exit codes.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "sim/input/input_error.hpp"
#include "tools/clustersim/commands.hpp"
#include "tools/scenario/build_info.hpp"

namespace cli = clustersim::cli;

int main(int argc, char** argv) {
    const clustersim::MpiSession mpi(argc, argv);  // a world of one unless started by mpirun
    if (mpi.unsupported()) {
        fmt::print(stderr,
                   "clustersim: started by mpirun over several processes, but this build has no "
                   "MPI (expected a build configured with -DCLUSTERSIM_MPI=ON, as "
                   "tools/setup.sh does)\n");
        return cli::kExitBadInput;
    }
    CLI::App app{"clustersim: packet-level network simulator for AI GPU clusters"};
    app.require_subcommand(1);
    const clustersim::BuildInfo& build = clustersim::build_info();
    app.set_version_flag("--version", fmt::format("clustersim {} (commit {}, {} build)",
                                                  build.version, build.commit, build.build));
    const std::vector<cli::Subcommand> subcommands = {
        cli::add_run(app, mpi),    cli::add_topo(app),       cli::add_traffic(app),
        cli::add_check(app),       cli::add_sweep(app, mpi), cli::add_report(app),
        cli::add_compare(app),     cli::add_bench(app),      cli::add_serve_search(app),
        cli::add_availability(app)};

    // An unknown first word is named as such (CLI11 would only say a subcommand is required).
    if (argc > 1 && argv[1][0] != '-') {
        const std::string word = argv[1];
        bool known = false;
        for (const auto& sub : subcommands) known |= sub.app->get_name() == word;
        if (!known) {
            fmt::print(stderr,
                       "clustersim: unknown subcommand '{}' (expected run, topo, traffic, check, "
                       "sweep, report, compare, bench, serve-search or availability; see "
                       "clustersim --help)\n",
                       clustersim::InputError::printable(word, 80));
            return cli::kExitBadInput;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "clustersim: {} (see clustersim --help)\n", e.what());
        return cli::kExitBadInput;
    }
    try {
        for (const auto& sub : subcommands) {
            if (!sub.app->parsed()) continue;
            // Under mpirun only run and sweep share their work over the ranks; any other
            // subcommand is rank 0's alone (the others would print it again).
            const std::string name = sub.app->get_name();
            if (mpi.rank() != 0 && name != "run" && name != "sweep") return cli::kExitOk;
            return sub.run();
        }
    } catch (const clustersim::InputError& e) {
        // Over MPI ranks the input is every rank's, so rank 0 says what is wrong; an error
        // met by one rank alone (its output folder) must not leave the others waiting.
        if (mpi.rank() == 0) fmt::print(stderr, "{}\n", e.formatted());
        if (mpi.ranks() > 1) mpi.abort(cli::kExitBadInput);
        return cli::kExitBadInput;
    } catch (const std::exception& e) {
        fmt::print(stderr, "clustersim: internal error: {}\n", e.what());
        if (mpi.ranks() > 1) mpi.abort(cli::kExitInternal);
        return cli::kExitInternal;
    }
    return cli::kExitInternal;
}
