#pragma once
// The workload kinds this build has: one table entry each (name, help, builder). Adding a kind
// is a builder in its own file and a row in traffic/workload_kinds.cpp; the scenario schema
// lists the names from here. Builders throw KeyError naming the scenario key at fault.
#include <cstdint>
#include <span>
#include <vector>

#include <string_view>
#include "sim/input/key_spec.hpp"
#include "sim/registry.hpp"

#include "models/dag/workload.hpp"

namespace clustersim {

struct WorkloadRequest {
    std::uint32_t endpoints = 0;
    std::uint64_t message_bytes = 0;  // 0: not set
    Time start;
    std::uint64_t seed = 1;
    std::uint32_t destination = 0;           // incast
    std::uint32_t senders = 0;               // incast; 0 = every other endpoint
    bool tree = false;                       // allreduce: tree (else ring)
    const Workload* trace = nullptr;         // trace: read by the caller from workload.file
    const struct MoeRunSpec* moe = nullptr;  // moe: model, placement, gating, compute
    std::uint32_t trace_nodes = 0;
};

/// A workload's size from formulas, before it is built (run estimates).
struct WorkloadSize {
    std::uint64_t messages = 0;
    std::uint64_t message_bytes = 0;  // each message's (the largest)
    std::uint64_t dependencies = 0;
    std::uint64_t computes = 0, joins = 0;  // DAG tasks besides transfers (MoE steps)
    std::uint64_t other_bytes = 0;          // held besides the DAG: a MoE step's tables while built
    std::uint64_t gating_scores = 0;        // a MoE step's expert scores drawn while it is built
};

struct WorkloadKind {
    std::string_view name;
    std::string_view help;
    bool needs_message_bytes = false;
    Workload (*build)(const WorkloadRequest&);
    WorkloadSize (*size)(const WorkloadRequest&) = nullptr;  // null: known once built (files)
    std::vector<KeySpec> keys;                               // workload.* keys of this kind only
    void (*parse)(const KeyValues&, WorkloadRequest&) = nullptr;
};

const Registry<WorkloadKind>& workload_kinds();
/// The kind named `name`, or null.
const WorkloadKind* find_workload_kind(std::string_view name);

}  // namespace clustersim
