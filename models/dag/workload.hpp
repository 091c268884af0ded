#pragma once
// What is run: a DAG of tasks. A task is a transfer (a message between endpoints), a compute
// task on a GPU (served in order with the GPU's other compute tasks) or a join (fires once its
// inputs have arrived). A dependency says which completion of one task -- a message's last
// byte sent or received, a compute task or join done -- activates another. Traffic generators
// and trace readers produce this; the DAG runtime executes it. htsim's connection-matrix
// triggers are joins: oneshot = first, barrier = all (count), multishot = sequence.
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/dag/dependency_graph.hpp"
#include "models/network/packet.hpp"
#include "sim/time.hpp"

namespace clustersim {

/// A message as it is added to a workload.
struct MessageSpec {
    std::uint32_t src = 0;
    std::uint32_t dst = 0;
    std::uint64_t bytes = 0;
    Time start = Time::never();  // absolute start; never when only dependencies start it
    std::uint64_t label = 0;     // the id users know it by (trace id; 0: its index)
};

/// A message as the workload keeps it, 16 B: its start time and label are kept beside it only
/// when some message has its own (a MoE step's millions start by triggers and are known by
/// their index, so they need neither).
struct Message {
    std::uint32_t src = 0;
    std::uint32_t dst = 0;
    std::uint64_t bytes = 0;
};
static_assert(sizeof(Message) == 16);

struct ComputeSpec {
    std::uint32_t gpu = 0;  // endpoint whose compute queue runs it
    Time duration;
    Time start = Time::never();  // absolute release time when nothing else starts it
    std::uint64_t label = 0;
};

enum class JoinKind : std::uint8_t {
    All,       // fires on the count-th activation (a barrier)
    First,     // fires on the first activation, once
    Sequence,  // each activation activates the next successor, in order
};

struct JoinSpec {
    JoinKind kind = JoinKind::All;
    std::uint32_t count = 1;  // activations needed (All)
    Time delay;               // between firing and its successors' activation
    std::uint64_t label = 0;
    // When it fires, communication kernels on `gpu` take (positive) or give back (negative)
    // this many of its SMs: compute running there slows in proportion (DeepEP's normal kernels
    // occupy SMs while they run; Workload::gpu_sms says how many the GPU has).
    std::uint32_t gpu = kNone;
    std::int32_t comm_sms = 0;
};

struct Workload {
    std::vector<Message> messages;
    std::vector<ComputeSpec> computes;
    std::vector<JoinSpec> joins;
    std::vector<Dependency> dependencies;  // in insertion order: the order successors run in
    DependencyGraph graph;                 // once sealed: the dependencies, and the list empty
    std::uint32_t gpu_sms = 0;  // SMs per GPU, for joins that move SMs to communication kernels
    // Messages between GPUs of one node sent through their NICs and the first switch rather
    // than over NVLink (DeepEP's low-latency kernels before NVLink, intranode_via: rdma); empty
    // when there are none, so it costs nothing otherwise.
    std::vector<bool> via_nic;

    void send_via_nic(std::uint32_t message) {
        if (via_nic.size() < messages.size()) via_nic.resize(messages.size(), false);
        via_nic[message] = true;
    }
    bool sent_via_nic(std::uint32_t message) const {
        return message < via_nic.size() && via_nic[message];
    }

    std::uint32_t add_message(const MessageSpec& m) {
        require_open();
        const auto index = static_cast<std::uint32_t>(messages.size());
        messages.push_back(Message{m.src, m.dst, m.bytes});
        if (!starts_.empty()) starts_.push_back(Time::never());
        if (!labels_.empty()) labels_.push_back(index);
        if (m.start != Time::never()) set_start(index, m.start);
        if (m.label != 0) set_label(index, m.label);
        return index;
    }
    /// When message m starts by itself (never: only its dependencies start it).
    Time start_of(std::uint32_t m) const { return starts_.empty() ? Time::never() : starts_[m]; }
    void set_start(std::uint32_t m, Time at) {
        if (starts_.empty()) {
            if (at == Time::never()) return;
            starts_.assign(messages.size(), Time::never());
        }
        starts_[m] = at;
    }
    /// The id users know message m by (its index unless it was given one).
    std::uint64_t label_of(std::uint32_t m) const { return labels_.empty() ? m : labels_[m]; }
    void set_label(std::uint32_t m, std::uint64_t label) {
        if (labels_.empty()) {
            if (label == m) return;
            labels_.resize(messages.size());
            std::iota(labels_.begin(), labels_.end(), std::uint64_t{0});
        }
        labels_[m] = label;
    }
    /// Bytes the start and label tables hold (none when no message has its own).
    std::size_t side_table_bytes() const {
        return starts_.capacity() * sizeof(Time) + labels_.capacity() * sizeof(std::uint64_t);
    }
    std::uint32_t add_compute(const ComputeSpec& c) {
        require_open();
        computes.push_back(c);
        return static_cast<std::uint32_t>(computes.size() - 1);
    }
    std::uint32_t add_join(const JoinSpec& j) {
        require_open();
        joins.push_back(j);
        return static_cast<std::uint32_t>(joins.size() - 1);
    }
    void depend(TaskRef from, Completion on, TaskRef to) {
        require_open();
        dependencies.push_back(Dependency{from, on, to});
    }
    /// Turns the dependency list into the graph the runtime reads and frees the list, and the
    /// task lists' growth slack; nothing is added after. Done once the workload is validated,
    /// so that a run does not hold the list beside the graph.
    void seal();
    bool sealed() const { return !graph.empty() || released_edges_ != kNotReleased; }
    /// After the run nothing reads the graph: frees it, so that what is built from the results
    /// does not hold it beside them (the workload stays sealed; a run of it is refused).
    void release_graph() {
        if (!sealed() || released_edges_ != kNotReleased) return;
        released_edges_ = graph.edges();
        graph = DependencyGraph{};
    }
    /// Tasks and dependencies are added only before the workload is sealed (its graph's slots
    /// are counted then).
    void require_open() const {
        if (sealed()) throw std::logic_error("a task or dependency added to a sealed workload");
    }
    std::size_t dependency_count() const {
        if (released_edges_ != kNotReleased) return released_edges_;
        return sealed() ? graph.edges() : dependencies.size();
    }
    /// f(dependency) for each, from the list or, once sealed, from the graph.
    template <class F>
    void for_each_dependency(F&& f) const {
        if (!sealed()) {
            for (const Dependency& d : dependencies) f(d);
            return;
        }
        graph.for_each_edge(f);
    }
    /// `message` starts `delay` after every one of `after` has been received.
    void start_after(std::uint32_t message, const std::vector<std::uint32_t>& after, Time delay);
    std::uint64_t total_bytes() const {
        std::uint64_t b = 0;
        for (const auto& m : messages) b += m.bytes;
        return b;
    }
    /// Empty when consistent, else what is wrong (for loaders to turn into input errors).
    std::string validate(std::uint32_t endpoints) const;

  private:
    static constexpr std::size_t kNotReleased = ~std::size_t{0};
    std::size_t released_edges_ = kNotReleased;  // the graph's edges, once released
    std::vector<Time> starts_;                   // per message, or empty: none starts by itself
    std::vector<std::uint64_t> labels_;          // per message, or empty: each is its index
};

}  // namespace clustersim
