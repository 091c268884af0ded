// Regression goldens: runs the clustersim command named on the first line of a golden file and
// compares a readable summary of its results (every results.json key but wall-clock fields, the
// exit code, a digest and the first rows of messages.csv) with the rest of the file.
//   golden_check BINARY SOURCE_DIR FILE.golden [--update | --threads N | --ranks N]
// With --update (or CLUSTERSIM_UPDATE_GOLDENS=1) the file is rewritten instead of compared.
// With --threads N the run is simulated on N threads, with --ranks N over N MPI ranks
// (`mpirun -n N`), and must give the file byte for byte (a parallel run's results are the
// serial run's, not merely close to them).
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Json = nlohmann::ordered_json;

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Lines "key.path  value" for every leaf, in document order; wall-clock fields left out.
void flatten(const Json& j, const std::string& prefix, std::string& out) {
    if (j.is_object()) {
        for (const auto& [k, v] : j.items()) {
            const std::string path = prefix.empty() ? k : prefix + "." + k;
            // The binary's provenance differs by commit and build type, not by result.
            if (path == "sim.wall_s" || path == "sim.events_per_s" ||
                path == "sim.memory_estimate_bytes" || path == "tool")
                continue;
            flatten(v, path, out);
        }
        return;
    }
    out += fmt::format("{:<44} {}\n", prefix, j.dump());
}

std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

std::string summary(int exit_code, const std::string& json_text, const std::string& csv) {
    std::string out = fmt::format("{:<44} {}\n", "exit_code", exit_code);
    Json j;
    try {
        j = Json::parse(json_text);
    } catch (const std::exception& e) {
        return out + "results.json does not parse: " + e.what() + "\n";
    }
    flatten(j, "", out);
    std::vector<std::string> rows;
    std::istringstream in(csv);
    for (std::string line; std::getline(in, line);) rows.push_back(line);
    out += fmt::format("{:<44} {} rows, fnv1a64 {:016x}\n", "messages.csv",
                       rows.empty() ? 0 : rows.size() - 1, fnv1a(csv));
    for (std::size_t i = 0; i < rows.size() && i < 6; ++i) out += "  " + rows[i] + "\n";
    return out;
}

