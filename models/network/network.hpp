#pragma once
// A running packet network: four parts with narrow interfaces, composed here.
//   fabric     links, egress ports, buffers and credits     (models/fabric.hpp)
//   forwarding the output each switch picks                  (models/forwarding.hpp)
//   transport  messages to packets and back, per sender      (models/rdma_transport.hpp)
//   DAG        transfers, compute tasks and joins            (models/dag_runtime.hpp)
// One handler switches on the event kind (models/network_params.hpp): no virtual dispatch and
// no allocation per packet in steady state.
#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "models/dag/dag_runtime.hpp"
#include "models/dag/workload.hpp"
#include "models/fabric/fabric.hpp"
#include "models/faults/fault_plan.hpp"
#include "models/forwarding/forwarding.hpp"
#include "models/forwarding/forwarding_tables.hpp"
#include "models/network/logical_processes.hpp"
#include "models/network/network_params.hpp"
#include "models/network/node_layout.hpp"
#include "models/network/partitions.hpp"
#include "models/network/port_graph.hpp"
#include "models/network/tier_series.hpp"
#include "models/transport/rdma_transport.hpp"
#include "sim/simulator.hpp"

namespace clustersim {

/// Why the model reads state across processes with no delay, if it does (HPCC's hop records,
/// UGAL-G's remote queues): then the run is one partition. Empty when it does not.
std::string shared_state_reason(const NetworkParams& params);

/// One sampled egress port: its queue (and whether PFC holds it) at a moment.
struct QueueSample {
    Time at;
    std::uint32_t channel = 0;
    std::uint64_t queued_bytes = 0;
    bool paused = false;
    std::uint64_t drops = 0, ecn_marks = 0;  // so far at this port
};

struct NetworkCounters {
    std::uint64_t payload_sent = 0;       // message bytes put on the wire by senders
    std::uint64_t payload_delivered = 0;  // message bytes that reached their destination
    std::uint64_t payload_dropped = 0;
    std::uint64_t packets_sent = 0;
    std::uint64_t packets_dropped = 0;
    std::uint64_t duplicate_packets = 0;  // delivered again (retransmissions)
    std::uint64_t retransmitted_packets = 0;
    std::uint64_t payload_redundant = 0;       // delivered again, or discarded past a gap
    std::uint64_t discarded_out_of_order = 0;  // go-back-N receivers, past a gap
    std::uint64_t acks = 0, nacks = 0, timeouts = 0, connections_failed = 0;
    std::uint64_t pfc_pauses = 0, pfc_headroom_drops = 0;  // pause frames sent; lossless breaches
    std::uint64_t ecn_marks = 0, cnps = 0;
    std::uint64_t packet_hops = 0;  // packets crossing one link
    std::uint64_t messages_finished = 0;
    std::uint64_t computes_finished = 0;
};

class Network {
  public:
    /// `layout` (may be null: bare NICs) says how GPUs, hubs, scale-up switches and NICs sit in
    /// nodes; `routes` covers the fabric switches, which come first in `graph`. `partitions`:
    /// how many the processes are cut into for windows (models/network/partitions.hpp; 0: the
    /// default for their number; 1: the plain loop, the same results but stale wake-ups,
    /// which can differ in count).
    Network(Simulator& sim, const PortGraph& graph, const ForwardingTables& routes,
            const Workload& workload, const NetworkParams& params,
            const NodeLayout* layout = nullptr, const FaultPlan* faults = nullptr,
            std::uint32_t partitions = 0);

    /// Schedules every task that has a start time (and the first queue sample).
    void start() {
        // Faults first: one present from the start acts before the first packet moves.
        if (faults_)
            for (std::uint32_t i = 0; i < faults_->actions.size(); ++i)
                sim_.schedule(faults_->actions[i].at, i, kFault, sim_.observer_process());
        dag_.start();
        if (params_.sample_period > Time::zero()) schedule_sample(params_.sample_period, kSample);
        schedule_sample(series_.next_sample(), kTierSample);
    }
    /// Ports whose credits cannot bind keep none (models/network/non_binding_credits.hpp):
    /// the same results, fewer writes per packet. None with faults.
    void drop_non_binding_credits(const NodeLayout* layout);
    /// Per fault of the plan: packets it lost and when the fabric had reacted.
    std::vector<FaultOutcome> fault_outcomes() const;
    bool failed() const { return failed_; }
    std::span<const QueueSample> queue_samples() const { return samples_; }
    bool samples_truncated() const { return samples_truncated_; }
    const TierSeries& tier_series() const { return series_; }
    /// The run is over: one last point up to `end`, so that the series holds every byte.
    void close_tier_series(Time end) {
        if (series_.points() == 0 || series_.at(series_.points() - 1) < end)
            series_.sample(end, fabric_.links(), fabric_.ports(), sim_.ranks());
    }
    /// When the last event other than a sample ran: the run's end (samples never extend it).
    Time last_activity() const { return total().last_activity; }
    void handle(const Event& e);
    /// Starts loading what the event will read first (the packet a link delivers, the port a
    /// wake-up serves); a hint, no state changes.
    /// A window of the partitioned run is over (sim/simulator.hpp): credits returned over cut
    /// channels reach their ports; the packets alive are counted.
    void end_window() {
        fabric_.end_window();
        // This rank's partitions' counts, and over ranks the others' from the window's exchange
        // (they change only in windows, each followed by one).
        std::array<std::uint64_t, 3> sums = window_counts();
        if (sim_.ranks())
            for (std::size_t i = 0; i < sums.size(); ++i) sums[i] += other_ranks_counts_[i];
        const auto live = static_cast<std::size_t>(static_cast<std::int64_t>(sums[0]));
        if (live > window_peak_) window_peak_ = live;
        if (reliable_ && live == 0 && sums[1] == workload_.messages.size() &&
            sums[2] == workload_.computes.size())
            sim_.request_stop();
    }
    /// Ranks (sim/ranks.hpp): what crosses to another rank besides events is the fabric's.
    void pack_event(const Event& e, ByteWriter& out) const {
        if (e.kind == kLinkArrival) fabric_.pack_arrival(e.target, out);
    }
    void unpack_event(const Event& e, ByteReader& in) {
        if (e.kind == kLinkArrival) fabric_.unpack_arrival(e.target, in);
    }
    void pack_window(std::span<ByteWriter> per_rank) {
        fabric_.pack_handoffs(per_rank);
        const std::array<std::uint64_t, 3> mine = window_counts();
        for (ByteWriter& w : per_rank)
            for (const std::uint64_t c : mine) w.put(c);
        other_ranks_counts_ = {};
    }
    void unpack_window(ByteReader& in) {
        fabric_.unpack_handoffs(in);
        for (std::uint64_t& c : other_ranks_counts_) c += in.get<std::uint64_t>();
    }
    const Partitions& partitions() const { return partitions_; }
    void prefetch(const Event& e) const {
        if (e.kind == kLinkArrival)
            fabric_.prefetch_arrival(e.target);
        else if (e.kind == kPortWake)
            fabric_.prefetch_port(e.target);
    }

