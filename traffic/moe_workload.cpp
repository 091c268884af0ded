#include "traffic/moe_workload.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <tuple>

namespace clustersim {

namespace {

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
          five_stage_(spec.schedule == StepSchedule::FiveStage),
          experts_on_gpu_(spec.placement.slots_per_gpu()),
          gating_(m_, spec.placement, spec.gating),
          ready_(std::size_t{spec.groups} * spec.micro_batches,
                 std::vector<std::uint32_t>(ep_, kNone)) {}

    /// Every all-to-all of pass `pass` (training: passes past the layers run backward).
    void pass(std::uint32_t pass, std::uint32_t passes) {
        AllToAll a;
        a.pass = pass;
        const bool training = spec_.phase == MoePhase::Training;
        a.backward = training && pass >= layers_;
        a.mtp = !training && pass >= layers_;
        a.layer = a.backward ? passes - 1 - pass : pass;
        // An MTP module's MoE carries one token per request; the main layers 1 + drafts.
        MoeTrafficParams traffic = spec_.traffic;
        if (a.mtp) traffic.tokens_per_gpu = spec_.requests_per_gpu();
        a.tokens = traffic.tokens_per_gpu;
        a.dispatch_bytes = a.backward     ? combine_payload_bytes(m_.hidden)
                           : low_latency_ ? dispatch_payload_bytes(m_.hidden) +
                                                dispatch_scale_bytes(m_.hidden) +
                                                kLowLatencyDispatchHeaderBytes
                                          : normal_dispatch_record_bytes(m_.hidden, m_.top_k);
        a.combine_bytes = low_latency_ || a.backward
                              ? combine_payload_bytes(m_.hidden)
                              : normal_combine_record_bytes(m_.hidden, m_.top_k);
        a.cost = a.backward ? 2 : 1;
        for (std::uint32_t mb = 0; mb < spec_.micro_batches; ++mb) {
            for (std::uint32_t grp = 0; grp < spec_.groups; ++grp) {
                a.micro_batch = mb;
                a.group = grp;
                RandomStream rng(spec_.seed, "moe-gating",
                                 std::uint64_t{grp} << 32 | std::uint64_t{a.layer} << 16 | mb);
                a.traffic = moe_all_to_all(gating_, spec_.placement, m_, traffic, rng);
                a.ready = &ready_[std::size_t{grp} * spec_.micro_batches + mb];
                a.dispatch_sent.assign(ep_, {});
                a.combine_sent.assign(ep_, {});
                attention(a);
                experts(a);
                MoeAllToAllRange range{a.layer,
                                       mb,
                                       a.backward,
                                       a.mtp,
                                       0,
                                       0,
                                       0,
                                       0,
                                       a.expert,
                                       grp,
                                       a.traffic.expert_tokens};
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
        bool backward = false, mtp = false;
        std::uint32_t pass = 0, layer = 0, micro_batch = 0, group = 0;
        std::uint32_t tokens = 0;  // per GPU
        std::uint64_t dispatch_bytes = 0, combine_bytes = 0;
        std::int64_t cost = 1;  // backward compute takes twice the forward's
        MoeAllToAll traffic;
        std::vector<std::uint32_t>* ready = nullptr;  // per rank: the join its next layer waits for
        std::vector<std::uint32_t> attn, gate, expert;
        std::vector<std::vector<std::uint32_t>> dispatch_sent, combine_sent;  // per rank
    };

    std::uint32_t message_count() const { return static_cast<std::uint32_t>(w_.messages.size()); }
    // A first hop between GPUs of one node that is not an NVLink copy (low-latency mode with
    // intranode_via: rdma) goes through the NICs and the first switch.
    bool through_nic(std::uint32_t src, std::uint32_t dst) const {
        return low_latency_ && spec_.traffic.intranode_via_rdma && src != dst &&
               spec_.placement.node_of_gpu(src) == spec_.placement.node_of_gpu(dst);
    }
    bool library_order() const { return spec_.traffic.issue_order == IssueOrder::Library; }
    // One low-latency message of the all-to-all from rank `src` to rank `dst`.
    std::uint32_t add_hop(const AllToAll& a, std::uint32_t src, std::uint32_t dst,
                          std::uint64_t bytes) {
        const std::uint32_t msg =
            w_.add_message(MessageSpec{phys(a, src), phys(a, dst), bytes, Time::never(), 0});
        if (through_nic(src, dst)) w_.send_via_nic(msg);
        return msg;
    }
    // DeepEP's completion signal: per expert it serves, one 4-byte atomic from every other rank
    // after that rank's writes (the token count at dispatch, a flag at combine).
    std::uint32_t signals_from_others(std::uint32_t gpu) const {
        return (ep_ - 1) * experts_on_gpu_[gpu];
    }
    // Rank r of group grp is GPU `phys(r)`: groups packed one after another (in pods), or
    // spread (rank r of every group side by side, so each group spans the whole fabric).
    std::uint32_t phys(const AllToAll& a, std::uint32_t r) const {
        return group_gpu(spec_, a.group, r);
    }

    // Attention on every GPU, after its previous layer's combine has come back.
    void attention(AllToAll& a) {
        auto& ready = *a.ready;
        const std::vector<Time>& per_rank = a.mtp ? run_.mtp_before_moe : run_.attention;
        a.attn.assign(ep_, 0);
        for (std::uint32_t g = 0; g < ep_; ++g) {
            // An MTP module starts with the head and sampling of the token it drafts from: the
            // main model's for the first, the previous module's after.
            const Time head = !a.mtp               ? Time::zero()
                              : a.layer == layers_ ? run_.lm_head + run_.sampling
                                                   : run_.mtp_head + run_.mtp_sampling;
            const Time t = Time::from_ps(
                (per_rank[run_.rank_index(a.group, a.micro_batch, g)] + head).ps() * a.cost);
            // Five stages: the part before the core attention (ATTN-0) is its own task, so
            // that the other micro-batch's core attention (ATTN-1) can run before it.
            const Time before = !five_stage_ ? Time::zero()
                                : a.mtp      ? head + run_.mtp_attention_before_core
                                             : run_.attention_before_core;
            if (!five_stage_) {
                a.attn[g] = add_compute(a, g, t, MoeComputeStage::Attention);
                if (ready[g] == kNone)
                    w_.computes[a.attn[g]].start = Time::zero();
                else
                    w_.depend({TaskKind::Join, ready[g]}, Completion::Done,
                              {TaskKind::Compute, a.attn[g]});
                continue;
            }
            // Each task behind an entry join that its program predecessor also raises
            // (order_five_stage), but for the GPU's very first.
            FiveStageTasks& f = five_stage(a, g);
            f.attn0 = add_compute(a, g, before, MoeComputeStage::AttentionBefore);
            a.attn[g] = f.attn1 = add_compute(a, g, t - before, MoeComputeStage::CoreAttention);
            if (a.pass == 0 && a.micro_batch == 0) {
                w_.computes[f.attn0].start = Time::zero();
            } else {
                f.attn0_entry = entry(f.attn0, ready[g] == kNone ? 0 : 1);
                if (ready[g] != kNone)
                    w_.depend({TaskKind::Join, ready[g]}, Completion::Done,
                              {TaskKind::Join, f.attn0_entry});
            }
            f.attn1_entry = entry(f.attn1, 1);
            w_.depend({TaskKind::Compute, f.attn0}, Completion::Done,
                      {TaskKind::Join, f.attn1_entry});
        }
    }

    // Five stages: each GPU runs its compute in DeepSeek's program order, as a CUDA stream
    // issues kernels: for each pass and micro-batch, its core attention (ATTN-1), shared
    // expert, the next micro-batch's (or the next layer's first) ATTN-0, then its routed
    // experts; so one micro-batch's dispatch hides behind the shared expert and the other's
    // ATTN-0, its combine behind the other's ATTN-1.
    struct FiveStageTasks {
        std::uint32_t attn0 = kNone, attn1 = kNone, shared = kNone, mlp = kNone;
        std::uint32_t attn0_entry = kNone, attn1_entry = kNone, mlp_entry = kNone;
    };
    FiveStageTasks& five_stage(const AllToAll& a, std::uint32_t g) {
        const std::size_t i =
            ((std::size_t{a.pass} * spec_.micro_batches + a.micro_batch) * spec_.groups + a.group) *
                ep_ +
            g;
        if (five_stage_tasks_.size() <= i) five_stage_tasks_.resize(i + 1);
        return five_stage_tasks_[i];
    }
    std::uint32_t entry(std::uint32_t compute, std::uint32_t count) {
        const std::uint32_t j = w_.add_join(JoinSpec{JoinKind::All, count, Time::zero(), 0});
        w_.depend({TaskKind::Join, j}, Completion::Done, {TaskKind::Compute, compute});
        return j;
    }

  public:
    void order_five_stage(std::uint32_t passes) {
        if (!five_stage_) return;
        const std::uint32_t mbs = spec_.micro_batches;
        auto at = [&](std::uint32_t pass, std::uint32_t mb, std::uint32_t grp,
                      std::uint32_t g) -> FiveStageTasks& {
            return five_stage_tasks_[((std::size_t{pass} * mbs + mb) * spec_.groups + grp) * ep_ +
                                     g];
        };
        for (std::uint32_t grp = 0; grp < spec_.groups; ++grp)
            for (std::uint32_t g = 0; g < ep_; ++g) {
                std::uint32_t prev = at(0, 0, grp, g).attn0;
                auto then = [&](std::uint32_t task, std::uint32_t entry_join) {
                    if (entry_join != kNone) {
                        ++w_.joins[entry_join].count;
                        w_.depend({TaskKind::Compute, prev}, Completion::Done,
                                  {TaskKind::Join, entry_join});
                    }
                    prev = task;
                };
                for (std::uint32_t pass = 0; pass < passes; ++pass)
                    for (std::uint32_t mb = 0; mb < mbs; ++mb) {
                        const FiveStageTasks& f = at(pass, mb, grp, g);
                        then(f.attn1, f.attn1_entry);
                        then(f.shared, kNone);  // its only input is ATTN-1 already
                        const bool last_mb = mb + 1 == mbs;
                        // The next pass's first ATTN-0 goes before this MLP only between main
                        // layers: an MTP module's starts with the LM head and sampling, which
                        // run after the last layer's experts, not in the middle of them.
                        const bool next_exists = !last_mb || pass + 1 < passes;
                        const bool head_next = last_mb && pass + 1 >= layers_;
                        const FiveStageTasks* n = next_exists ? &at(last_mb ? pass + 1 : pass,
                                                                    last_mb ? 0 : mb + 1, grp, g)
                                                              : nullptr;
                        if (n && !head_next) then(n->attn0, n->attn0_entry);
                        then(f.mlp, f.mlp_entry);
                        if (n && head_next) then(n->attn0, n->attn0_entry);
                    }
            }
    }

  private:
    std::uint32_t add_compute(const AllToAll& a, std::uint32_t g, Time t, MoeComputeStage stage) {
        run_.nominal_compute_ps += t.ps();
        return w_.add_compute(
            ComputeSpec{phys(a, g), t, Time::never(), static_cast<std::uint64_t>(stage)});
    }

    // Expert compute on every GPU once all its dispatched tokens (and its own attention) are
    // in: a join of (incoming messages + 1).
    void experts(AllToAll& a) {
        const MoeAllToAll& t = a.traffic;
        std::vector<std::uint32_t> incoming(ep_, 0);
        if (low_latency_) {
            for (const auto& wr : t.writes) ++incoming[wr.dst];
            for (std::uint32_t g = 0; g < ep_; ++g) incoming[g] += signals_from_others(g);
        } else if (!library_order()) {  // chunked: each message raises its gate's count
            for (const auto& tr : t.transfers) ++incoming[tr.dst];
            for (const auto& f : t.forwards) ++incoming[f.dst];
        }
        a.gate.assign(ep_, 0);
        a.expert.assign(ep_, 0);
        for (std::uint32_t g = 0; g < ep_; ++g) {
            a.gate[g] = w_.add_join(JoinSpec{JoinKind::All, incoming[g] + 1, Time::zero(), 0});
            const std::uint64_t tokens = t.received[g] + t.copies[g] - t.sent[g];
            const Time routed = Time::from_ps(
                a.cost * routed_expert_time(m_, spec_.gpu, experts_on_gpu_[g], tokens).ps());
            const Time shared =
                Time::from_ps(a.cost * shared_expert_time(m_, spec_.gpu, a.tokens).ps());
            run_.expert.push_back(routed + shared);
            // Five stages: the shared expert needs no dispatched token and runs while the
            // dispatch is in flight; the routed experts (MLP) after it. Two: both together.
            if (!five_stage_) {
                w_.depend({TaskKind::Compute, a.attn[g]}, Completion::Done,
                          {TaskKind::Join, a.gate[g]});
                a.expert[g] = add_compute(a, g, routed + shared, MoeComputeStage::Experts);
                w_.depend({TaskKind::Join, a.gate[g]}, Completion::Done,
                          {TaskKind::Compute, a.expert[g]});
                continue;
            }
            // The gate is the dispatch's arrival (normal mode gives its SMs back there): it
            // counts the GPU's own ATTN-1, not the shared expert, which program order already
            // runs before the routed experts.
            FiveStageTasks& f = five_stage(a, g);
            f.shared = add_compute(a, g, shared, MoeComputeStage::SharedExpert);
            w_.depend({TaskKind::Compute, a.attn[g]}, Completion::Done,
                      {TaskKind::Compute, f.shared});
            w_.depend({TaskKind::Compute, a.attn[g]}, Completion::Done,
                      {TaskKind::Join, a.gate[g]});
            a.expert[g] = f.mlp = add_compute(a, g, routed, MoeComputeStage::RoutedExperts);
            f.mlp_entry = entry(f.mlp, 1);
            w_.depend({TaskKind::Join, a.gate[g]}, Completion::Done, {TaskKind::Join, f.mlp_entry});
        }
    }

    void dispatch(AllToAll& a) {
        if (low_latency_)
            dispatch_low_latency(a);
        else
            dispatch_normal(a);
    }
    void combine(AllToAll& a) {
        if (low_latency_)
            combine_low_latency(a);
        else
            combine_normal(a);
    }

    // Low-latency dispatch after attention: each write in the order its source issues it
    // (library: token by token; destination-sorted: grouped by destination), then the count
    // atomics, which DeepEP sends per expert once every SM has issued its writes.
    void dispatch_low_latency(AllToAll& a) {
        std::vector<MoeWrite> order = a.traffic.writes;
        if (!library_order())
            std::stable_sort(order.begin(), order.end(), [](const MoeWrite& x, const MoeWrite& y) {
                return std::pair{x.src, x.dst} < std::pair{y.src, y.dst};
            });
        auto send = [&](std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
            const std::uint32_t msg = add_hop(a, src, dst, bytes);
            w_.depend({TaskKind::Compute, a.attn[src]}, Completion::Done,
                      {TaskKind::Transfer, msg});
            w_.depend({TaskKind::Transfer, msg}, Completion::Done, {TaskKind::Join, a.gate[dst]});
            a.dispatch_sent[src].push_back(msg);
        };
        for (const auto& wr : order) send(wr.src, wr.dst, a.dispatch_bytes);
        for (std::uint32_t src = 0; src < ep_; ++src)
            for (std::uint32_t dst = 0; dst < ep_; ++dst)
                for (std::uint32_t e = 0; dst != src && e < experts_on_gpu_[dst]; ++e)
                    send(src, dst, kLowLatencySignalBytes);
    }

    // Low-latency combine once the expert GPU has computed: each token back to its source.
    // DeepEP's warp groups each serve one (source rank, expert) pair and stride over its
    // tokens, all at once, so the library order interleaves the pairs token by token; then one
    // flag atomic per pair. Each GPU's next attention waits for all its tokens and flags.
    void combine_low_latency(AllToAll& a) {
        auto& ready = *a.ready;
        std::vector<std::uint32_t> back(ep_, 0);
        for (const auto& wr : a.traffic.writes) ++back[wr.src];
        std::uint32_t slots = 0;
        for (std::uint32_t g = 0; g < ep_; ++g) slots += experts_on_gpu_[g];
        for (std::uint32_t g = 0; g < ep_; ++g) {
            back[g] += slots - experts_on_gpu_[g];
            ready[g] = w_.add_join(JoinSpec{JoinKind::All, back[g] + 1, Time::zero(), 0});
            w_.depend({TaskKind::Compute, a.expert[g]}, Completion::Done,
                      {TaskKind::Join, ready[g]});
        }
        std::vector<MoeWrite> order = a.traffic.writes;
        std::stable_sort(order.begin(), order.end(), [&](const MoeWrite& x, const MoeWrite& y) {
            if (!library_order()) return std::pair{x.dst, x.src} < std::pair{y.dst, y.src};
            return std::tuple{x.dst, x.src, x.expert} < std::tuple{y.dst, y.src, y.expert};
        });
        auto send = [&](std::uint32_t expert_gpu, std::uint32_t src, std::uint64_t bytes) {
            const std::uint32_t msg = add_hop(a, expert_gpu, src, bytes);
            w_.depend({TaskKind::Compute, a.expert[expert_gpu]}, Completion::Done,
                      {TaskKind::Transfer, msg});
            w_.depend({TaskKind::Transfer, msg}, Completion::Done, {TaskKind::Join, ready[src]});
            a.combine_sent[expert_gpu].push_back(msg);
        };
        std::vector<std::pair<std::size_t, std::size_t>> pairs;  // [first, last) in `order`
        for (std::size_t first = 0; first < order.size();) {
            const std::uint32_t g = order[first].dst;
            std::size_t end = first;
            while (end < order.size() && order[end].dst == g) ++end;
            if (!library_order()) {
                for (std::size_t i = first; i < end; ++i) send(g, order[i].src, a.combine_bytes);
            } else {
                pairs.clear();
                for (std::size_t i = first; i < end;) {
                    std::size_t j = i;
                    while (j < end && order[j].src == order[i].src &&
                           order[j].expert == order[i].expert)
                        ++j;
                    pairs.emplace_back(i, j);
                    i = j;
                }
                // Round k sends the k-th token of every pair that has one.
                for (bool more = true; more;) {
                    more = false;
                    for (auto& [next, last] : pairs)
                        if (next < last) {
                            send(g, order[next].src, a.combine_bytes);
                            more = ++next < last || more;
                        }
                }
            }
            first = end;
        }
        for (std::uint32_t g = 0; g < ep_; ++g)
            for (std::uint32_t src = 0; src < ep_; ++src)
                for (std::uint32_t e = 0; src != g && e < experts_on_gpu_[g]; ++e)
                    send(g, src, kLowLatencySignalBytes);
    }

    // Normal mode, destination-sorted (comparison only): one first hop per GPU pair after
    // attention, the NVLink forwarding a first-hop GPU starts once all its first-hop tokens are
    // in.
    void dispatch_normal(AllToAll& a) {
        if (library_order()) return dispatch_chunked(a);
        const MoeAllToAll& t = a.traffic;
        std::vector<std::uint32_t> first_hop_in(ep_, 0);
        for (const auto& tr : t.transfers) ++first_hop_in[tr.dst];
        std::vector<std::uint32_t> forward_gate(ep_, kNone);
        for (const auto& f : t.forwards)
            if (forward_gate[f.src] == kNone)
                forward_gate[f.src] =
                    w_.add_join(JoinSpec{JoinKind::All, first_hop_in[f.src] + 1, Time::zero(), 0});
        for (const auto& tr : t.transfers) {
            const std::uint32_t msg =
                add_normal(a, tr.src, tr.dst, tr.tokens * a.dispatch_bytes,
                           {TaskKind::Compute, a.attn[tr.src]}, {TaskKind::Join, a.gate[tr.dst]});
            a.dispatch_sent[tr.src].push_back(msg);
            if (forward_gate[tr.dst] != kNone)
                w_.depend({TaskKind::Transfer, msg}, Completion::Done,
                          {TaskKind::Join, forward_gate[tr.dst]});
        }
        for (std::uint32_t g = 0; g < ep_; ++g)
            if (forward_gate[g] != kNone)
                w_.depend({TaskKind::Compute, a.attn[g]}, Completion::Done,
                          {TaskKind::Join, forward_gate[g]});
        for (const auto& f : t.forwards)
            a.dispatch_sent[f.src].push_back(
                add_normal(a, f.src, f.dst, f.tokens * a.dispatch_bytes,
                           {TaskKind::Join, forward_gate[f.src]}, {TaskKind::Join, a.gate[f.dst]}));
    }

    // Normal combine, destination-sorted: each expert GPU first returns its results over
    // NVLink to the GPU that forwarded the tokens, which reduces them once all are in and sends
    // one copy per token back. Each GPU's next attention waits for all its tokens and its own
    // experts.
    void combine_normal(AllToAll& a) {
        const MoeAllToAll& t = a.traffic;
        auto& ready = *a.ready;
        for (std::uint32_t g = 0; g < ep_; ++g) {
            ready[g] = w_.add_join(JoinSpec{JoinKind::All, 1, Time::zero(), 0});
            w_.depend({TaskKind::Compute, a.expert[g]}, Completion::Done,
                      {TaskKind::Join, ready[g]});
        }
        if (library_order()) return combine_chunked(a);
        // What a GPU's first-hop combine messages wait for: its experts and the results
        // forwarded back to it.
        std::vector<TaskRef> combine_ready(ep_);
        for (std::uint32_t g = 0; g < ep_; ++g) combine_ready[g] = {TaskKind::Compute, a.expert[g]};
        std::vector<std::uint32_t> gathered(ep_, 0);
        for (const auto& f : t.forwards) ++gathered[f.src];
        for (std::uint32_t g = 0; g < ep_; ++g) {
            if (gathered[g] == 0) continue;
            const std::uint32_t j =
                w_.add_join(JoinSpec{JoinKind::All, gathered[g] + 1, Time::zero(), 0});
            w_.depend(combine_ready[g], Completion::Done, {TaskKind::Join, j});
            combine_ready[g] = {TaskKind::Join, j};
        }
        for (const auto& f : t.forwards) {
            const std::uint32_t msg = w_.add_message(MessageSpec{
                phys(a, f.dst), phys(a, f.src), f.tokens * a.combine_bytes, Time::never(), 0});
            w_.depend({TaskKind::Compute, a.expert[f.dst]}, Completion::Done,
                      {TaskKind::Transfer, msg});
            w_.depend({TaskKind::Transfer, msg}, Completion::Done, combine_ready[f.src]);
            a.combine_sent[f.dst].push_back(msg);
        }
        for (const auto& tr : t.transfers) {
            a.combine_sent[tr.dst].push_back(
                add_normal(a, tr.dst, tr.src, tr.tokens * a.combine_bytes, combine_ready[tr.dst],
                           {TaskKind::Join, ready[tr.src]}));
            ++w_.joins[ready[tr.src]].count;
        }
    }

    // A normal-mode message from `after` to `into` (a join, whose count it raises by one).
    std::uint32_t add_normal(const AllToAll& a, std::uint32_t src, std::uint32_t dst,
                             std::uint64_t bytes, TaskRef after, TaskRef into) {
        const std::uint32_t msg =
            w_.add_message(MessageSpec{phys(a, src), phys(a, dst), bytes, Time::never(), 0});
        w_.depend(after, Completion::Done, {TaskKind::Transfer, msg});
        w_.depend({TaskKind::Transfer, msg}, Completion::Done, into);
        return msg;
    }

    // One chunk of a normal-mode channel: `src`'s tokens [first, last) of `chunk_tokens_` bound
    // for node `node`, through the GPU `via` of the same local rank there.
    struct Chunk {
        std::uint32_t src = 0, node = 0, via = 0, channel = 0;
        std::size_t first = 0, last = 0;
    };

    // DeepEP's normal kernels split each GPU's tokens into channels (contiguous ranges, one
    // pair of SMs each). A channel's RDMA sender copies each token once per destination node,
    // and its coordinator issues a chunk of `chunk` tokens per node as soon as it has one,
    // visiting the nodes in turn from (channel + own node); the channels run side by side. The
    // chunks in that order, with their tokens in `tokens`.
    std::vector<Chunk> chunks(const AllToAll& a, std::uint32_t chunk,
                              std::vector<std::uint32_t>& tokens) const {
        const std::uint32_t per_gpu = a.tokens;
        const std::uint32_t channels = std::max<std::uint32_t>(1, spec_.normal.channels);
        chunk = std::max<std::uint32_t>(1, chunk);
        const std::uint32_t nodes = spec_.placement.nodes();
        const MoeAllToAll& t = a.traffic;
        // Per (source, channel, node): its token list.
        std::vector<std::vector<std::uint32_t>> lists(std::size_t{ep_} * channels * nodes);
        auto list = [&](std::uint32_t src, std::uint32_t c, std::uint32_t node) -> auto& {
            return lists[(std::size_t{src} * channels + c) * nodes + node];
        };
        std::vector<std::uint8_t> reached(nodes, 0);
        for (std::uint32_t src = 0; src < ep_; ++src)
            for (std::uint32_t c = 0; c < channels; ++c) {
                const auto begin =
                    static_cast<std::uint32_t>(std::uint64_t{per_gpu} * c / channels);
                const auto end =
                    static_cast<std::uint32_t>(std::uint64_t{per_gpu} * (c + 1) / channels);
                for (std::uint32_t tok = begin; tok < end; ++tok) {
                    const std::size_t i = std::size_t{src} * per_gpu + tok;
                    std::fill(reached.begin(), reached.end(), 0);
                    for (std::uint64_t k = t.route_first[i]; k < t.route_first[i + 1]; ++k) {
                        const std::uint32_t node = spec_.placement.node_of_gpu(t.route_gpus[k]);
                        if (!reached[node]) list(src, c, node).push_back(tok);
                        reached[node] = 1;
                    }
                }
            }
        // Round by round (every source and channel side by side), the nodes in each channel's
        // turn.
        std::vector<Chunk> out;
        tokens.clear();
        for (std::size_t round = 0;; ++round) {
            bool any = false;
            for (std::uint32_t src = 0; src < ep_; ++src) {
                const std::uint32_t own = spec_.placement.node_of_gpu(src);
                for (std::uint32_t c = 0; c < channels; ++c)
                    for (std::uint32_t v = 0; v < nodes; ++v) {
                        const std::uint32_t node = (c + own + v) % nodes;
                        const auto& l = list(src, c, node);
                        const std::size_t first = round * chunk;
                        if (first >= l.size()) continue;
                        any = true;
                        const std::size_t last = std::min(l.size(), first + chunk);
                        out.push_back(Chunk{src, node, normal_first_hop(spec_.placement, src, node),
                                            c, tokens.size(), tokens.size() + (last - first)});
                        tokens.insert(tokens.end(), l.begin() + static_cast<std::ptrdiff_t>(first),
                                      l.begin() + static_cast<std::ptrdiff_t>(last));
                    }
            }
            if (!any) break;
        }
        return out;
    }

    // Per GPU of a chunk's node other than its first hop, the tokens of the chunk it serves.
    void peers_of(const AllToAll& a, const Chunk& ch, std::span<const std::uint32_t> tokens,
                  std::vector<std::pair<std::uint32_t, std::uint64_t>>& out) const {
        const MoeAllToAll& t = a.traffic;
        const std::uint32_t per_gpu = a.tokens;
        out.clear();
        for (std::uint32_t tok : tokens) {
            const std::size_t i = std::size_t{ch.src} * per_gpu + tok;
            for (std::uint64_t k = t.route_first[i]; k < t.route_first[i + 1]; ++k) {
                const std::uint32_t g = t.route_gpus[k];
                if (g == ch.via || spec_.placement.node_of_gpu(g) != ch.node) continue;
                auto it = std::find_if(out.begin(), out.end(),
                                       [&](const auto& p) { return p.first == g; });
                if (it == out.end())
                    out.emplace_back(g, 1);
                else
                    ++it->second;
            }
        }
    }

    // The last chunk message of each (source, channel, node) queue pair, so the next one
    // queues behind it: a queue pair executes its work requests in order.
    std::uint32_t& queue_pair_tail(std::vector<std::uint32_t>& tails, const Chunk& ch) const {
        const std::uint32_t nodes = spec_.placement.nodes();
        const std::uint32_t channels = std::max<std::uint32_t>(1, spec_.normal.channels);
        if (tails.empty()) tails.assign(std::size_t{ep_} * channels * nodes, kNone);
        return tails[(std::size_t{ch.src} * channels + ch.channel) * nodes + ch.node];
    }

    // Normal dispatch in the library's order: every chunk is one RDMA write (none for the own
    // node's, which stays on the GPU) on its channel's queue pair to that node, so a channel's
    // chunks to one node leave one after another; the first-hop GPU forwards each chunk's
    // tokens over NVLink to the GPUs of its node that serve them as soon as that chunk is in,
    // so the two stages overlap. Simplified: the receive rings never fill (their credits are
    // not modelled), and a chunk's forwarding to one GPU is one message.
    void dispatch_chunked(AllToAll& a) {
        std::vector<std::uint32_t> tokens, tails;
        const std::vector<Chunk> plan = chunks(a, spec_.normal.dispatch_chunk_tokens, tokens);
        std::vector<std::pair<std::uint32_t, std::uint64_t>> peers;
        for (const Chunk& ch : plan) {
            const auto n = static_cast<std::uint64_t>(ch.last - ch.first);
            TaskRef arrived{TaskKind::Compute, a.attn[ch.src]};
            if (ch.via != ch.src) {
                std::uint32_t& tail = queue_pair_tail(tails, ch);
                const std::uint32_t msg = w_.add_message(MessageSpec{
                    phys(a, ch.src), phys(a, ch.via), n * a.dispatch_bytes, Time::never(), 0});
                if (tail == kNone)
                    w_.depend(arrived, Completion::Done, {TaskKind::Transfer, msg});
                else
                    w_.depend({TaskKind::Transfer, tail}, Completion::Sent,
                              {TaskKind::Transfer, msg});
                tail = msg;
                w_.depend({TaskKind::Transfer, msg}, Completion::Done,
                          {TaskKind::Join, a.gate[ch.via]});
                ++w_.joins[a.gate[ch.via]].count;
                a.dispatch_sent[ch.src].push_back(msg);
                arrived = {TaskKind::Transfer, msg};
            }
            peers_of(a, ch, std::span(tokens).subspan(ch.first, ch.last - ch.first), peers);
            for (const auto& [g, count] : peers) {
                a.dispatch_sent[ch.via].push_back(add_normal(a, ch.via, g, count * a.dispatch_bytes,
                                                             arrived, {TaskKind::Join, a.gate[g]}));
                ++w_.joins[a.gate[g]].count;
            }
        }
    }

    // Normal combine in the library's order, the reverse: per chunk (the combine's own chunk
    // size), each GPU that served some of its tokens returns them over NVLink to the first-hop
    // GPU, which reduces the chunk once they and its own experts are in and writes it back.
    void combine_chunked(AllToAll& a) {
        auto& ready = *a.ready;
        std::vector<std::uint32_t> tokens, tails;
        const std::vector<Chunk> plan = chunks(a, spec_.normal.combine_chunk_tokens, tokens);
        std::vector<std::pair<std::uint32_t, std::uint64_t>> peers;
        const std::uint32_t channels = std::max<std::uint32_t>(1, spec_.normal.channels);
        const std::uint32_t per_node = spec_.placement.gpus_per_node;
        std::vector<std::uint32_t> returns(std::size_t{ep_} * channels * per_node, kNone);
        for (const Chunk& ch : plan) {
            const auto n = static_cast<std::uint64_t>(ch.last - ch.first);
            // Where the returns go: the chunk's reduction, or straight home on the own node.
            TaskRef into{TaskKind::Join, ready[ch.src]};
            std::uint32_t reduced = kNone;
            if (ch.via != ch.src) {
                reduced = w_.add_join(JoinSpec{JoinKind::All, 1, Time::zero(), 0});
                w_.depend({TaskKind::Compute, a.expert[ch.via]}, Completion::Done,
                          {TaskKind::Join, reduced});
                into = {TaskKind::Join, reduced};
            }
            peers_of(a, ch, std::span(tokens).subspan(ch.first, ch.last - ch.first), peers);
            for (const auto& [g, count] : peers) {
                // An expert GPU returns a channel's tokens to one first-hop GPU through one
                // ring, in order: behind the previous return on it.
                std::uint32_t& ring = returns[(std::size_t{g} * channels + ch.channel) * per_node +
                                              ch.via % per_node];
                const TaskRef after = ring == kNone ? TaskRef{TaskKind::Compute, a.expert[g]}
                                                    : TaskRef{TaskKind::Transfer, ring};
                const std::uint32_t msg = w_.add_message(MessageSpec{
                    phys(a, g), phys(a, ch.via), count * a.combine_bytes, Time::never(), 0});
                w_.depend(after, ring == kNone ? Completion::Done : Completion::Sent,
                          {TaskKind::Transfer, msg});
                w_.depend({TaskKind::Transfer, msg}, Completion::Done, into);
                ring = msg;
                a.combine_sent[g].push_back(msg);
                ++w_.joins[into.index].count;
            }
            if (reduced != kNone) {
                // Written back on the channel's queue pair, behind its previous chunk.
                std::uint32_t& tail = queue_pair_tail(tails, ch);
                if (tail != kNone) {
                    w_.depend({TaskKind::Transfer, tail}, Completion::Sent,
                              {TaskKind::Join, reduced});
                    ++w_.joins[reduced].count;
                }
                tail = add_normal(a, ch.via, ch.src, n * a.combine_bytes, {TaskKind::Join, reduced},
                                  {TaskKind::Join, ready[ch.src]});
                a.combine_sent[ch.via].push_back(tail);
                ++w_.joins[ready[ch.src]].count;
            }
        }
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
    const bool low_latency_, five_stage_;
    const std::vector<std::uint32_t> experts_on_gpu_;
    Gating gating_;
    // Per (group, micro-batch), the join each rank's next attention waits for (kNone before
    // layer 0).
    std::vector<std::vector<std::uint32_t>> ready_;
    std::vector<FiveStageTasks> five_stage_tasks_;  // per (pass, micro-batch, group, rank)
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
    const bool decode = spec.phase == MoePhase::Decode;
    const std::uint32_t ep = spec.placement.ep_size;
    const std::uint64_t requests = spec.requests_per_gpu();
    const std::uint32_t queries = 1 + spec.mtp_draft_tokens;
    run.router = router_time(m, spec.gpu, tokens);
    run.attention_before_core = attention_before_core(m, spec.gpu, tokens);
    run.dense_ffn = dense_ffn_time(m, spec.gpu, tokens);
    const std::size_t slots = std::size_t{spec.groups} * spec.micro_batches * ep;
    run.attention.assign(slots, Time::zero());
    if (decode) {
        run.embedding = embedding_time(m, spec.gpu, tokens);
        run.lm_head = lm_head_time(m, spec.gpu, tokens);
        run.sampling = sampling_time(m, spec.gpu, tokens);
        if (spec.mtp_draft_tokens > 0) {
            run.mtp_embedding = embedding_time(m, spec.gpu, requests);
            run.mtp_projection = mtp_projection_time(m, spec.gpu, requests);
            run.mtp_head = lm_head_time(m, spec.gpu, requests);
            run.mtp_sampling = sampling_time(m, spec.gpu, requests);
            run.mtp_before_moe.assign(slots, Time::zero());
            run.mtp_attention_before_core = run.mtp_embedding + run.mtp_projection +
                                            attention_before_core(m, spec.gpu, requests);
        }
        // The same requests in every layer of a step: their contexts are drawn once per
        // (group, micro-batch) and assigned to its ranks.
        for (std::uint32_t grp = 0; grp < spec.groups; ++grp)
            for (std::uint32_t mb = 0; mb < spec.micro_batches; ++mb) {
                RandomStream rng(spec.seed, "request-contexts", std::uint64_t{grp} << 32 | mb);
                const auto contexts =
                    assign_request_contexts(spec.contexts, spec.request_balance, ep,
                                            static_cast<std::uint32_t>(requests), rng);
                for (std::uint32_t r = 0; r < ep; ++r) {
                    const std::size_t i = run.rank_index(grp, mb, r);
                    run.attention[i] =
                        attention_time(m, spec.gpu, contexts[r], queries) + run.router;
                    if (spec.mtp_draft_tokens == 0) continue;
                    // Before an MTP module's MoE (after the head that chose its token): the
                    // token's embedding with the hidden state projected, its attention over
                    // the request's context (its own KV cache, one query) and its router.
                    run.mtp_before_moe[i] = run.mtp_embedding + run.mtp_projection +
                                            attention_time(m, spec.gpu, contexts[r], 1) +
                                            router_time(m, spec.gpu, requests);
                }
            }
    } else {
        const Time t = prefill_attention_time(m, spec.gpu, tokens, spec.kv_length) + run.router;
        std::fill(run.attention.begin(), run.attention.end(), t);
    }
    // Training runs every simulated layer forward, then backward from the top: the backward
    // all-to-alls carry BF16 gradients (the combine's towards the experts, the dispatch's back),
    // and backward compute takes twice the forward's (the usual 2:1 FLOP ratio). Decode with
    // MTP runs its MTP modules after the simulated layers, one per draft token.
    const std::uint32_t passes = spec.phase == MoePhase::Training ? 2 * layers
                                 : decode                         ? layers + spec.mtp_draft_tokens
                                                                  : layers;
    StepBuilder builder(spec, run);
    for (std::uint32_t pass = 0; pass < passes; ++pass) builder.pass(pass, passes);
    builder.order_five_stage(passes);
    return run;
}

void lose_ranks(MoeRun& run) {
    if (run.spec.lost_ranks.empty()) return;
    const std::uint32_t ep = run.spec.placement.ep_size;
    std::vector<std::uint8_t> lost(
        std::size_t{group_gpu(run.spec, run.spec.groups - 1, ep - 1)} + 1, 0);
    for (std::uint32_t r : run.spec.lost_ranks)
        if (r < lost.size()) lost[r] = 1;
    for (Message& m : run.workload.messages)
        if ((m.src < lost.size() && lost[m.src]) || (m.dst < lost.size() && lost[m.dst]))
            m.bytes = 0;
    for (ComputeSpec& c : run.workload.computes)
        if (c.gpu < lost.size() && lost[c.gpu]) c.duration = Time::zero();
}

std::string_view moe_compute_stage_name(std::uint64_t label) {
    switch (static_cast<MoeComputeStage>(label)) {
        case MoeComputeStage::Attention:
            return "attention";
        case MoeComputeStage::AttentionBefore:
            return "attention before core (ATTN-0)";
        case MoeComputeStage::CoreAttention:
            return "core attention (ATTN-1)";
        case MoeComputeStage::Experts:
            return "experts";
        case MoeComputeStage::SharedExpert:
            return "shared expert";
        case MoeComputeStage::RoutedExperts:
            return "routed experts";
        case MoeComputeStage::Other:
            break;
    }
    return "compute";
}

}  // namespace clustersim
