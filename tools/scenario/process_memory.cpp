#include "tools/scenario/process_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace clustersim {
namespace {

void consider(ProcessMemory& m, std::uint64_t bytes, const char* source) {
    if (bytes > 0 && bytes < m.bytes) m = {bytes, source};
}

// A cgroup limit file holds a byte count or "max"; anything else (or no file) is no limit.
std::uint64_t cgroup_limit(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max" || text.size() > 20) return 0;
    std::uint64_t bytes = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return 0;
        bytes = bytes * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return bytes;
}

}  // namespace

ProcessMemory process_memory_limit() {
    ProcessMemory m;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        consider(m, static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page),
                 "machine's memory");
    rlimit r{};
    if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
        consider(m, r.rlim_cur, "ulimit -v limit");
    if (getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
        consider(m, r.rlim_cur, "ulimit -d limit");
    // The process's cgroups, as /proc/self/cgroup names them ("0::/path" for v2,
    // "N:memory:/path" for v1); inside a container the mount may show its own cgroup at the top.
    std::ifstream cgroups("/proc/self/cgroup");
    for (std::string line; std::getline(cgroups, line) && line.size() < 4096;) {
        const auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        if (controllers.empty()) {
            consider(m, cgroup_limit("/sys/fs/cgroup" + path + "/memory.max"),
                     "cgroup's memory limit");
            consider(m, cgroup_limit("/sys/fs/cgroup/memory.max"), "cgroup's memory limit");
        } else if (controllers.find("memory") != std::string::npos) {
            consider(m, cgroup_limit("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes"),
                     "cgroup's memory limit");
            consider(m, cgroup_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
                     "cgroup's memory limit");
        }
    }
    return m;
}

}  // namespace clustersim
