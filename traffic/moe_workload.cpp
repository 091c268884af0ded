#include "traffic/moe_workload.hpp"

#include <stdexcept>

namespace clustersim {

namespace {

// The messages of the first hops: one per (token, expert) write in low-latency mode, one per GPU
// pair in normal mode; `emit(transfer, bytes)` adds each.
template <class Emit>
void each_first_hop(const std::vector<MoeTransfer>& transfers, std::uint64_t bytes_per_token,
                    bool low_latency, Emit&& emit) {
    for (const auto& t : transfers) {
        if (low_latency)
            for (std::uint64_t i = 0; i < t.tokens; ++i) emit(t, bytes_per_token);
        else
            emit(t, t.tokens * bytes_per_token);
    }
}

// The step is built one all-to-all (pass, micro-batch, EP group) at a time, in stages that each
// add their tasks in the order the library runs them: attention, the expert gates and compute,
// dispatch (first hops, then normal mode's NVLink forwarding), combine (the way back), and in
// normal mode the SMs its kernels hold. Task and message indices follow that order.
class StepBuilder {
  public:
    StepBuilder(const MoeRunSpec& spec, MoeRun& run)
        : spec_(spec),
          m_(spec.model),
          w_(run.workload),
          run_(run),
          ep_(spec.placement.ep_size),
          layers_(run.simulated_layers),
          low_latency_(spec.traffic.mode == MoeMode::LowLatency),
          experts_on_gpu_(spec.placement.slots_per_gpu()),
          gating_(m_, spec.placement, spec.gating),
          ready_(std::size_t{spec.groups} * spec.micro_batches,
                 std::vector<std::uint32_t>(ep_, kNone)) {}

    /// Every all-to-all of pass `pass` (training: passes past the layers run backward).
    void pass(std::uint32_t pass, std::uint32_t passes) {
        AllToAll a;
        a.backward = pass >= layers_;
        a.layer = a.backward ? passes - 1 - pass : pass;
        a.dispatch_bytes =
            a.backward ? combine_payload_bytes(m_.hidden)
                       : dispatch_payload_bytes(m_.hidden) + dispatch_scale_bytes(m_.hidden);
        a.combine_bytes = combine_payload_bytes(m_.hidden);
        a.cost = a.backward ? 2 : 1;
        for (std::uint32_t mb = 0; mb < spec_.micro_batches; ++mb) {
            for (std::uint32_t grp = 0; grp < spec_.groups; ++grp) {
                a.micro_batch = mb;
                a.group = grp;
                RandomStream rng(spec_.seed, "moe-gating",
                                 std::uint64_t{grp} << 32 | std::uint64_t{a.layer} << 16 | mb);
                a.traffic = moe_all_to_all(gating_, spec_.placement, m_, spec_.traffic, rng);
                a.ready = &ready_[std::size_t{grp} * spec_.micro_batches + mb];
                a.dispatch_sent.assign(ep_, {});
                a.combine_sent.assign(ep_, {});
                attention(a);
                experts(a);
                MoeAllToAllRange range{a.layer, mb, a.backward, 0, 0, 0, 0};
                range.dispatch_first = message_count();
                dispatch(a);
                range.dispatch_last = message_count();
                range.combine_first = message_count();
                combine(a);
                range.combine_last = message_count();
                if (!low_latency_ && spec_.comm_sms > 0) hold_sms(a);
                run_.all_to_alls.push_back(range);
            }
        }
    }

  private:
    struct AllToAll {
        bool backward = false;
        std::uint32_t layer = 0, micro_batch = 0, group = 0;
        std::uint64_t dispatch_bytes = 0, combine_bytes = 0;
        std::int64_t cost = 1;  // backward compute takes twice the forward's
        MoeAllToAll traffic;
        std::vector<std::uint32_t>* ready = nullptr;  // per rank: the join its next layer waits for
        std::vector<std::uint32_t> attn, gate, expert;
        std::vector<std::vector<std::uint32_t>> dispatch_sent, combine_sent;  // per rank
        std::vector<TaskRef> combine_ready;
    };

