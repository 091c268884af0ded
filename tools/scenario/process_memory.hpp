#pragma once
// How much memory this process may use: the machine's, cut by its own limits -- ulimit's
// address-space and data limits and its cgroup's (v2 memory.max, v1 memory.limit_in_bytes) --
// so the default sim.max_memory_gb refuses a run before the kernel kills it.
#include <cstdint>

namespace clustersim {

struct ProcessMemory {
    std::uint64_t bytes = UINT64_MAX;  // the smallest limit found
    const char* source = "unknown";    // which: "machine's memory", "ulimit -v limit", ...
};
ProcessMemory process_memory_limit();

}  // namespace clustersim
