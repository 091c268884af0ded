// clustersim report OUT_DIR: report.html from a run's or a sweep's output folder, drawn by
// tools/report.py with matplotlib (Debian python3-matplotlib).
#include "tools/clustersim/commands.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/input/input_error.hpp"

namespace clustersim::cli {

namespace {

// The script: CLUSTERSIM_REPORT_SCRIPT, else share/clustersim/report.py beside the binary (the
// build tree) or one folder up (an install: bin/ and share/ side by side), found from the
// binary's own path, so a copied or installed binary needs no source tree.
std::string report_script() {
    namespace fs = std::filesystem;
    if (const char* env = std::getenv("CLUSTERSIM_REPORT_SCRIPT")) {
        if (!fs::is_regular_file(env))
            throw std::runtime_error(std::string("CLUSTERSIM_REPORT_SCRIPT names ") + env +
                                     ", which is not a file");
        return env;
    }
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    const fs::path dir = exe.parent_path();
    for (const fs::path& candidate :
         {dir / "share/clustersim/report.py", dir.parent_path() / "share/clustersim/report.py"})
        if (!ec && fs::is_regular_file(candidate)) return candidate.string();
    throw std::runtime_error(
        "the report script is missing: expected share/clustersim/report.py "
        "beside " +
        dir.string() +
        " or one folder up (cmake --install "
        "puts it there), or CLUSTERSIM_REPORT_SCRIPT");
}

// "PATH:LINE: what" or "PATH: what", as report.py says it, back into a located InputError.
InputError located_report_error(const std::string& out_dir, const std::string& said) {
    const std::string line = said.substr(0, said.find('\n'));
    const auto sep = line.find(": ");
    if (line.empty() || sep == std::string::npos)
        return InputError(out_dir, line.empty() ? "the report script could not read it" : line);
    std::string where = line.substr(0, sep);
    std::uint32_t at = 0;
    if (const auto colon = where.rfind(':'); colon != std::string::npos) {
        const std::string digits = where.substr(colon + 1);
        if (!digits.empty() && digits.size() < 10 &&
            digits.find_first_not_of("0123456789") == std::string::npos) {
            at = static_cast<std::uint32_t>(std::stoul(digits));
            where.resize(colon);
        }
    }
    return InputError(where, at, at > 0 ? 1 : 0, {}, line.substr(sep + 2));
}

}  // namespace

std::string write_report(const std::vector<std::string>& dirs, double slo_tpot_ms) {
    namespace fs = std::filesystem;
    for (const std::string& d : dirs)
        if (!fs::is_regular_file(fs::path(d) / "results.json"))
            throw InputError(d,
                             "holds no results.json (expected the --out folder of a run "
                             "or a sweep)");
    const std::string& out_dir = dirs.front();
    const std::string script = report_script();
    // Debian's interpreter, which has python3-matplotlib, before any other on the PATH.
    const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    std::vector<std::string> args = {python, script};
    args.insert(args.end(), dirs.begin(), dirs.end());
    if (slo_tpot_ms > 0) {
        args.push_back("--slo-tpot-ms");
        args.push_back(fmt::format("{}", slo_tpot_ms));
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // The script's stderr comes back through a pipe: its one line about a bad input becomes
    // this command's one line.
    int err[2];
    if (pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("cannot start the report script");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("cannot start the report script");
    if (pid == 0) {
        dup2(err[1], 2);
        execvp(argv[0], argv.data());
        _exit(127);
    }
    close(err[1]);
    std::string said;
    char buffer[4096];
    for (ssize_t n; (n = read(err[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        if (said.size() < 65536) said.append(buffer, static_cast<std::size_t>(n));
    }
    close(err[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) throw std::runtime_error("lost the report script");
    while (!said.empty() && (said.back() == '\n' || said.back() == '\r')) said.pop_back();
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) throw located_report_error(out_dir, said);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error(fmt::format(
            "the report script failed (is python3-matplotlib installed? "
            "tools/install_dependencies.sh installs it); exit status {}: {}",
            WIFEXITED(status) ? WEXITSTATUS(status) : -1, InputError::printable(said, 600)));
    if (!said.empty()) fmt::print(stderr, "{}\n", said);  // warnings, passed on
    return (fs::path(out_dir) / (dirs.size() > 1 ? "compare.html" : "report.html")).string();
}

Subcommand add_report(CLI::App& app) {
    struct Options {
        std::vector<std::string> dirs;
        double slo_tpot_ms = 0;
    };
    auto o = std::make_shared<Options>();
    auto* sub = app.add_subcommand(
        "report",
        "write report.html (plots, offline) from a run's or a sweep's --out folder; of several "
        "runs' folders, compare.html in the first: them side by side");
    sub->add_option("out_dir", o->dirs, "the --out folder of a run or a sweep, or several runs'")
        ->required()
        ->expected(1, 16);
    sub->add_option("--slo-tpot-ms", o->slo_tpot_ms, "sweeps: the TPOT service-level line")
        ->check(CLI::Range(0.0, 1e9));
    return {sub, [o] {
                fmt::print(stderr, "clustersim: wrote {}\n", write_report(o->dirs, o->slo_tpot_ms));
                return kExitOk;
            }};
}

}  // namespace clustersim::cli
