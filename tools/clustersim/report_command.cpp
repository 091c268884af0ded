#include "tools/clustersim/report_command.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "sim/input_error.hpp"

namespace clustersim {

void write_report(const std::string& out_dir, double slo_tpot_ms) {
    namespace fs = std::filesystem;
    if (!fs::is_regular_file(fs::path(out_dir) / "results.json"))
        throw InputError(out_dir,
                         "holds no results.json (expected the --out folder of a run "
                         "or a sweep)");
    // The script: CLUSTERSIM_REPORT_SCRIPT, else the one in the source tree this was built from.
    const char* env = std::getenv("CLUSTERSIM_REPORT_SCRIPT");
    const std::string script = env ? env : CLUSTERSIM_REPORT_SCRIPT;
    if (!fs::is_regular_file(script))
        throw std::runtime_error("the report script " + script + " is missing");
    // Debian's interpreter, which has python3-matplotlib, before any other on the PATH.
    const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    std::vector<std::string> args = {python, script, out_dir};
    if (slo_tpot_ms > 0) {
        args.push_back("--slo-tpot-ms");
        args.push_back(fmt::format("{}", slo_tpot_ms));
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("cannot start the report script");
    if (pid == 0) {
        execvp(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) throw std::runtime_error("lost the report script");
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
        throw InputError(out_dir, "the report script could not read these results (see above)");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error(
            fmt::format("the report script failed (is python3-matplotlib installed? "
                        "tools/install_dependencies.sh installs it); exit status {}",
                        WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

}  // namespace clustersim