    bool all_finished() const {
        return total().messages_finished == workload_.messages.size() &&
               dag_.computes_finished() == workload_.computes.size();
    }
    NetworkCounters counters() const;
    std::span<const MessageState> messages() const { return transport_.messages(); }
    std::uint64_t bytes_received(std::uint32_t m) const { return transport_.bytes_received(m); }
    std::span<const ComputeState> computes() const { return dag_.computes(); }
    /// Once the run is over: the states moved into the result (the network is spent after).
    std::vector<MessageState> take_messages() { return transport_.take_messages(); }
    std::vector<ComputeState> take_computes() { return dag_.take_computes(); }
    std::span<const Link> links() const { return fabric_.links(); }
    std::span<const EgressPort> ports() const { return fabric_.ports(); }
    const PortGraph& graph() const { return graph_; }
    std::size_t packets_in_flight() const { return static_cast<std::size_t>(total().packets_live); }
    /// Packets alive at once, at most: over every event in one partition; at the ends of
    /// windows when there are more (within a window partitions run one after another).
    std::size_t peak_packets() const {
        return partitions_.count > 1 ? window_peak_ : packets_peak_;
    }
    PathSpread path_spread() const { return forwarding_.path_spread(); }
    /// Ranks: each flow's path spread as the first switch to meet it saw it (a collective).
    void agree_path_spread(Ranks& ranks) { forwarding_.keep_first_spread(ranks); }

  private:
    void service_port(std::uint32_t ch);
    void on_link_arrival(std::uint32_t slot);
    void start_message(std::uint32_t m);
    void make_eligible(std::uint32_t m);
    void finish_message(std::uint32_t m);
    void apply_fault(std::uint32_t action);
    std::uint32_t sender_process(std::uint32_t m) const {
        return processes_.of_endpoint[workload_.messages[m].src];
    }
    std::uint32_t receiver_process(std::uint32_t m) const {
        return processes_.of_endpoint[workload_.messages[m].dst];
    }

    Simulator& sim_;
    const PortGraph& graph_;
    const Workload& workload_;
    NetworkParams params_;
    LogicalProcesses processes_;
    TaskProcesses tasks_;    // where each join runs; which processes dependencies tie
    Partitions partitions_;  // the processes' grouping for windows
    Fabric fabric_;
    Forwarding forwarding_;
    RdmaTransport transport_;
    DagRuntime dag_;
    // What each partition counts as it runs (sim/per_partition.hpp); read summed.
    struct Tally {
        std::int64_t packets_live = 0;  // launched by its senders less those it ended
        std::uint64_t messages_finished = 0;
        Time last_activity;  // its last event other than a sample
    };
    PerPartition<Tally> tally_;
    // Over the partitions: counts added (a partition's packets alive may be negative: sent in
    // one, ended in another), the latest activity.
    Tally total() const {
        Tally t;
        for (std::uint32_t q = 0; q < tally_.size(); ++q) {
            t.packets_live += tally_[q].packets_live;
            t.messages_finished += tally_[q].messages_finished;
            t.last_activity = std::max(t.last_activity, tally_[q].last_activity);
        }
        return t;
    }
    // What end_window adds over ranks: packets alive (their difference, as unsigned words),
    // messages finished, compute tasks finished.
    std::array<std::uint64_t, 3> window_counts() const {
        const Tally t = total();
        return {static_cast<std::uint64_t>(t.packets_live), t.messages_finished,
                dag_.computes_finished()};
    }
    std::array<std::uint64_t, 3> other_ranks_counts_{};  // the other ranks', at the last exchange
    std::size_t packets_peak_ = 0, window_peak_ = 0;
    bool reliable_ = false;  // ACKs, NACKs and retransmission timers run
    bool paced_ = false;     // congestion control paces the senders
    std::vector<QueueSample> samples_;
    TierSeries series_;
    std::vector<std::uint8_t> int_egress_;  // per channel: stamps HPCC hop records
    bool samples_truncated_ = false;
    void sample();
    void sample_tiers();
    void schedule_sample(Time at, NetworkEvent kind);
    bool only_samplers_pending();
    std::uint32_t samplers_pending_ = 0;
    const FaultPlan* faults_ = nullptr;
    std::vector<std::uint32_t> channel_fault_;  // per channel: the fault that last stopped it
    std::vector<FaultOutcome> fault_outcomes_;
    bool failed_ = false;  // a Fail action stopped the run
};

}  // namespace clustersim