// "key  value" lines agree when their text does, or when the keys match and both values are
// numbers within a relative 1e-9 of each other.
bool same_line(const std::string& a, const std::string& b) {
    if (a == b) return true;
    const auto split = [](const std::string& line) {
        const std::size_t gap = line.find(' ');
        const std::size_t value = line.find_first_not_of(' ', gap);
        return std::pair{line.substr(0, gap),
                         value == std::string::npos ? std::string() : line.substr(value)};
    };
    const auto [ka, va] = split(a);
    const auto [kb, vb] = split(b);
    if (ka != kb || va.empty() || vb.empty()) return false;
    const auto number = [](const std::string& v, double& out) {
        char* end = nullptr;
        out = std::strtod(v.c_str(), &end);
        return end == v.c_str() + v.size() && v.find_first_not_of("0123456789+-.eE") == v.npos;
    };
    double x = 0, y = 0;
    if (!number(va, x) || !number(vb, y)) return false;
    return std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: golden_check BINARY SOURCE_DIR FILE.golden [--update]\n");
        return 2;
    }
    const std::string binary = argv[1];
    const std::filesystem::path source = argv[2];
    const std::filesystem::path golden = argv[3];
    const char* env = std::getenv("CLUSTERSIM_UPDATE_GOLDENS");
    const std::string mode = argc > 5 ? std::string(argv[4]) : std::string();
    const bool ranked = mode == "--ranks";
    const bool threaded = mode == "--threads" || ranked;
    const std::string threads = threaded ? std::string(argv[5]) : std::string();
    if (threaded && threads.find_first_not_of("0123456789") != std::string::npos) return 2;
    const std::string unit = ranked ? "ranks" : "threads";
    const bool update = !threaded && ((argc > 4 && std::string(argv[4]) == "--update") ||
                                      (env != nullptr && std::string(env) == "1"));

    // Header: lines starting with '#'; the first is "# clustersim ARGS".
    const std::string text = slurp(golden);
    std::istringstream lines(text);
    std::string header, first;
    for (std::string line; std::getline(lines, line) && line.rfind("#", 0) == 0;)
        header += line + "\n";
    first = header.substr(0, header.find('\n'));
    const std::string prefix = "# clustersim ";
    if (first.rfind(prefix, 0) != 0) {
        std::fprintf(stderr, "%s: first line must be '# clustersim ARGS'\n",
                     golden.string().c_str());
        return 2;
    }
    const std::string args = first.substr(prefix.size());

    const auto dir = std::filesystem::temp_directory_path() /
                     fmt::format("clustersim-golden-{}-{}", golden.stem().string(), getpid());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    // Every run also digests its event order (sim.fingerprint), so a change that reorders
    // events while keeping every count is caught too.
    // Over ranks: OpenMPI's mpirun (CI containers run as root, which it must be told).
    const std::string launch =
        ranked ? "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun "
                 "--oversubscribe -n " +
                     threads + " "
               : std::string();
    const std::string cmd = fmt::format(
        "cd '{}' && {}'{}' {}{} --set sim.fingerprint=true --quiet --out '{}' >/dev/null 2>'{}'",
        source.string(), launch, binary, args,
        threaded && !ranked ? " --threads " + threads : std::string(), (dir / "out").string(),
        (dir / "stderr").string());
    const int status = std::system(cmd.c_str());
    const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const std::string actual = header + summary(exit_code, slurp(dir / "out" / "results.json"),
                                                slurp(dir / "out" / "messages.csv"));
    const std::string err = slurp(dir / "stderr");
    std::filesystem::remove_all(dir);

    if (update) {
        std::ofstream(golden, std::ios::binary) << actual;
        std::printf("updated %s\n", golden.string().c_str());
        return 0;
    }
    if (actual == text) return 0;
    if (threaded) {
        // Every differing line, no tolerance.
        std::istringstream a(text), b(actual);
        std::string la, lb;
        for (int n = 1, shown = 0; shown < 40; ++n) {
            const bool ha = static_cast<bool>(std::getline(a, la));
            const bool hb = static_cast<bool>(std::getline(b, lb));
            if (!ha && !hb) break;
            if (la != lb || ha != hb) {
                std::printf("line %d\n  one thread: %s\n  %s %s:  %s\n", n,
                            ha ? la.c_str() : "<end>", threads.c_str(), unit.c_str(),
                            hb ? lb.c_str() : "<end>");
                ++shown;
            }
        }
        std::printf("%s: the run on %s %s differs from the golden (stderr: %s)\n",
                    golden.string().c_str(), threads.c_str(), unit.c_str(), err.c_str());
        return 1;
    }
    // Show the differing lines, expected then actual; numbers within a relative 1e-9 agree
    // (the last digits of a double may move with the compiler, not with the model).
    std::istringstream a(text), b(actual);
    std::string la, lb;
    int shown = 0;
    for (int n = 1; shown < 40; ++n) {
        const bool ha = static_cast<bool>(std::getline(a, la));
        const bool hb = static_cast<bool>(std::getline(b, lb));
        if (!ha && !hb) break;
        if (!ha) la = "<end>";
        if (!hb) lb = "<end>";
        if (!same_line(la, lb)) {
            std::printf("line %d\n  expected: %s\n  actual:   %s\n", n, la.c_str(), lb.c_str());
            ++shown;
        }
    }
    if (shown == 0) return 0;
    std::printf("%s differs (stderr of the run: %s)\nregenerate: tools/update_goldens.sh\n",
                golden.string().c_str(), err.c_str());
    return 1;
}
