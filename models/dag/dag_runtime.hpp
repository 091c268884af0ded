#pragma once
// Runs a workload's DAG: starts tasks at their start times, counts a join's inputs, queues
// compute tasks on their GPU (one runs at a time, in activation order, so two micro-batches
// compete for a GPU as on real hardware) and activates successors when a task completes. It
// does not move bytes: transfers it starts are handed to the network, whose transport reports
// back when a message's last byte has been sent and received.
#include <cstdint>
#include <span>
#include <vector>

#include "models/dag/workload.hpp"
#include "models/network/network_params.hpp"
#include "sim/per_partition.hpp"
#include "sim/ring_buffer.hpp"
#include "sim/simulator.hpp"

namespace clustersim {

struct ComputeState {
    Time activated = Time::never();  // queued on its GPU
    Time started = Time::never();    // began running
    Time finished = Time::never();
};

class DagRuntime {
  public:
    /// `gpu_process`: the logical process each GPU's tasks run in (sim/event.hpp);
    /// `join_process`: each join's (models/dag/task_processes.hpp).
    DagRuntime(Simulator& sim, const Workload& workload, std::span<const std::uint32_t> gpu_process,
               std::span<const std::uint32_t> join_process);
    /// Bytes per message (its successor row, input flags) and per dependency (run estimates):
    /// the graph's, the workload's once sealed (else the runtime's own copy). A workload where
    /// something waits for a message's send (normal-mode MoE, tree all-reduce, triggers) adds a
    /// second row per message, 4 B more, not counted.
    static constexpr std::uint64_t kBytesPerMessage = sizeof(std::uint32_t) + 1;
    static constexpr std::uint64_t kBytesPerDependency = sizeof(std::uint32_t);  // packed TaskRef
    static std::uint64_t bytes_per_join() { return sizeof(JoinState) + 2 * sizeof(std::uint32_t); }

    /// Schedules every task that has a start time and no input.
    void start();
    /// A task is activated (kActivate). Transfers are returned for the network to start
    /// (true); other kinds are handled here (false).
    bool activate(TaskRef t);
    /// A task completed in the given way: its successors are activated.
    void complete(TaskRef t, Completion on);
    /// The running compute task of `gpu` ends (kComputeDone).
    void compute_done(std::uint32_t gpu);
    /// A fault makes the GPU compute `factor` times slower from now on (1: healthy; 0: it stops
    /// until set again). Rounded to 1/1000.
    void set_slowdown(std::uint32_t gpu, double factor);

    /// Whether anything waits for this completion (no event is needed for one nobody awaits).
    bool awaited(TaskRef t, Completion on) const { return !graph_->successors(t, on).empty(); }
    std::uint64_t computes_finished() const { return computes_finished_.sum(); }
    /// A windowed run's partitions (sim/simulator.hpp): the count of finished tasks apart.
    void set_partitions(std::uint32_t partitions) { computes_finished_.resize(partitions); }
    std::span<const ComputeState> computes() const { return compute_state_; }
    std::vector<ComputeState> take_computes() { return std::move(compute_state_); }

  private:
    struct JoinState {
        std::uint32_t remaining = 0;
        std::uint32_t next_successor = 0;  // Sequence joins
        bool fired = false;
    };
    struct Gpu {
        RingBuffer<std::uint32_t> queue;  // compute tasks waiting, in activation order
        std::uint32_t running = kNone;
        // The running task's work left at full speed, as of `since`, and when it will end at
        // the current speed; a completion event at any other time is stale and ignored.
        std::int64_t work_left_ps = 0;
        Time since, done_at = Time::never();
        std::int32_t comm_sms = 0;              // SMs held by communication kernels
        std::int64_t slowdown_permille = 1000;  // a fault's slowdown x 1000 (0: hung)
    };
    /// The process that handles a task's activation: its GPU's (a transfer's sender's; a
    /// join's where its inputs complete).
    std::uint32_t process_of(TaskRef t) const;
    void fire(std::uint32_t join);
    void run_next(std::uint32_t gpu);
    void move_sms(std::uint32_t gpu, std::int32_t delta);
    void bank_work(Gpu& g);                        // the running task's work left, as of now
    std::int64_t compute_sms(const Gpu& g) const;  // SMs left to compute (gpu_sms > 0)
    void schedule_done(std::uint32_t gpu);

    Simulator& sim_;
    std::span<const std::uint32_t> gpu_process_;
    std::span<const std::uint32_t> join_process_;
    const Workload& workload_;
    DependencyGraph own_graph_;     // the workload's list in rows, when it is not sealed
    const DependencyGraph* graph_;  // the workload's graph, or own_graph_
    std::vector<bool> has_input_message_, has_input_compute_;
    std::vector<JoinState> joins_;
    std::vector<Gpu> gpus_;
    std::vector<ComputeState> compute_state_;
    PerPartition<std::uint64_t> computes_finished_;
};

}  // namespace clustersim