    std::uint32_t message_count() const { return static_cast<std::uint32_t>(w_.messages.size()); }
    // A first hop between GPUs of one node that is not an NVLink copy (low-latency mode with
    // intranode_via: rdma) goes through the NICs and the first switch.
    bool through_nic(const MoeTransfer& tr) const {
        return !tr.nvlink &&
               spec_.placement.node_of_gpu(tr.src) == spec_.placement.node_of_gpu(tr.dst);
    }
    // Rank r of group grp is GPU `phys(r)`: groups packed one after another, or spread (rank r
    // of every group side by side, so each group spans the whole fabric).
    std::uint32_t phys(const AllToAll& a, std::uint32_t r) const {
        return spec_.spread ? r * spec_.groups + a.group : a.group * ep_ + r;
    }

    // Attention on every GPU, after its previous layer's combine has come back.
    void attention(AllToAll& a) {
        const Time t = Time::from_ps(run_.attention.ps() * a.cost);
        auto& ready = *a.ready;
        a.attn.assign(ep_, 0);
        for (std::uint32_t g = 0; g < ep_; ++g) {
            ComputeSpec c{phys(a, g), t, Time::never(), 0};
            if (ready[g] == kNone) c.start = Time::zero();
            a.attn[g] = w_.add_compute(c);
            if (ready[g] != kNone)
                w_.depend({TaskKind::Join, ready[g]}, Completion::Done,
                          {TaskKind::Compute, a.attn[g]});
        }
    }

    // Expert compute on every GPU once all its dispatched tokens (and its own attention) are
    // in: a join of (incoming messages + 1).
    void experts(AllToAll& a) {
        const MoeAllToAll& t = a.traffic;
        std::vector<std::uint32_t> incoming(ep_, 0);
        for (const auto& tr : t.transfers)
            incoming[tr.dst] += low_latency_ ? static_cast<std::uint32_t>(tr.tokens) : 1;
        for (const auto& f : t.forwards) ++incoming[f.dst];
        a.gate.assign(ep_, 0);
        a.expert.assign(ep_, 0);
        for (std::uint32_t g = 0; g < ep_; ++g) {
            a.gate[g] = w_.add_join(JoinSpec{JoinKind::All, incoming[g] + 1, Time::zero(), 0});
            w_.depend({TaskKind::Compute, a.attn[g]}, Completion::Done,
                      {TaskKind::Join, a.gate[g]});
            const Time d =
                Time::from_ps(a.cost * expert_time(m_, spec_.gpu, experts_on_gpu_[g],
                                                   t.received[g] + t.copies[g] - t.sent[g],
                                                   spec_.traffic.tokens_per_gpu)
                                           .ps());
            run_.expert.push_back(d);
            a.expert[g] = w_.add_compute(ComputeSpec{phys(a, g), d, Time::never(), 0});
            w_.depend({TaskKind::Join, a.gate[g]}, Completion::Done,
                      {TaskKind::Compute, a.expert[g]});
        }
    }

