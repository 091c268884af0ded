#include "traffic/workload_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/input/key_error.hpp"
#include "traffic/collectives.hpp"
#include "traffic/moe_workload.hpp"
#include "traffic/patterns.hpp"

namespace clustersim {
namespace {

PatternParams pattern(const WorkloadRequest& r) {
    if (r.endpoints < 2) throw KeyError("topology.endpoints", "traffic needs at least 2 endpoints");
    PatternParams p;
    p.endpoints = r.endpoints;
    p.message_bytes = r.message_bytes;
    p.start = r.start;
    p.seed = r.seed;
    return p;
}

Workload build_alltoall(const WorkloadRequest& r) {
    // One message per ordered pair: refuse what a run cannot index before allocating it.
    const std::uint64_t n = r.endpoints;
    if (n * (n - 1) > TaskRef::kMaxIndex)
        throw KeyError("workload.kind",
                       fmt::format("an all-to-all among {} endpoints is {} messages, more than "
                                   "the {} one run holds (expected at most 32,768 endpoints, "
                                   "e.g. a smaller topology.endpoints)",
                                   n, n * (n - 1), TaskRef::kMaxIndex));
    return all_to_all(pattern(r));
}
Workload build_permutation(const WorkloadRequest& r) {
    return permutation(pattern(r));
}
Workload build_incast(const WorkloadRequest& r) {
    const PatternParams p = pattern(r);
    if (r.destination >= r.endpoints)
        throw KeyError("workload.destination",
                       fmt::format("endpoint {} does not exist (expected below {})", r.destination,
                                   r.endpoints));
    const std::uint32_t senders = r.senders == 0 ? r.endpoints - 1 : r.senders;
    if (senders >= r.endpoints)
        throw KeyError("workload.senders",
                       fmt::format("{} senders need more than {} endpoints (expected at most {})",
                                   senders, r.endpoints, r.endpoints - 1));
    return incast(p, r.destination, senders);
}
Workload build_trace(const WorkloadRequest& r) {
    if (!r.trace)
        throw KeyError("workload.kind",
                       "a trace workload needs workload.file (expected a .cm or .csv path)");
    if (r.trace_nodes > r.endpoints)
        throw KeyError("topology.endpoints",
                       fmt::format("the trace names {} nodes but the topology has {} endpoints "
                                   "(expected at least {})",
                                   r.trace_nodes, r.endpoints, r.trace_nodes));
    return *r.trace;
}

Workload build_allreduce(const WorkloadRequest& r) {
    // Tree chunks of about 1 MiB (NCCL pipelines in chunks of that order), 2 to 256 of them.
    const auto chunks =
        static_cast<std::uint32_t>(std::clamp<std::uint64_t>(r.message_bytes >> 20, 2, 256));
    return all_reduce(pattern(r), r.tree ? CollectiveAlgorithm::Tree : CollectiveAlgorithm::Ring,
                      chunks);
}
Workload build_allgather(const WorkloadRequest& r) {
    return all_gather(pattern(r));
}
Workload build_reducescatter(const WorkloadRequest& r) {
    return reduce_scatter(pattern(r));
}

// Sizes, as the builders above make them.
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
    return b == 0 ? 0 : (a + b - 1) / b;
}
WorkloadSize size_alltoall(const WorkloadRequest& r) {
    const std::uint64_t n = r.endpoints;
    return {n < 2 ? 0 : n * (n - 1), r.message_bytes, 0};
}
WorkloadSize size_permutation(const WorkloadRequest& r) {
    return {r.endpoints, r.message_bytes, 0};
}
WorkloadSize size_incast(const WorkloadRequest& r) {
    const std::uint64_t senders = r.senders == 0 && r.endpoints > 0 ? r.endpoints - 1 : r.senders;
    return {senders, r.message_bytes, 0};
}
WorkloadSize size_ring(const WorkloadRequest& r, std::uint64_t steps) {  // n messages a step
    const std::uint64_t n = r.endpoints;
    return {steps * n, ceil_div(r.message_bytes, n), steps > 0 ? (steps - 1) * n : 0};
}
WorkloadSize size_allreduce(const WorkloadRequest& r) {
    const std::uint64_t n = r.endpoints;
    if (n < 2) return {};
    if (!r.tree) return size_ring(r, 2 * (n - 1));
    const std::uint64_t chunks = std::clamp<std::uint64_t>(r.message_bytes >> 20, 2, 256);
    const std::uint64_t messages = chunks * 2 * (n - 1);  // up and down the tree, per chunk
    return {messages, ceil_div(r.message_bytes, chunks), 3 * messages};  // at most 3 inputs each
}
WorkloadSize size_allgather(const WorkloadRequest& r) {
    return r.endpoints < 2 ? WorkloadSize{} : size_ring(r, r.endpoints - 1);
}

Workload build_moe(const WorkloadRequest& r) {
    if (!r.moe) throw KeyError("workload.kind", "a moe workload needs model.name");
    return build_moe_run(*r.moe).workload;
}

const KeySpec kDestination =
    keys::integer_default("workload.destination", 0, 1e8, 0, "", "incast receiver");
const KeySpec kSenders = keys::integer("workload.senders", 1, 1e8, "all others", "incast senders");
const KeySpec kAlgorithm = keys::choice_default("workload.algorithm", {"ring", "tree"}, "ring",
                                                "all-reduce algorithm (NCCL's two)");

void parse_incast(const KeyValues& v, WorkloadRequest& r) {
    r.destination = static_cast<std::uint32_t>(v.integer(kDestination));
    r.senders = static_cast<std::uint32_t>(v.integer_or(kSenders.path, 0));  // 0: all others
}
void parse_allreduce(const KeyValues& v, WorkloadRequest& r) {
    r.tree = v.text(kAlgorithm) == "tree";
}

}  // namespace

// clang-format off
const Registry<WorkloadKind>& workload_kinds() {
    static const Registry<WorkloadKind> kinds({
        {"alltoall", "one message per ordered pair of distinct endpoints", true, &build_alltoall, &size_alltoall, {}, nullptr},
        {"permutation", "every endpoint sends to one other and receives from one (seeded)", true, &build_permutation, &size_permutation, {}, nullptr},
        {"incast", "workload.senders endpoints send to workload.destination", true, &build_incast, &size_incast, {kDestination, kSenders}, &parse_incast},
        {"allreduce", "NCCL-style all-reduce of message_bytes per rank (ring, or tree)", true, &build_allreduce, &size_allreduce, {kAlgorithm}, &parse_allreduce},
        {"allgather", "NCCL-style ring all-gather (message_bytes: the output buffer)", true, &build_allgather, &size_allgather, {}, nullptr},
        {"reducescatter", "NCCL-style ring reduce-scatter (message_bytes: the input buffer)", true, &build_reducescatter, &size_allgather, {}, nullptr},
        {"trace", "messages and triggers from workload.file (.cm or .csv)", false, &build_trace, nullptr, {}, nullptr},
        {"moe", "a MoE decode step: attention, dispatch, experts, combine per layer and micro-batch", false, &build_moe, nullptr, {}, nullptr},
    });
    return kinds;
}
// clang-format on

const WorkloadKind* find_workload_kind(std::string_view name) {
    return workload_kinds().find(name);
}

}  // namespace clustersim