    // Dispatch: the first hops after attention, then (normal mode) the NVLink forwarding a
    // first-hop GPU starts once all its first-hop tokens are in.
    void dispatch(AllToAll& a) {
        const MoeAllToAll& t = a.traffic;
        std::vector<std::uint32_t> first_hop_in(ep_, 0);
        if (!low_latency_)
            for (const auto& tr : t.transfers) ++first_hop_in[tr.dst];
        std::vector<std::uint32_t> forward_gate(ep_, kNone);
        if (!low_latency_)
            for (const auto& f : t.forwards)
                if (forward_gate[f.src] == kNone)
                    forward_gate[f.src] = w_.add_join(
                        JoinSpec{JoinKind::All, first_hop_in[f.src] + 1, Time::zero(), 0});
        auto first_hop = [&](const MoeTransfer& tr, std::uint64_t bytes) {
            const std::uint32_t src = tr.src, dst = tr.dst;
            const std::uint32_t msg =
                w_.add_message(MessageSpec{phys(a, src), phys(a, dst), bytes, Time::never(), 0});
            if (through_nic(tr)) w_.send_via_nic(msg);
            w_.depend({TaskKind::Compute, a.attn[src]}, Completion::Done,
                      {TaskKind::Transfer, msg});
            w_.depend({TaskKind::Transfer, msg}, Completion::Done, {TaskKind::Join, a.gate[dst]});
            a.dispatch_sent[src].push_back(msg);
            if (forward_gate[dst] != kNone)
                w_.depend({TaskKind::Transfer, msg}, Completion::Done,
                          {TaskKind::Join, forward_gate[dst]});
        };
        each_first_hop(t.transfers, a.dispatch_bytes, low_latency_, first_hop);
        for (std::uint32_t g = 0; g < ep_; ++g)
            if (forward_gate[g] != kNone)
                w_.depend({TaskKind::Compute, a.attn[g]}, Completion::Done,
                          {TaskKind::Join, forward_gate[g]});
        for (const auto& f : t.forwards) {
            const std::uint32_t msg = w_.add_message(MessageSpec{
                phys(a, f.src), phys(a, f.dst), f.tokens * a.dispatch_bytes, Time::never(), 0});
            w_.depend({TaskKind::Join, forward_gate[f.src]}, Completion::Done,
                      {TaskKind::Transfer, msg});
            w_.depend({TaskKind::Transfer, msg}, Completion::Done, {TaskKind::Join, a.gate[f.dst]});
            a.dispatch_sent[f.src].push_back(msg);
        }
    }

    // Combine: the same first hops back, BF16, once the expert GPU has computed. In normal mode
    // each expert GPU first returns its results over NVLink to the GPU that forwarded the
    // tokens, which reduces them and sends one copy per token back. Each GPU's next attention
    // waits for all its tokens and its own experts.
    void combine(AllToAll& a) {
        const MoeAllToAll& t = a.traffic;
        auto& ready = *a.ready;
        std::vector<std::uint32_t> back(ep_, 0);
        for (const auto& tr : t.transfers)
            back[tr.src] += low_latency_ ? static_cast<std::uint32_t>(tr.tokens) : 1;
        for (std::uint32_t g = 0; g < ep_; ++g) {
            ready[g] = w_.add_join(JoinSpec{JoinKind::All, back[g] + 1, Time::zero(), 0});
            w_.depend({TaskKind::Compute, a.expert[g]}, Completion::Done,
                      {TaskKind::Join, ready[g]});
        }
        // What a GPU's first-hop combine messages wait for: its experts, and in normal mode the
        // results forwarded back to it.
        a.combine_ready.assign(ep_, TaskRef{});
        for (std::uint32_t g = 0; g < ep_; ++g)
            a.combine_ready[g] = {TaskKind::Compute, a.expert[g]};
        if (!low_latency_) {
            std::vector<std::uint32_t> gathered(ep_, 0);
            for (const auto& f : t.forwards) ++gathered[f.src];
            for (std::uint32_t g = 0; g < ep_; ++g) {
                if (gathered[g] == 0) continue;
                const std::uint32_t j =
                    w_.add_join(JoinSpec{JoinKind::All, gathered[g] + 1, Time::zero(), 0});
                w_.depend(a.combine_ready[g], Completion::Done, {TaskKind::Join, j});
                a.combine_ready[g] = {TaskKind::Join, j};
            }
            for (const auto& f : t.forwards) {
                const std::uint32_t msg = w_.add_message(MessageSpec{
                    phys(a, f.dst), phys(a, f.src), f.tokens * a.combine_bytes, Time::never(), 0});
                w_.depend({TaskKind::Compute, a.expert[f.dst]}, Completion::Done,
                          {TaskKind::Transfer, msg});
                w_.depend({TaskKind::Transfer, msg}, Completion::Done, a.combine_ready[f.src]);
                a.combine_sent[f.dst].push_back(msg);
            }
        }
        auto way_back = [&](const MoeTransfer& tr, std::uint64_t bytes) {
            const std::uint32_t src = tr.src, dst = tr.dst;
            const std::uint32_t msg =
                w_.add_message(MessageSpec{phys(a, dst), phys(a, src), bytes, Time::never(), 0});
            if (through_nic(tr)) w_.send_via_nic(msg);
            w_.depend(a.combine_ready[dst], Completion::Done, {TaskKind::Transfer, msg});
            w_.depend({TaskKind::Transfer, msg}, Completion::Done, {TaskKind::Join, ready[src]});
            a.combine_sent[dst].push_back(msg);
        };
        each_first_hop(t.transfers, a.combine_bytes, low_latency_, way_back);
    }

    // Normal kernels hold SMs from launch (after the compute before them) until their GPU's
    // part is over; compute beside them slows (DagRuntime).
    void hold_sms(AllToAll& a) {
        const auto sms = static_cast<std::int32_t>(spec_.comm_sms);
        auto hold = [&](std::uint32_t g, TaskRef launch, TaskRef arrived,
                        const std::vector<std::uint32_t>& sent) {
            const std::uint32_t take =
                w_.add_join(JoinSpec{JoinKind::All, 1, Time::zero(), 0, phys(a, g), sms});
            w_.depend(launch, Completion::Done, {TaskKind::Join, take});
            const auto count = static_cast<std::uint32_t>(sent.size() + 1);
            const std::uint32_t give =
                w_.add_join(JoinSpec{JoinKind::All, count, Time::zero(), 0, phys(a, g), -sms});
            w_.depend(arrived, Completion::Done, {TaskKind::Join, give});
            for (std::uint32_t msg : sent)
                w_.depend({TaskKind::Transfer, msg}, Completion::Sent, {TaskKind::Join, give});
        };
        for (std::uint32_t g = 0; g < ep_; ++g) {
            hold(g, {TaskKind::Compute, a.attn[g]}, {TaskKind::Join, a.gate[g]},
                 a.dispatch_sent[g]);
            hold(g, {TaskKind::Compute, a.expert[g]}, {TaskKind::Join, (*a.ready)[g]},
                 a.combine_sent[g]);
        }
    }

    const MoeRunSpec& spec_;
    const MoeModel& m_;
    Workload& w_;
    MoeRun& run_;
    const std::uint32_t ep_, layers_;
    const bool low_latency_;
    const std::vector<std::uint32_t> experts_on_gpu_;
    Gating gating_;
    // Per (group, micro-batch), the join each rank's next attention waits for (kNone before
    // layer 0).
    std::vector<std::vector<std::uint32_t>> ready_;
};

}  // namespace

MoeRun build_moe_run(const MoeRunSpec& spec) {
    const MoeModel& m = spec.model;
    const std::uint32_t layers = std::min(spec.simulated_layers, m.moe_layers());
    if (layers == 0 || spec.micro_batches == 0) throw std::invalid_argument("nothing to simulate");
    MoeRun run;
    run.spec = spec;
    run.simulated_layers = layers;
    run.workload.gpu_sms = spec.gpu_sms;
    const std::uint64_t tokens = spec.traffic.tokens_per_gpu;
    run.attention = spec.phase == MoePhase::Decode
                        ? attention_time(m, spec.gpu, tokens, spec.kv_length)
                        : prefill_attention_time(m, spec.gpu, tokens, spec.kv_length);
    run.dense_ffn = dense_ffn_time(m, spec.gpu, tokens);
    // Training runs every simulated layer forward, then backward from the top: the backward
    // all-to-alls carry BF16 gradients (the combine's towards the experts, the dispatch's back),
    // and backward compute takes twice the forward's (the usual 2:1 FLOP ratio).
    const std::uint32_t passes = spec.phase == MoePhase::Training ? 2 * layers : layers;
    StepBuilder builder(spec, run);
    for (std::uint32_t pass = 0; pass < passes; ++pass) builder.pass(pass, passes);
    return run;
}

}  // namespace clustersim
